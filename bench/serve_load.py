#!/usr/bin/env python3
"""Load on `chorus serve`: N concurrent clients on 127.0.0.1 for a bounded time.

    swift build -c release --product chorus
    python3 bench/serve_load.py [--clients 8] [--seconds 120] [--engines piper kokoro] [--formats pcm mp3 wav flac]

Starts `chorus serve` on a free loopback port, loads each engine with one request, then runs the clients
for --seconds: each sends POST /v1/audio/speech one after the other (sentences from
bench/tts_paragraph.txt, read as it streams), client i's n-th request in engine (i + n) mod E and format
(i + 2n) mod F, so every engine and format are in flight at once. --per-engine runs the engines one
after the other instead. Reports requests/s, p50/p95 time to first audio byte and whole time (all and per
engine), 200s, 429s (and any 429 without Retry-After, which counts as an error), requests the client gave
up waiting for (--timeout), other errors, and the server's resident memory (VmRSS) at start (after the
warm-up), in the middle and at the end of the run, with its peak (sampled every 0.5 s). Standard library
only; it never sends anything beyond the loopback and stops by itself.
"""
import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def speak(port: int, engine: str, text: str, timeout: float, audio_format: str = "pcm"):
    """One request: (status, seconds to first body byte, seconds in all, engine, Retry-After header);
    status "timeout" when the server sent nothing for `timeout` seconds."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    body = json.dumps({"model": engine, "input": text, "response_format": audio_format})
    start = time.monotonic()
    try:
        connection.request("POST", "/v1/audio/speech", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        first = None
        while True:
            piece = response.read1(65536)
            if first is None:
                first = time.monotonic() - start
            if not piece:
                break
        return response.status, first, time.monotonic() - start, engine, response.getheader("Retry-After")
    except TimeoutError:
        return "timeout", None, time.monotonic() - start, engine, None
    except OSError as error:
        return f"error: {error}", None, time.monotonic() - start, engine, None
    finally:
        connection.close()


class MemorySampler(threading.Thread):
    """The server's VmRSS every `interval` seconds while running: its samples with their times."""

    def __init__(self, pid: int, interval: float = 0.5):
        super().__init__(daemon=True)
        self.pid, self.interval, self.samples, self.done = pid, interval, [], threading.Event()

    def run(self):
        while not self.done.is_set():
            self.samples.append((time.monotonic(), rss_mib(self.pid)))
            self.done.wait(self.interval)

    def stop(self):
        self.done.set()
        self.join()
        self.samples.append((time.monotonic(), rss_mib(self.pid)))

    def at(self, moment: float) -> float:
        return min(self.samples, key=lambda sample: abs(sample[0] - moment))[1]


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def report(label, results, elapsed, timeout):
    def kind(result):
        if result[0] == 429:
            return "refused" if result[4] else "error"
        return {200: "ok", "timeout": "timeout"}.get(result[0], "error")
    ok, refused, timeouts, errors = ([r for r in results if kind(r) == k] for k in ("ok", "refused", "timeout", "error"))
    firsts = [r[1] for r in ok if r[1] is not None]
    wholes = [r[2] for r in ok]
    print(f"{label}: {len(ok)} ok ({len(ok) / elapsed:.2f} requests/s), {len(refused)} x 429 with Retry-After, "
          f"{len(timeouts)} waited out (> {timeout:.0f} s), {len(errors)} errors"
          + (f" (first: {errors[0][0]}{' without Retry-After' if errors[0][0] == 429 else ''})" if errors else ""))
    print(f"  time to first audio p50 {percentile(firsts, 0.5) * 1000:.0f} ms, p95 {percentile(firsts, 0.95) * 1000:.0f} ms; "
          f"whole p50 {percentile(wholes, 0.5) * 1000:.0f} ms, p95 {percentile(wholes, 0.95) * 1000:.0f} ms")


def run(port, pid, engines, formats, clients, seconds, sentences, timeout):
    """The clients for `seconds`, each turning through `engines` and `formats`; figures, then memory."""
    for engine in engines:
        # One request first, so the engine's load is not counted in the run.
        warm = speak(port, engine, sentences[0], timeout)
        if warm[0] != 200:
            print(f"{engine}: warm-up request answered {warm[0]}; left out")
            engines = [e for e in engines if e != engine]
    if not engines:
        return
    memory = MemorySampler(pid)
    memory.start()
    results, lock = [], threading.Lock()
    started = time.monotonic()
    deadline = started + seconds

    def client(index):
        turn = 0
        while time.monotonic() < deadline:
            engine = engines[(index + turn) % len(engines)]
            audio_format = formats[(index + 2 * turn) % len(formats)]
            outcome = speak(port, engine, sentences[(index + turn * clients) % len(sentences)], timeout, audio_format)
            with lock:
                results.append(outcome)
            if outcome[0] == 429:
                time.sleep(0.2)
            turn += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ended = time.monotonic()
    memory.stop()
    elapsed = ended - started
    print(f"{'+'.join(engines)} in {'+'.join(formats)}: {clients} clients, {elapsed:.0f} s")
    report("  all", results, elapsed, timeout)
    for engine in engines:
        report(f"  {engine}", [r for r in results if r[3] == engine], elapsed, timeout)
    peak = max(sample[1] for sample in memory.samples)
    print(f"  server RSS {memory.at(started):.0f} MiB at start, {memory.at(started + elapsed / 2):.0f} MiB in the middle, "
          f"{memory.at(ended):.0f} MiB at the end, peak {peak:.0f} MiB")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engines", nargs="+", default=["piper", "kokoro"])
    parser.add_argument("--formats", nargs="+", default=["pcm", "mp3", "wav", "flac"])
    parser.add_argument("--per-engine", action="store_true", help="one engine at a time instead of all at once")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--chorus", default=str(ROOT / ".build/release/chorus"))
    parser.add_argument("--queue", type=int, default=8, help="the server's --queue")
    parser.add_argument("--rounds", type=int, default=1, help="runs, one after the other (RSS after each shows whether it settles)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds a client waits for the server before giving a request up (the run's last requests finish past --seconds)")
    args = parser.parse_args()
    if args.clients < 1 or not 0 < args.seconds <= 600 or not 0 < args.timeout <= 900 or not 1 <= args.rounds <= 5:
        sys.exit("--clients must be 1 or more, --seconds from 1 to 600, --timeout from 1 to 900 and --rounds from 1 to 5.")
    text = (ROOT / "bench/tts_paragraph.txt").read_text()
    sentences = [s.strip() + "." for s in text.replace("\n", " ").split(".") if s.strip()]
    port = free_port()
    server = subprocess.Popen([args.chorus, "serve", "--host", "127.0.0.1", "--port", str(port), "--queue", str(args.queue)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("chorus serve did not start listening.")
        print(f"chorus serve pid {server.pid} on 127.0.0.1:{port}, RSS {rss_mib(server.pid):.0f} MiB at start")
        groups = [[engine] for engine in args.engines] if args.per_engine else [args.engines]
        for engines in groups:
            for _ in range(args.rounds):
                run(port, server.pid, engines, args.formats, args.clients, args.seconds, sentences, args.timeout)
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
