#!/usr/bin/env python3
"""Hostile probes against `chorus serve` and `chorus models pull` (issue 31), standard library only.

Every probe starts a fresh server on 127.0.0.1 (a key set, descriptors limited to 1,024), attacks it, and
records: what the server answered and how long it took to refuse, the server's peak resident memory (VmRSS
sampled every 50 ms) and CPU seconds, /health's slowest answer during the attack and its answer 1 s after
the attack stops, and how long the server takes to exit after SIGTERM (killed after 45 s). Downloads run
`chorus models pull piper` in a network namespace of its own (`unshare -n`: only its loopback) against a
local fake hub that redirects where a download must not go.

    python3 bench/probe_server.py --binary .build/debug/chorus [--label new] [--only key,bombs] [--json out.json]

Models: Kokoro, Piper (and Silero) from $CHORUS_MODELS or ~/.cache/chorus/models; CosyVoice, Chatterbox and
NeuTTS are the generated models under Tests/ (copied into a temporary models root with one voice each).
Options the binary does not know (old builds) are left out; its help is read first.

Issue 41's connection and framing probes: `--only idle-flood,idle-flood-1100,idle-sigterm,framing` (600 and
1,100 idle connections reopened as the server closes them for 60 s, /health every 0.5 s and /metrics every
second meanwhile; SIGTERM with 300 idle connections open, seconds to exit; Transfer-Encoding, Host and the
stream-input socket's unmasked, non-UTF-8 and oversized frames over raw sockets).
"""
import argparse
import base64
import http.client
import json
import math
import os
import re
import resource
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEY = "probe-key"
TICK = os.sysconf("SC_CLK_TCK")


# ---- the server under test -------------------------------------------------------------------------------

