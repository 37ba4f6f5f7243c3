#!/usr/bin/env python3
"""First byte and largest gap of streamed speech, at the client, as a listener playing at real time hears it.

    swift build -c release --product chorus
    python3 bench/stream_first_byte.py [--rounds 5] [--engines kokoro piper] [--peer fastkokoro]
    python3 bench/stream_first_byte.py --engines cosyvoice chatterbox neutts   # the generated models

Starts `chorus serve` (release build) on a free loopback port, then for each case sends
POST /v1/audio/speech with response_format pcm (16-bit, 24 kHz) and reads the body as it streams,
noting when each read arrives. Reported per case, over the rounds: first byte (seconds from the
request to the first audio byte), whole (to the last byte), the audio's length, and the largest gap
a listener would hear: playback starts with the first byte and plays what has arrived at real time;
when it runs out before the next bytes arrive, the wait is a gap (the largest, and their sum).
Cases: Kokoro (jf_alpha, the voice the issue measured) on the 3-sentence text below and on the first
8 sentences of bench/peer_text.txt; Piper (its English voice) on both. CosyVoice, Chatterbox and NeuTTS
run on the small generated models under Tests/ (a temporary models root as bench/probe_server.py makes
it, with one voice each; NeuTTS's voice is 2 s of codes written here), so their figures are those of the
streaming path and tiny graphs, not of the real models.

With --peer fastkokoro: fastkokoro (PyPI, an OpenAI-compatible Kokoro server on ONNX Runtime) runs on
the same model file and voice pack (FASTKOKORO_MODEL_PATH, FASTKOKORO_VOICES_PATH, HF_HUB_OFFLINE=1; its
requests say "stream": true, which it needs to stream, and "lang": "en-us", as Chorus reads the text), started the same way, and each of its requests is made right after
Chorus's (interleaved, so a busy machine slows both alike). fastkokoro is installed into --venv.
Standard library only on our side; nothing leaves the loopback.
"""
import argparse
import functools
import http.client
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = Path(os.environ.get("CHORUS_MODELS", Path.home() / ".cache/chorus/models"))
RATE = 24_000
THREE = ("The lamp turned slowly over the water. Sailors could see it from far away. "
         "The keeper kept it burning every night.")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server on port {port} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listened on port {port} within {seconds} s")


def speak(port: int, body: dict, path: str = "/v1/audio/speech"):
    """One streamed request: arrival times (seconds from the request) and byte counts of each read."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    start = time.monotonic()
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    if response.status != 200:
        raise SystemExit(f"{body.get('model')}: {response.status} {response.read()[:300]!r}")
    reads = []
    while True:
        data = response.read1(65536)
        if not data:
            break
        reads.append((time.monotonic() - start, len(data)))
    connection.close()
    return reads


def playback(reads, rate: int = RATE, width: int = 2):
    """First byte, whole, audio seconds, largest gap and all gaps of a listener at real time."""
    first = reads[0][0]
    played_until = first  # the moment the audio that has arrived runs out
    largest, total, audio = 0.0, 0.0, 0.0
    for arrival, size in reads:
        if arrival > played_until:
            gap = arrival - played_until
            largest = max(largest, gap)
            total += gap
            played_until = arrival
        seconds = size / (rate * width)
        played_until += seconds
        audio += seconds
    return first, reads[-1][0], audio, largest, total


def sdk_first_byte(venv: Path, port: int, text: str, voice: str):
    """The OpenAI Python SDK's streaming response (as a user's script reads it), run with the venv's
    python: (first byte, whole) in seconds; None without the SDK."""
    script = """
import sys, time, openai
client = openai.OpenAI(base_url=f"http://127.0.0.1:{sys.argv[1]}/v1", api_key="unused")
start = time.monotonic(); first = None
with client.audio.speech.with_streaming_response.create(model="tts-1", voice=sys.argv[3], input=sys.argv[2],
                                                        response_format="pcm") as response:
    for chunk in response.iter_bytes():
        if first is None and chunk: first = time.monotonic() - start
