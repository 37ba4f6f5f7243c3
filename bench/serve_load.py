#!/usr/bin/env python3
"""Load on `chorus serve`: N concurrent clients on 127.0.0.1 for a bounded time, per engine.

    swift build -c release --product chorus
    python3 bench/serve_load.py [--engines piper kokoro] [--clients 8] [--seconds 120]

Starts `chorus serve` on a free loopback port, then for each engine runs the
clients, each sending POST /v1/audio/speech one after the other (sentences from
bench/tts_paragraph.txt, response_format pcm, read as it streams) until the time is up. Reports
requests/s, p50/p95 time to first audio byte and whole time, 200s, 429s, requests the client gave up
waiting for (--timeout) and other errors, and the
server's resident memory (VmRSS) before and after each engine's run. Standard library only; it
never sends anything beyond the loopback and stops by itself.
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


def speak(port: int, engine: str, text: str, timeout: float):
    """One request: (status, seconds to first body byte, seconds in all); status "timeout" when the
    server sent nothing for `timeout` seconds."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    body = json.dumps({"model": engine, "input": text, "response_format": "pcm"})
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
        return response.status, first, time.monotonic() - start
    except TimeoutError:
        return "timeout", None, time.monotonic() - start
    except OSError as error:
        return f"error: {error}", None, time.monotonic() - start
    finally:
        connection.close()


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def run_engine(port, pid, engine, clients, seconds, sentences, timeout):
    # One request first, so the engine's load is not counted in the run.
    warm = speak(port, engine, sentences[0], timeout)
    if warm[0] != 200:
        print(f"{engine}: warm-up request answered {warm[0]}; skipped")
        return
    rss_before = rss_mib(pid)
    results, lock = [], threading.Lock()
    deadline = time.monotonic() + seconds

    def client(index):
        turn = index
        while time.monotonic() < deadline:
            outcome = speak(port, engine, sentences[turn % len(sentences)], timeout)
            with lock:
                results.append(outcome)
            if outcome[0] == 429:
                time.sleep(0.2)
            turn += clients

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    ok = [r for r in results if r[0] == 200]
    refused = [r for r in results if r[0] == 429]
    timeouts = [r for r in results if r[0] == "timeout"]
    errors = [r for r in results if r[0] not in (200, 429, "timeout")]
    firsts = [r[1] for r in ok if r[1] is not None]
    wholes = [r[2] for r in ok]
    print(f"{engine}: {clients} clients, {elapsed:.0f} s: {len(ok)} ok ({len(ok) / elapsed:.2f} requests/s), "
          f"{len(refused)} x 429, {len(timeouts)} waited out (> {timeout:.0f} s), {len(errors)} errors"
          + (f" (first: {errors[0][0]})" if errors else ""))
    print(f"  time to first audio p50 {percentile(firsts, 0.5) * 1000:.0f} ms, p95 {percentile(firsts, 0.95) * 1000:.0f} ms; "
          f"whole p50 {percentile(wholes, 0.5) * 1000:.0f} ms, p95 {percentile(wholes, 0.95) * 1000:.0f} ms")
    print(f"  server RSS {rss_before:.0f} MiB before, {rss_mib(pid):.0f} MiB after")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engines", nargs="+", default=["piper", "kokoro"])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--chorus", default=str(ROOT / ".build/release/chorus"))
    parser.add_argument("--queue", type=int, default=8, help="the server's --queue")
    parser.add_argument("--rounds", type=int, default=1, help="runs per engine, one after the other (RSS after each shows whether it settles)")
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
        for engine in args.engines:
            for _ in range(args.rounds):
                run_engine(port, server.pid, engine, args.clients, args.seconds, sentences, args.timeout)
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