def models_root(base):
    """A models root: links to the real Kokoro, Piper, Silero; copies of the generated test models with a voice."""
    real = os.environ.get("CHORUS_MODELS") or os.path.expanduser("~/.cache/chorus/models")
    root = os.path.join(base, "models")
    os.makedirs(root)
    for name in os.listdir(real):
        if name not in ("cosyvoice", "chatterbox-fp32", "neutts"):
            os.symlink(os.path.join(real, name), os.path.join(root, name))
    tests = os.path.join(ROOT, "Tests")
    shutil.copytree(os.path.join(tests, "ChorusCosyVoiceTests/Resources/model"), os.path.join(root, "cosyvoice"))
    shutil.copytree(os.path.join(tests, "ChorusCosyVoiceTests/Resources/voice"), os.path.join(root, "cosyvoice/voices/v1"))
    chatterbox = os.path.join(root, "chatterbox-fp32")
    shutil.copytree(os.path.join(tests, "ChorusChatterboxTests/Resources/model"), chatterbox)
    shutil.copy(os.path.join(tests, "ChorusChatterboxTests/Resources/encoder/speech_encoder.onnx"), chatterbox)
    shutil.copytree(os.path.join(tests, "ChorusChatterboxTests/Resources/voice"), os.path.join(chatterbox, "voices/eve"))
    shutil.copytree(os.path.join(tests, "ChorusNeuTTSTests/Resources/model"), os.path.join(root, "neutts"))
    # A NeuTTS voice: 100 NeuCodec codes (2 s at 50 Hz) as a little-endian int64 .npy, and its transcript.
    voice = os.path.join(root, "neutts/voices", GENERATED_VOICES["neutts"])
    os.makedirs(voice)
    codes = [(7919 * index) % 65536 for index in range(100)]
    header = f"{{'descr': '<i8', 'fortran_order': False, 'shape': ({len(codes)},), }}"
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    with open(os.path.join(voice, "codes.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
                + struct.pack(f"<{len(codes)}q", *codes))
    with open(os.path.join(voice, "transcript.txt"), "w") as f:
        f.write("The keeper kept it burning.")
    return root


# The voice each engine is warmed with (--every-engine): the real models' and the generated ones'.
GENERATED_VOICES = {"cosyvoice": "v1", "chatterbox": "eve", "neutts": "bench"}
WARM_VOICES = {"kokoro": "jf_alpha", "piper": None, **GENERATED_VOICES}


def warm_every_engine(server):
    """Loads all five engines with one short request each, so an attack meets a server holding every model."""
    for engine, voice in WARM_VOICES.items():
        fields = {"model": engine, "input": "The keeper kept it burning.", "response_format": "pcm"}
        if voice:
            fields["voice"] = voice
        status = speech(server.port, fields)[0]
        if status != 200:
            raise RuntimeError(f"warming {engine} answered {status}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_fields(pid):
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                name, _, value = line.partition(":")
                fields[name] = value.strip()
    except OSError:
        pass
    return fields


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / TICK
    except (OSError, IndexError):
        return None


class Server:
    def __init__(self, binary, models, options, history):
        self.port = free_port()
        self.binary = binary
        arguments = [binary, "serve", "--port", str(self.port), "--api-key", KEY, "--history-folder", history]
        for name, value in options.items():
            if name in SUPPORTED:
                arguments += [name, str(value)]
        self.log = tempfile.TemporaryFile()
        environment = dict(os.environ, CHORUS_MODELS=models)
        environment.pop("CHORUS_API_KEY", None)

        def limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
            if ADDRESS_SPACE:
                resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
        self.process = subprocess.Popen(arguments, env=environment, stdout=self.log, stderr=self.log, preexec_fn=limit)
        deadline = time.time() + 60
        while time.time() < deadline:
            if health(self.port, 1)[0] == 200:
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"{binary} serve did not start: {self.output()[-400:]}")

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def rss_mb(self, field="VmRSS"):
        value = status_fields(self.process.pid).get(field, "0 kB")
        return int(value.split()[0]) / 1024

    def terminate(self, grace=45):
        """Seconds from SIGTERM to exit, or None when it had to be killed."""
        if self.process.poll() is not None:
            return 0.0
        start = time.time()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(grace)
            return time.time() - start
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


class Monitor(threading.Thread):
    """Samples the server's memory every 50 ms and /health every 250 ms while an attack runs."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server, self.running = server, True
        self.peak_mb, self.health = 0.0, []

    def run(self):
        next_health = 0
        while self.running:
            self.peak_mb = max(self.peak_mb, self.server.rss_mb())
            if time.time() >= next_health:
                threading.Thread(target=lambda: self.health.append(health(self.server.port, 5)[1]), daemon=True).start()
                next_health = time.time() + 0.25
            time.sleep(0.05)

    def stop(self):
        self.running = False
        self.join()


def health(port, timeout):
    """(status, seconds) of GET /health; (None, timeout) when it does not answer in time."""
    start = time.time()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        connection.request("GET", "/health")
        status = connection.getresponse().status
        connection.close()
        return status, time.time() - start
    except (OSError, http.client.HTTPException):
        return None, time.time() - start


# ---- clients -------------------------------------------------------------------------------------------------

def request(port, method, path, body=b"", headers=None, timeout=300, read=True):
    """(status, body bytes, seconds) over a raw socket, so any path spelling goes as written; status None on a
    closed or silent connection."""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    for name, value in (headers or {}).items():
        head += f"{name}: {value}\r\n"
    if body or method in ("POST", "PUT"):
        head += f"Content-Length: {len(body)}\r\n"
    start = time.time()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(head.encode() + b"\r\n" + body)
            if not read:
                return None, b"", time.time() - start
            return parse_reply(receive_all(s, start + timeout)) + (time.time() - start,)
    except OSError:
        return None, b"", time.time() - start


def receive_all(s, deadline=None):
    """What the peer sends until it closes, or until `deadline` (then the connection is left)."""
    data = bytearray()
    while deadline is None or time.time() < deadline:
        try:
            piece = s.recv(1 << 16)
        except OSError:
            break
        if not piece:
            break
        data += piece
    return bytes(data)


def parse_reply(data):
    head, _, body = data.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None, b""
    if b"transfer-encoding: chunked" in head.lower():
        body, complete = unchunk(body)
        if not complete:
            status = f"{status}, body cut"
    return status, body


def unchunk(body):
    out, rest = bytearray(), body
    while True:
        size_line, sep, rest = rest.partition(b"\r\n")
        if not sep:
            return bytes(out), False
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            return bytes(out), False
        if size == 0:
            return bytes(out), True
        if len(rest) < size + 2:
            return bytes(out + rest[:size]), False
        out += rest[:size]
        rest = rest[size + 2:]


def keyed(extra=None):
    headers = {"Authorization": f"Bearer {KEY}"}
    headers.update(extra or {})
    return headers


def speech(port, fields, timeout=300):
    body = json.dumps(fields).encode()
    return request(port, "POST", "/v1/audio/speech", body, keyed({"Content-Type": "application/json"}), timeout)


def form(fields, files=(), boundary="probeboundary"):
    body = bytearray()
    for name, value in fields:
        body += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n".encode() + value.encode() + b"\r\n"
    for name, filename, data in files:
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\n"
                 "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return bytes(body), {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def wav(samples, rate=16000):
    data = struct.pack(f"<{len(samples)}f", *samples)
    return (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 3, 1, rate, rate * 4, 4, 32)
            + b"data" + struct.pack("<I", len(data)) + data)


def voiced(seconds, rate=16000):
    return [0.2 * sum(math.sin(2 * math.pi * 140 * k * i / rate) / k for k in range(1, 6)) for i in range(int(seconds * rate))]


class WebSocket:
    """A bare WebSocket client: the upgrade, masked text frames, close."""

    def __init__(self, port, path, headers=None, timeout=30):
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        head = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n")
        for name, value in (headers or {}).items():
            head += f"{name}: {value}\r\n"
        self.socket.sendall(head.encode() + b"\r\n")
        reply = b""
        while b"\r\n\r\n" not in reply:
            piece = self.socket.recv(4096)
            if not piece:
                break
            reply += piece
        self.upgraded = reply.startswith(b"HTTP/1.1 101")

    def send_text(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x81, 0x80 | length)
        elif length < 1 << 16:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if length < 1 << 16 else xor_large(payload, mask)
        self.socket.sendall(header + mask + masked)

    def close(self):
        try:
            self.socket.close()
        except OSError:
            pass


def xor_large(payload, mask):
    repeated = (mask * (len(payload) // 4 + 1))[:len(payload)]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(repeated, "little")).to_bytes(len(payload), "little")


# ---- the probes: each returns (what the server did, whether it held) -----------------------------------------

def probe_key_spellings(server):
    """Item 1: every spelling of a keyed route, without the key."""
    cases = [("GET", "//v1/models"), ("GET", "/./v1/models"), ("GET", "/v1/models/"), ("GET", "/V1/models"),
             ("GET", "/%76%31/models"), ("GET", "//v1/audio/voices"), ("DELETE", "//v1/audio/voices/x"),
             ("GET", "//playground/history"), ("POST", "//playground/history"), ("POST", "//v1/audio/speech")]
    body = json.dumps({"model": "kokoro", "input": "Hello.", "voice": "jf_alpha"}).encode()
    answers = {}
    for method, path in cases:
        status, _, _ = request(server.port, method, path, body if method == "POST" else b"", {"Content-Type": "application/json"}, 120)
        answers[f"{method} {path}"] = status
    bypassed = [case for case, status in answers.items() if isinstance(status, int) and 200 <= status < 300]
    return {"answers": answers, "bypassed": bypassed}, not bypassed


def probe_work_before_key(server):
    """Item 2: nine key-less stream-input sockets that send nothing, then a keyed request; and a 20 MB body
    without the key (how long until it is refused)."""
    sockets = [WebSocket(server.port, "/v1/text-to-speech/jf_alpha/stream-input?model_id=kokoro") for _ in range(9)]
    time.sleep(1)
    status, _, seconds = speech(server.port, {"model": "kokoro", "input": "Hello there.", "voice": "jf_alpha"}, 120)
    for s in sockets:
        s.close()
    big = b"x" * (20 << 20)
    start = time.time()
    refused, answered = None, None
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
            s.sendall(f"POST /v1/audio/voices HTTP/1.1\r\nHost: x\r\nContent-Length: {len(big)}\r\n"
                      "Content-Type: multipart/form-data; boundary=b\r\n\r\n".encode())

            def send_body():  # as a client does, while the answer is awaited
                try:
                    s.sendall(big)
                except OSError:
                    pass
            threading.Thread(target=send_body, daemon=True).start()
            reply = b""
            while b"\r\n\r\n" not in reply:
                piece = s.recv(4096)
                if not piece:
                    break
                reply += piece
            answered = time.time() - start
            refused = parse_reply(reply)[0]
    except OSError:
        pass
    return ({"keyed request after 9 key-less sockets": status, "its seconds": round(seconds, 2),
             "20 MB upload without key": refused, "seconds to refuse it": round(answered, 2) if answered else None},
            status == 200 and refused == 401)


def bomb(model, voice, text, timeout=150):
    def probe(server):
        status, body, seconds = speech(server.port, {"model": model, "voice": voice, "input": text, "response_format": "pcm"}, timeout)
        if status is None or seconds >= timeout:
            message = f"no whole answer in {timeout} s (the client then left)"
        elif status == 200:
            message = f"{len(body):,} bytes of 16-bit PCM"
        else:
            message = body[:160].decode(errors="replace")
        # Refused, spoken whole, or still speaking when this client left: what counts then is the server's
        # memory, health and exit (run_probe); a body the server itself cut short is a failure.
        held = status in (200, 400, 413) or (str(status).startswith("200") and seconds >= timeout)
        return {"status": status, "seconds": round(seconds, 2), "answer": message}, held
    return probe


def probe_multipart_parts(server):
    """Item 4: a form of 50,000 tiny parts (2.4 MB)."""
    parts = 50_000
    body = b"".join(b"--b\r\nContent-Disposition: form-data; name=\"p%d\"\r\n\r\nx\r\n" % i for i in range(parts)) + b"--b--\r\n"
    status, answer, seconds = request(server.port, "POST", "/v1/audio/voices", body,
                                      keyed({"Content-Type": "multipart/form-data; boundary=b"}), 300)
    return {"parts": parts, "bytes": len(body), "status": status, "seconds": round(seconds, 2),
            "answer": answer[:120].decode(errors="replace")}, status in (400, 413) and seconds < 5


def probe_stream_input_leaves(server):
    """Item 4: one 1 MB text message on stream-input, then the client leaves: CPU the server spends after."""
    socket_ = WebSocket(server.port, "/v1/text-to-speech/jf_alpha/stream-input?model_id=kokoro", {"xi-api-key": KEY})
    socket_.send_text(json.dumps({"text": " "}))
    sentence = "The quick brown fox jumps over the lazy dog near the river bank. "
    text = (sentence * (1_000_000 // len(sentence)))[:1_000_000]
    socket_.send_text(json.dumps({"text": text}))
    time.sleep(0.5)
    socket_.close()
    left = time.time()
    time.sleep(1)
    cpu_after_a_second = cpu_seconds(server.process.pid)
    time.sleep(5)
    spent = cpu_seconds(server.process.pid) - cpu_after_a_second
    # The server holds one request per engine here: a 200 shows the socket's place was given back.
    status, _, _ = speech(server.port, {"model": "kokoro", "input": "Still there?", "voice": "jf_alpha"}, 120)
    return ({"upgraded": socket_.upgraded, "CPU s from 1 to 6 s after the client left": round(spent, 1),
             "keyed request after (queue of 1)": status, "at s": round(time.time() - left, 1)}, spent < 0.5 and status == 200)


def probe_partial_heads(server, hold):
    """Item 5: 400 connections that send half a request head and stall; how many the server closes."""
    sockets = []
    for _ in range(400):
        try:
            s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            s.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
            s.setblocking(False)
            sockets.append(s)
        except OSError:
            break
    time.sleep(hold)
    closed = 0
    for s in sockets:
        try:
            if s.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    return {"opened": len(sockets), "held s": hold, "closed by the server": closed}, closed == len(sockets)


def probe_body_never_arrives(server, wait):
    """Item 5: a whole head announcing 1,000 bytes of body that never come."""
    start = time.time()
    status = None
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=wait) as s:
            s.sendall(f"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
                      "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"model\"".encode())
            status = parse_reply(receive_all(s))[0]
    except OSError:
        pass
    return {"status": status, "seconds": round(time.time() - start, 2)}, status == 408


def probe_idle_connections(server, hold):
    """Item 5: 1,100 idle connections against a server limited to 1,024 descriptors."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    sockets = []
    for _ in range(1100):
        try:
            s = socket.socket()
            s.settimeout(2)
            s.connect(("127.0.0.1", server.port))
            sockets.append(s)
        except OSError:
            s.close()
            break
    time.sleep(1)
    during = health(server.port, 5)
    time.sleep(hold)
    for s in sockets:
        s.close()
    return {"opened": len(sockets), "/health while they are open": during[0], "its s": round(during[1], 2)}, during[0] == 200


def probe_clients_never_read(server, hold):
    """Item 5: eight clients ask for long Piper speech and never read it."""
    text = open(os.path.join(ROOT, "bench/tts_paragraph.txt")).read()[:4000]
    body = json.dumps({"model": "piper", "input": text, "response_format": "pcm"}).encode()
    sockets = []
    for _ in range(8):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", server.port))
        s.sendall((f"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
        sockets.append(s)
    start_cpu = cpu_seconds(server.process.pid)
    time.sleep(hold)
    held_cpu = cpu_seconds(server.process.pid) - start_cpu
    memory = server.rss_mb()
    for s in sockets:
        s.close()
    time.sleep(1)
    after = cpu_seconds(server.process.pid)
    time.sleep(5)
    spent = cpu_seconds(server.process.pid) - after
    return ({"held s": hold, "server CPU s while held": round(held_cpu, 1), "MB at the end of the hold": round(memory),
             "CPU s from 1 to 6 s after they closed": round(spent, 1)}, spent < 0.5)


def probe_client_mistakes(server):
    """Item 6: client mistakes answered 4xx."""
    port, answers = server.port, {}
    clip = wav(voiced(3))
    for name, data, id_ in (("NaN clip", wav([float("nan")] * 48000), "nan"), ("silent clip", wav([0.0] * 48000), "silent"),
                            ("id _x", clip, "_x"), ("id with ZWJ", clip, "a\u200db")):
        body, headers = form([("engine", "neutts"), ("id", id_), ("transcript", "Hello there.")], [("audio", "clip.wav", data)])
        answers[name] = request(port, "POST", "/v1/audio/voices", body, keyed(headers), 120)[0]
    body, headers = form([("engine", "neutts"), ("id", "racer"), ("transcript", "Hello there.")], [("audio", "clip.wav", clip)])
    results = []
    threads = [threading.Thread(target=lambda: results.append(request(port, "POST", "/v1/audio/voices", body, keyed(headers), 120)[0]))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    answers["same id 4 times at once"] = sorted(results, key=str)
    body, headers = form([("engine", "neutts"), ("id", "café"), ("transcript", "Hello there.")], [("audio", "clip.wav", clip)])
    answers["upload café"] = request(port, "POST", "/v1/audio/voices", body, keyed(headers), 120)[0]
    answers["DELETE caf%C3%A9"] = request(port, "DELETE", "/v1/audio/voices/caf%C3%A9?engine=neutts", headers=keyed(), timeout=60)[0]
    short = None
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\nContent-Length: 100\r\n\r\n{{}}".encode())
        s.shutdown(socket.SHUT_WR)
        short = parse_reply(receive_all(s))[0]
    answers["body shorter than Content-Length"] = short
    answers["GET /v1/audio/speech"] = request(port, "GET", "/v1/audio/speech", headers=keyed(), timeout=30)[0]
    status, body, _ = request(port, "GET", "/v1/models", headers={"xi-api-key": "wrong"}, timeout=30)
    answers["wrong xi-api-key"] = f"{status}, {len(body)} bytes"
    expected = {"NaN clip": 400, "silent clip": 400, "id _x": 400, "id with ZWJ": 400, "upload café": 201, "DELETE caf%C3%A9": 204,
                "body shorter than Content-Length": 400, "GET /v1/audio/speech": 405}
    held = all(answers[name] == status for name, status in expected.items()) and answers["same id 4 times at once"] == [201, 409, 409, 409]
    return answers, held


# ---- issue 41: what a request makes, not what it says -----------------------------------------------------

def crc8(data):
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8005) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def constant_flac(rate, declared, frames, block=65535, value=1000):
    """A mono 16-bit FLAC whose STREAMINFO states `rate` and `declared` samples, then `frames` frames of `block`
    samples, each one constant subframe (about 12 bytes a frame): ten minutes at 768 kHz in 100 KB."""
    info = struct.pack(">HH", block, block) + b"\0" * 6
    info += struct.pack(">Q", rate << 44 | 15 << 36 | declared) + b"\0" * 16
    data = bytearray(b"fLaC" + bytes([0x80, 0, 0, 34]) + info)
    for number in range(frames):
        if number < 0x80:
            coded = bytes([number])
        else:
            count = 2
            while number >= 1 << (5 * count + 1):
                count += 1
            coded = bytes([(0xFF << (8 - count)) & 0xFF | number >> (6 * (count - 1))])
            coded += bytes(0x80 | (number >> (6 * k)) & 0x3F for k in range(count - 2, -1, -1))
        frame = bytes([0xFF, 0xF8, 0x70, 0x08]) + coded + struct.pack(">H", block - 1)
        frame += bytes([crc8(frame)]) + b"\0" + struct.pack(">h", value)
        data += frame + struct.pack(">H", crc16(frame))
    return bytes(data)


def probe_audio_bombs(server):
    """Issue 41, item 1: FLAC of constant frames that states 768 kHz and 600 s (100 KB), and one that states 1 s
    at 48 kHz but holds 20 minutes, to every cloning engine and the transcription route, two at once."""
    port, answers = server.port, {}
    hostile = {"768 kHz, 600 s stated": constant_flac(768000, 768000 * 600, 7032),
               "48 kHz, 1 s stated, 1,200 s held": constant_flac(48000, 48000, 880)}
    jobs = []
    for name, data in hostile.items():
        for engine in ("cosyvoice", "neutts", "chatterbox"):
            body, headers = form([("engine", engine), ("id", "bomb"), ("transcript", "Hello there.")], [("audio", "clip.flac", data)])
            jobs.append((f"{name}: voice for {engine}", "/v1/audio/voices", body, headers))
        body, headers = form([], [("file", "talk.flac", data)])
        jobs.append((f"{name}: transcription", "/v1/audio/transcriptions", body, headers))
    held = True
    for label, path, body, headers in jobs:
        results = []
        threads = [threading.Thread(target=lambda: results.append(request(port, "POST", path, body, keyed(headers), 120)))
                   for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(str(r[0]) for r in results)
        answers[label] = f"{', '.join(statuses)} in at most {max(r[2] for r in results):.2f} s: " \
                         + results[0][1][:140].decode(errors="replace")
        held = held and all(r[0] in (400, 429) for r in results)
    return answers, held


def probe_stored_transcript(server):
    """Issue 41, item 3: CosyVoice and NeuTTS voices with a 10 KB transcript."""
    port, answers = server.port, {}
    for engine in ("cosyvoice", "neutts"):
        body, headers = form([("engine", engine), ("id", "wordy"), ("transcript", "Hello there. " * 800)],
                             [("audio", "clip.wav", wav(voiced(3)))])
        status, reply, seconds = request(port, "POST", "/v1/audio/voices", body, keyed(headers), 120)
        answers[engine] = f"{status} in {seconds:.2f} s: " + reply[:140].decode(errors="replace")
    return answers, all(answer.startswith("400") for answer in answers.values())


def probe_constant_clip(server):
    """Issue 41, item 5: a constant (DC) clip to each cloning engine: never a 500, never a server path."""
    port, answers = server.port, {}
    for engine in ("cosyvoice", "neutts", "chatterbox"):
        seconds = 6 if engine == "chatterbox" else 3
        body, headers = form([("engine", engine), ("id", "dc"), ("transcript", "Hello there.")],
                             [("audio", "dc.wav", wav([0.5] * (16000 * seconds)))])
        status, reply, _ = request(port, "POST", "/v1/audio/voices", body, keyed(headers), 120)
        answers[engine] = f"{status}: " + reply[:160].decode(errors="replace")
    return answers, all(not a.startswith("5") and "/voices/" not in a for a in answers.values())


# ---- issue 41, items 4 and 7: connections and framing ------------------------------------------------------

def raise_own_descriptor_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))


class IdleFlood(threading.Thread):
    """`count` connections that send nothing, each reopened as soon as the server closes it (seen with poll)."""

    def __init__(self, port, count):
        super().__init__(daemon=True)
        self.port, self.count, self.running = port, count, True
        self.opened = self.closed_by_server = self.failed = 0
        self.sockets = {}

    def open_one(self):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", self.port))
        except OSError:
            s.close()
            self.failed += 1
            return
        s.setblocking(False)
        self.sockets[s.fileno()] = s
        self.opened += 1

    def run(self):
        poller = select.poll()
        while self.running:
            while len(self.sockets) < self.count and self.running:
                before = set(self.sockets)
                self.open_one()
                for fd in set(self.sockets) - before:
                    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
                if self.failed and len(self.sockets) < self.count:
                    time.sleep(0.01)
            for fd, _ in poller.poll(50):
                s = self.sockets.pop(fd, None)
                if s is None:
                    continue
                poller.unregister(fd)
                try:
                    data = s.recv(1)
                except OSError:
                    data = b""
                if not data:
                    self.closed_by_server += 1
                s.close()

    def stop(self):
        self.running = False
        self.join()
        for s in self.sockets.values():
            s.close()


def health_tries(port, seconds, every=0.5):
    """GET /health every `every` s for `seconds`: (status, seconds) each, 5 s at most a try."""
    tries, end = [], time.time() + seconds
    while time.time() < end:
        tries.append(health(port, 5))
        time.sleep(every)
    return tries


def summarise_health(tries):
    answered = sorted(s for status, s in tries if status == 200)
    return {"tries": len(tries), "answered 200": len(answered),
            "within 1 s": sum(1 for s in answered if s < 1),
            "median s": round(answered[len(answered) // 2], 3) if answered else None,
            "slowest s": round(max(s for _, s in tries), 3) if tries else None}


def probe_idle_flood(server, connections=600, seconds=60):
    """Issue 41, item 4: `connections` idle connections reopened as the server closes them, for `seconds`;
    /health (and /metrics) tried every 0.5 s meanwhile."""
    raise_own_descriptor_limit()
    flood = IdleFlood(server.port, connections)
    flood.start()
    time.sleep(3)
    metrics_tries = []

    def scrape():  # /metrics once a second, as Prometheus would
        end = time.time() + seconds
        while time.time() < end:
            status, _, took = request(server.port, "GET", "/metrics", timeout=5)
            metrics_tries.append((status, took))
            time.sleep(1)
    metrics_thread = threading.Thread(target=scrape, daemon=True)
    metrics_thread.start()
    tries = health_tries(server.port, seconds)
    metrics_thread.join()
    held_open = len(flood.sockets)
    flood.stop()
    summary = summarise_health(tries)
    metrics = summarise_health(metrics_tries)
    observed = {"flood connections": connections, "opened": flood.opened, "closed by the server": flood.closed_by_server,
                "open at the end": held_open, "/health": summary, "/metrics": metrics}
    return observed, summary["within 1 s"] == summary["tries"] and metrics["answered 200"] == metrics["tries"]


def probe_idle_sigterm(server, connections=300):
    """Issue 41, item 4: SIGTERM with `connections` idle connections open (nothing sent; a tenth with half a
    head): seconds from the signal to the process's exit."""
    raise_own_descriptor_limit()
    sockets = []
    for index in range(connections):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        if index % 10 == 0:
            s.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
        sockets.append(s)
    time.sleep(1)
    seconds = server.terminate()
    for s in sockets:
        s.close()
    return ({"idle connections": connections, "SIGTERM to exit s": round(seconds, 2) if seconds is not None else "killed after 45 s"},
            seconds is not None and seconds <= 2)


def raw_exchange(port, data, timeout=20):
    """What the server sends for `data` until it closes (None when it is still open after `timeout`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        received, deadline = bytearray(), time.time() + timeout
        while time.time() < deadline:
            try:
                piece = s.recv(1 << 16)
            except socket.timeout:
                return None
            except OSError:
                break
            if not piece:
                return bytes(received)
            received += piece
        return None


def statuses(reply):
    if reply is None:
        return "left open"
    # Every status line, also one right after the body before it (no line break between them).
    return [int(code) for code in re.findall(rb"HTTP/1\.[01] ([1-5][0-9][0-9]) ", reply)]


def ws_frame(opcode, payload, fin=True, masked=True, length=None):
    count = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | opcode])
    bit = 0x80 if masked else 0
    if count < 126:
        head += bytes([bit | count])
    elif count < 1 << 16:
        head += bytes([bit | 126]) + struct.pack("!H", count)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", count)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + xor_large(payload, mask)


def ws_close_code(reply):
    """The close code and the text of the server's frames after its 101."""
    if reply is None:
        return "left open", ""
    _, _, rest = reply.partition(b"\r\n\r\n")
    code, text = None, ""
    while len(rest) >= 2:
        opcode, length, index = rest[0] & 0x0F, rest[1] & 0x7F, 2
        if length == 126:
            length, index = struct.unpack("!H", rest[2:4])[0], 4
        elif length == 127:
            length, index = struct.unpack("!Q", rest[2:10])[0], 10
        payload, rest = rest[index:index + length], rest[index + length:]
        if opcode == 1:
            text += payload.decode(errors="replace")
        if opcode == 8 and len(payload) >= 2:
            code = struct.unpack("!H", payload[:2])[0]
    return code, text


def probe_framing(server):
    """Issue 41, item 7: request framing (RFC 9112) and the stream-input socket (RFC 6455), over raw sockets."""
    port, answers, expected = server.port, {}, {}
    smuggled = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    for coding, status in (("identity, chunked", 501), ("gzip, chunked", 501), ("gzip", 400), ("chunked, chunked", 400)):
        head = (f"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {KEY}\r\n"
                f"Content-Type: application/json\r\nTransfer-Encoding: {coding}\r\n\r\n").encode()
        answers[f"Transfer-Encoding: {coding}, then a second request"] = statuses(raw_exchange(port, head + b"2\r\n{}\r\n0\r\n\r\n" + smuggled))
        expected[f"Transfer-Encoding: {coding}, then a second request"] = [status]
    both = b"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
    answers["Content-Length and Transfer-Encoding"] = statuses(raw_exchange(port, both + smuggled))
    expected["Content-Length and Transfer-Encoding"] = [400]
    for name, data in (("HTTP/1.1 without Host", b"GET /health HTTP/1.1\r\n\r\n"),
                       ("two Host headers", b"GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")):
        answers[name] = statuses(raw_exchange(port, data))
        expected[name] = [400]
    path = "/v1/text-to-speech/jf_alpha/stream-input?model_id=kokoro"
    upgrade = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nxi-api-key: {KEY}\r\n"
               f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
    half = b"a" * 600_000
    for name, frames, code, error in (
            ("unmasked frame", ws_frame(1, b'{"text":" "}', masked=False), 1002, "unmasked_frame"),
            ("invalid UTF-8", ws_frame(1, b'{"text":"\xc3\x28"}'), 1007, "invalid_utf8"),
            ("1.2 MB in two fragments", ws_frame(1, half, fin=False) + ws_frame(0, half), 1009, "message_too_big"),
            ("a frame declaring 2 MiB", ws_frame(1, b"aaaa", length=2 << 20), 1009, "message_too_big")):
        start = time.time()
        got, text = ws_close_code(raw_exchange(port, upgrade + frames))
        try:  # the first JSON message the server sent
            error = json.JSONDecoder().raw_decode(text)[0].get("error")
        except ValueError:
            error = text[:80]
        answers[f"stream-input: {name}"] = {"close": got, "error": error, "s": round(time.time() - start, 2)}
        expected[f"stream-input: {name}"] = (code, error)
    held = all((answers[k]["close"], answers[k]["error"]) == v if isinstance(v, tuple) else answers[k] == v for k, v in expected.items())
    return answers, held


PROBES = [
    ("key", "1: every spelling of a keyed path without the key", probe_key_spellings, {}),
    ("before-key", "2: key-less WebSockets hold queue places; a big key-less upload", probe_work_before_key, {}),
    ("marks", "3: CosyVoice, \"a\" + 1,000 combining marks", bomb("cosyvoice", "v1", "a" + "\u0301" * 1000), {}),
    ("emoji", "3: Piper, 4,096 emoji", bomb("piper", None, "\U0001F600" * 4096), {}),
    ("rtl", "3: Kokoro, 580 bytes of right-to-left text", bomb("kokoro", "jf_alpha", ("שלום עולם, מה שלומך היום? " * 20)[:310]), {}),
    ("chatterbox-long", "9: Chatterbox, 4,096 characters of distinct sentences (generated models)",
     bomb("chatterbox", "eve", "".join(f"Sentence {n} tells of box {n * 7}, which holds {n % 9 + 2} red stones. "
                                       for n in range(1, 80))[:4096]), {}),
    ("parts", "4: multipart form of 50,000 parts", probe_multipart_parts, {}),
    ("stream-leave", "4: 1 MB stream-input message, then the client leaves", probe_stream_input_leaves, {"--queue": 1}),
    ("heads", "5: 400 partial request heads", lambda s: probe_partial_heads(s, 8), {"--idle-timeout": 5}),
    ("body", "5: a body that never arrives", lambda s: probe_body_never_arrives(s, 15), {"--body-timeout": 5}),
    ("idle", "5: 1,100 idle connections, 1,024 descriptors", lambda s: probe_idle_connections(s, 3), {"--idle-timeout": 5}),
    ("no-read", "5: eight clients that never read (Piper, 4,000 characters)", lambda s: probe_clients_never_read(s, 20),
     {"--write-timeout": 10}),
    ("mistakes", "6: client mistakes", probe_client_mistakes, {}),
    ("audio-bombs", "41/1: FLAC stating 768 kHz x 600 s, and 1 s holding 1,200 s, two at once on every upload route",
     probe_audio_bombs, {}),
] + [(f"numbers-{index}", f"41/2: CosyVoice, {name}", bomb("cosyvoice", "v1", text), {}) for index, (name, text) in enumerate([
    ('"50% " x 1000', "50% " * 1000), ('"1" x 4000', "1" * 4000), ('"2024-01-02 " x 360', "2024-01-02 " * 360),
    ("4,000 full-width digits", "\uFF11" * 4000), ('"$1" x 1000', "$1" * 1000), ('"1/2 " x 1000', "1/2 " * 1000)])] + [
    ("transcript", "41/3: CosyVoice and NeuTTS voices with a 10 KB transcript", probe_stored_transcript, {}),
    ("dc-clip", "41/5: a constant clip to each cloning engine", probe_constant_clip, {}),
    ("idle-flood", "41/4: 600 idle connections reopened as they close, 60 s", probe_idle_flood, {}),
    ("idle-flood-1100", "41/4: 1,100 idle connections reopened as they close, 60 s, 1,024 descriptors",
     lambda s: probe_idle_flood(s, connections=1100), {}),
    ("idle-sigterm", "41/4: SIGTERM with 300 idle connections open", probe_idle_sigterm, {}),
    ("framing", "41/7: Transfer-Encoding, Host, and the stream-input socket's frames", probe_framing, {}),
]
# Probes that end the server themselves (their figure is the time to exit).
ENDS_SERVER = {"idle-sigterm"}
SUPPORTED = set()
ADDRESS_SPACE = 0  # bytes of address space the server may map (--address-space-gb); 0: unlimited


def run_probe(binary, models, history, description, attack, options, every_engine=False, ends_server=False):
    server = Server(binary, models, options, history)
    if every_engine:
        warm_every_engine(server)
    baseline = server.rss_mb()
    cpu_before = cpu_seconds(server.process.pid)
    monitor = Monitor(server)
    monitor.start()
    start = time.time()
    try:
        observed, held = attack(server)
    except Exception as error:  # a probe that cannot finish is reported, not raised
        observed, held = {"probe failed": repr(error)}, False
    attack_seconds = time.time() - start
    time.sleep(1)
    monitor.stop()
    after = health(server.port, 5)
    cpu = (cpu_seconds(server.process.pid) or 0) - (cpu_before or 0)
    high_water = server.rss_mb("VmHWM")
    alive = server.process.poll() is None
    exit_seconds = server.terminate()
    slowest = max(monitor.health) if monitor.health else None
    # Issue 31's acceptance: under 2 GB, /health within 1 s once the attack stops, SIGTERM ends it within 35 s.
    held = held and monitor.peak_mb < 2048 and (ends_server or (alive and after[0] == 200 and after[1] < 1
                                                                and exit_seconds is not None and exit_seconds <= 35))
    return {"probe": description, "held": held, "observed": observed, "alive after": alive,
            "baseline MB": round(baseline), "peak MB": round(monitor.peak_mb), "VmHWM MB": round(high_water),
            "CPU s": round(cpu, 1),
            "attack s": round(attack_seconds, 1), "slowest /health s": round(slowest, 2) if slowest is not None else None,
            "/health 1 s after": f"{after[0]} in {after[1]:.2f} s" if after[0] else f"no answer in {after[1]:.1f} s",
            "SIGTERM to exit s": round(exit_seconds, 2) if exit_seconds is not None else "killed after 45 s"}


# ---- downloads against a local fake hub, in a network namespace ----------------------------------------------

HUB = r'''
import http.server, json, os, socket, socketserver, sys, threading
mode, port, other, unix_path, record = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
seen = []
def note(what):
    seen.append(what)
    with open(record, "w") as f: json.dump(seen, f)
class Hub(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        note({"port": self.server.server_address[1], "path": self.path, "authorization": self.headers.get("Authorization")})
        if self.server.server_address[1] == other:
            self.send_response(404); self.send_header("Content-Length", "0"); return self.end_headers()
        target = {"token-port": f"http://127.0.0.1:{other}/file", "unix": "http+unix://" + unix_path.replace("/", "%2F") + "/file",
                  "link-local": "http://169.254.169.254/latest/meta-data/", "file": "file:///etc/passwd",
                  "gopher": "gopher://127.0.0.1:70/"}.get(mode)
        self.send_response(302); self.send_header("Location", target); self.send_header("Content-Length", "0"); self.end_headers()
class Threaded(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
for p in (port, other): threading.Thread(target=Threaded(("127.0.0.1", p), Hub).serve_forever, daemon=True).start()
listener = socket.socket(socket.AF_UNIX); listener.bind(unix_path); listener.listen()
def accept():
    while True:
        c, _ = listener.accept(); note({"unix socket": c.recv(200).decode(errors="replace")}); c.close()
threading.Thread(target=accept, daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
'''


def download_probe(binary, mode, base):
    """`chorus models pull piper` in a namespace with only a loopback, against the fake hub in `mode`."""
    folder = tempfile.mkdtemp(dir=base)
    record, unix_path = os.path.join(folder, "seen.json"), os.path.join(folder, "hub.sock")
    hub_script = os.path.join(folder, "hub.py")
    with open(hub_script, "w") as f:
        f.write(HUB)
    script = (f"ip link set lo up; python3 {hub_script} {mode} 18080 18081 {unix_path} {record} > {folder}/hub.out 2>&1 & "
              f"for i in $(seq 50); do grep -q ready {folder}/hub.out 2>/dev/null && break; sleep 0.1; done; "
              f"start=$(date +%s.%N); timeout 120 {binary} models pull piper > {folder}/pull.out 2>&1; echo $? > {folder}/status; "
              f"echo $(date +%s.%N) $start > {folder}/times; kill %1 2>/dev/null")
    environment = dict(os.environ, HF_ENDPOINT="http://127.0.0.1:18080", HF_TOKEN="probe-secret-token",
                       CHORUS_PYPI_ENDPOINT="http://127.0.0.1:18080", CHORUS_MODELS=os.path.join(folder, "models"),
                       HF_HOME=os.path.join(folder, "hf"), HF_HUB_CACHE=os.path.join(folder, "hf/hub"),
                       XDG_CACHE_HOME=os.path.join(folder, "cache"))
    peak = [0.0]
    process = subprocess.Popen(["unshare", "-n", "sh", "-c", script], env=environment)

    def watch():  # the pull's peak memory: the newest `chorus` child of the namespace's shell
        while process.poll() is None:
            for pid in os.listdir("/proc"):
                if pid.isdigit():
                    try:
                        with open(f"/proc/{pid}/cmdline", "rb") as f:
                            if f.read().startswith(binary.encode()):
                                peak[0] = max(peak[0], int(status_fields(pid).get("VmRSS", "0 kB").split()[0]) / 1024)
                    except OSError:
                        pass
            time.sleep(0.2)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    process.wait()
    watcher.join()
    end, start = (float(x) for x in open(os.path.join(folder, "times")).read().split())
    seen = json.load(open(record)) if os.path.exists(record) else []
    output = open(os.path.join(folder, "pull.out"), errors="replace").read().strip().splitlines()
    leaked = [s for s in seen if s.get("port") == 18081 and s.get("authorization")]
    unix = [s for s in seen if "unix socket" in s]
    written = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(folder, "models")) for f in fs)
    held = {"token-port": not leaked, "unix": not unix, "link-local": end - start < 5, "file": end - start < 5,
            "gopher": end - start < 5}[mode]
    return {"probe": f"7: pull whose hub redirects: {mode}", "held": held,
            "observed": {"exit status": open(os.path.join(folder, "status")).read().strip(), "seconds": round(end - start, 2),
                         "token sent to the other port": bool(leaked), "unix socket reached": bool(unix),
                         "bytes written": written, "last line": (output[-1] if output else "")[:200]},
            "peak MB": round(peak[0])}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--label", default="")
    parser.add_argument("--only", default="", help="comma-separated probe names: " + ", ".join(p[0] for p in PROBES) + ", downloads")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--every-engine", action="store_true",
                        help="before each attack, load all five engines with a short request each")
    parser.add_argument("--address-space-gb", type=float, default=0,
                        help="run the server under this address-space limit (RLIMIT_AS), as issue 41's acceptance asks")
    args = parser.parse_args()
    global ADDRESS_SPACE
    ADDRESS_SPACE = int(args.address_space_gb * (1 << 30))
    binary = os.path.abspath(args.binary)
    help_text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout
    SUPPORTED.update(option for option in ("--idle-timeout", "--body-timeout", "--write-timeout", "--queue") if option in help_text)
    only = set(filter(None, args.only.split(",")))
    base = tempfile.mkdtemp(prefix="chorus-probe-")
    results = []
    try:
        models = models_root(base)
        for name, description, attack, options in PROBES:
            if only and name not in only:
                continue
            history = tempfile.mkdtemp(dir=base)
            result = run_probe(binary, models, history, description, attack, options, args.every_engine, name in ENDS_SERVER)
            result["name"] = name
            results.append(result)
            print(json.dumps(result, ensure_ascii=False), flush=True)
        if not only or "downloads" in only:
            for mode in ("token-port", "unix", "link-local", "file", "gopher"):
                result = download_probe(binary, mode, base)
                result["name"] = f"download-{mode}"
                results.append(result)
                print(json.dumps(result, ensure_ascii=False), flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"binary": binary, "label": args.label, "results": results}, f, ensure_ascii=False, indent=1)
    held = sum(1 for r in results if r["held"])
    print(f"{args.label or binary}: {held} of {len(results)} probes held; peak "
          f"{max((r.get('peak MB', 0) for r in results), default=0)} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