print(first, time.monotonic() - start)
"""
    python = venv / "bin/python"
    done = subprocess.run([str(python), "-c", script, str(port), text, voice], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    first, whole = map(float, done.stdout.split())
    return first, whole


def median(values):
    return statistics.median(values) if values else float("nan")


def report(name: str, runs) -> dict:
    firsts, wholes, audios, gaps, totals = zip(*runs)
    line = {"case": name, "rounds": len(runs), "first_byte_s": round(median(firsts), 3),
            "first_byte_min_s": round(min(firsts), 3), "whole_s": round(median(wholes), 3),
            "audio_s": round(median(audios), 2), "largest_gap_s": round(max(gaps), 3),
            "largest_gap_median_s": round(median(gaps), 3), "gaps_total_s": round(median(totals), 3)}
    print(json.dumps(line), flush=True)
    return line


GENERATED = {"cosyvoice": "v1", "chatterbox": "eve", "neutts": "bench"}
# Engines that keep the audio of the pieces they have spoken (Chatterbox: keyed by piece text and voice).
CHUNK_CACHE = {"chatterbox"}


@functools.cache
def generated_models() -> Path:
    """A models root with the generated CosyVoice, Chatterbox and NeuTTS models and a voice each
    (bench/probe_server.py's)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from probe_server import models_root
    return Path(models_root(tempfile.mkdtemp(prefix="stream_first_byte-")))


def start_chorus(engines, binary: Path):
    port = free_port()
    if not binary.exists():
        raise SystemExit(f"no {binary}: swift build -c release --product chorus")
    command = [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port), "--no-history"]
    for engine in engines:
        command += ["--engine", engine]
    environment = dict(os.environ)
    if any(engine in GENERATED for engine in engines):
        environment["CHORUS_MODELS"] = str(generated_models())
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    wait_for(port, process)
    return port, process


PEER_VOICE = "af_jf_alpha"


def renamed_voice(venv: Path) -> Path:
    """jf_alpha's style vectors under an English name: fastkokoro refuses a voice whose name says Japanese
    for English text ("Voice 'jf_alpha' belongs to language 'ja'"), and reads English with its own G2P
    only for an English-named voice. The vectors are the very ones Chorus speaks with."""
    out = Path("/tmp/stream_first_byte_voices.npz")
    script = ("import numpy, sys; v = numpy.load(sys.argv[1]); numpy.savez(sys.argv[2], **{sys.argv[3]: v['jf_alpha']})")
    subprocess.run([str(venv / "bin/python"), "-c", script, str(MODELS / "kokoro/voices_ja.npz"), str(out), PEER_VOICE],
                   check=True)
    return out


def start_fastkokoro(venv: Path):
    """fastkokoro on Chorus's Kokoro model file and voice pack; None when it will not run offline."""
    binary = venv / "bin/fastkokoro"
    if not binary.exists():
        print(json.dumps({"peer": "fastkokoro", "skipped": f"not installed in {venv}"}), flush=True)
        return None
    port = free_port()
    # fastkokoro takes its settings from the environment; the model and voices are Chorus's files, and
    # nothing may come from the Hugging Face hub.
    environment = dict(os.environ, HF_HUB_OFFLINE="1", FASTKOKORO_HOST="127.0.0.1", FASTKOKORO_PORT=str(port),
                       FASTKOKORO_MODEL_PATH=str(MODELS / "kokoro/kokoro-v1.0.int8.onnx"),
                       FASTKOKORO_VOICES_PATH=str(renamed_voice(venv)),
                       FASTKOKORO_DEFAULT_VOICE=PEER_VOICE, FASTKOKORO_DEFAULT_LANG="en-us")
    command = [str(binary)]
    log = Path("/tmp/stream_first_byte_fastkokoro.log")
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=sink, env=environment)
    try:
        wait_for(port, process, seconds=180)
    except SystemExit as problem:
        print(json.dumps({"peer": "fastkokoro", "skipped": str(problem), "log": log.read_text()[-600:]}), flush=True)
        return None
    return port, process


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--engines", nargs="+", default=["kokoro", "piper"])
    parser.add_argument("--peer", choices=["fastkokoro"], default=None)
    parser.add_argument("--venv", type=Path, default=Path("/work/team/venv-streaming"))
    parser.add_argument("--chorus", type=Path, default=ROOT / ".build/release/chorus",
                        help="the chorus binary (a debug build's figures say so: its Swift code is slower)")
    args = parser.parse_args()

    lines = (ROOT / "bench/peer_text.txt").read_text().split("\n")
    texts = {"3 sentences": THREE, "8 sentences": " ".join(lines[:8])}
    voices = {"kokoro": "jf_alpha", "piper": None, **GENERATED}
    port, server = start_chorus(args.engines, args.chorus)
    peer = start_fastkokoro(args.venv) if args.peer else None
    try:
        print(json.dumps({"chorus": str(args.chorus), "texts": {name: len(text) for name, text in texts.items()},
                          "load_average": os.getloadavg()}), flush=True)
        for engine in args.engines:
            for name, text in texts.items():
                body = {"model": engine, "input": text, "response_format": "pcm"}
                if voices.get(engine):
                    body["voice"] = voices[engine]
                # One request first, unmeasured: the engine loads on first use.
                speak(port, body)
                if peer and engine == "kokoro":
                    speak(peer[0], dict(body, model="kokoro", voice=PEER_VOICE, stream=True, lang="en-us"))
                ours, theirs = [], []
                for _ in range(args.rounds):
                    if engine in CHUNK_CACHE:
                        # Its chunk cache would answer a text heard before from memory: each round gets a
                        # server of its own, warmed with another text.
                        server.terminate()
                        server.wait(timeout=60)
                        port, server = start_chorus(args.engines, args.chorus)
                        speak(port, dict(body, input=lines[10]))
                    ours.append(playback(speak(port, body)))
                    if peer and engine == "kokoro":
                        theirs.append(playback(speak(peer[0], dict(body, model="kokoro", voice=PEER_VOICE, stream=True, lang="en-us"))))
                mine = report(f"chorus {engine}, {name}", ours)
                if theirs:
                    other = report(f"fastkokoro, {name}", theirs)
                    print(json.dumps({"case": f"kokoro, {name}", "first_byte_ratio_chorus_over_fastkokoro":
                                      round(mine["first_byte_s"] / other["first_byte_s"], 3),
                                      "whole_ratio": round(mine["whole_s"] / other["whole_s"], 3)}), flush=True)
        if "kokoro" in args.engines:
            # The acceptance: the SDK's streamed response has its first byte before 0.7 of the whole.
            # `tts-1` with the voice jf_alpha: the voice names Kokoro, which speaks it.
            runs = [sdk_first_byte(args.venv, port, texts["3 sentences"], "jf_alpha") for _ in range(args.rounds)]
            runs = [run for run in runs if run]
            if not runs:
                print(json.dumps({"case": "OpenAI SDK", "skipped": f"the openai package did not run in {args.venv}"}), flush=True)
            else:
                print(json.dumps({"case": "OpenAI SDK with_streaming_response, tts-1 (kokoro), 3 sentences",
                                  "first_byte_s": round(median([r[0] for r in runs]), 3),
                                  "whole_s": round(median([r[1] for r in runs]), 3),
                                  "first_over_whole": round(median([r[0] / r[1] for r in runs]), 3)}), flush=True)
        print(json.dumps({"load_average_after": os.getloadavg()}), flush=True)
    finally:
        for process in [server] + ([peer[1]] if peer else []):
            process.terminate()
            process.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
