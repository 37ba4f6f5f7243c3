#!/usr/bin/env python3
"""Soak test of `chorus speak`, reporting memory and stray files.

1. `chorus speak --stream -` fed by an endless fast producer (`yes`-like, 1 MB/s and more) for a given
   time: resident memory is sampled every few seconds and must stay flat (backpressure on the text reader).
2. N runs of `chorus speak --file` interrupted at a random moment by SIGINT or SIGTERM: afterwards the output
   folder may hold only complete WAV files (the previous output or none), never a `.partial` file.

    python3 bench/soak.py [--minutes 5] [--interruptions 1000] [--engine piper] [--binary .build/debug/chorus]
"""
import argparse
import os
import random
import signal
import struct
import subprocess
import sys
import tempfile
import time


def rss_kb(pid, field="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def endless_stream(binary, engine, minutes):
    command = [binary, "speak", "--stream", "--engine", engine, "-", "-o", "-", "--format", "pcm"]
    speaker = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    line = b"This sentence arrives far faster than anyone could speak it. " * 16 + b"\n"
    samples = []
    written = 0
    started = time.time()
    next_sample = started
    os.set_blocking(speaker.stdin.fileno(), False)
    while time.time() - started < minutes * 60 and speaker.poll() is None:
        try:
            written += speaker.stdin.write(line) or 0
        except BlockingIOError:
            time.sleep(0.01)  # the pipe is full: chorus is not reading, which is the backpressure
        except BrokenPipeError:
            break
        if time.time() >= next_sample:
            samples.append((time.time() - started, rss_kb(speaker.pid)))
            next_sample += 5
    alive = speaker.poll() is None
    peak = rss_kb(speaker.pid, "VmHWM")
    speaker.send_signal(signal.SIGINT)
    try:
        speaker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        speaker.kill()
    rss = [kb for _, kb in samples if kb]
    print(f"endless producer: {time.time() - started:.0f} s, {written / 1e6:.1f} MB of text offered, "
          f"chorus {'still running' if alive else 'exited early: ' + speaker.stderr.read().decode()[-300:]}; "
          f"RSS first {rss[0] / 1024 if rss else 0:.1f} MB, last {rss[-1] / 1024 if rss else 0:.1f} MB, "
          f"max {max(rss) / 1024 if rss else 0:.1f} MB, peak (VmHWM) {(peak or 0) / 1024:.1f} MB over {len(rss)} samples")
    return alive


def interruptions(binary, engine, count, seed):
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="chorus-soak-")
    text = os.path.join(tempfile.mkdtemp(prefix="chorus-soak-text-"), "text.txt")
    with open(text, "w") as handle:
        handle.write("A paragraph long enough to take a few seconds to speak, said again and again. " * 12)
    output = os.path.join(folder, "out.wav")
    peaks, signals, completed, bad_outputs = [], {"SIGINT": 0, "SIGTERM": 0}, 0, 0
    for run in range(count):
        speaker = subprocess.Popen([binary, "speak", "--engine", engine, "--file", text, "-o", output],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + rng.uniform(0.05, 3.0)
        peak = 0
        while time.time() < deadline and speaker.poll() is None:
            peak = max(peak, rss_kb(speaker.pid, "VmHWM") or 0)
            time.sleep(0.02)
        if speaker.poll() is None:
            name = rng.choice(["SIGINT", "SIGTERM"])
            signals[name] += 1
            speaker.send_signal(getattr(signal, name))
        else:
            completed += 1
        speaker.wait()
        peaks.append(peak)
        if os.path.exists(output):
            with open(output, "rb") as wav:
                header = wav.read(44)
                size = os.path.getsize(output)
            if header[:4] != b"RIFF" or struct.unpack("<I", header[40:44])[0] != size - 44:
                bad_outputs += 1
    stray = [name for name in os.listdir(folder) if name != "out.wav"]
    print(f"interruptions: {count} runs, {signals['SIGINT']} SIGINT, {signals['SIGTERM']} SIGTERM, "
          f"{completed} finished first; stray files left: {len(stray)} {stray[:5]}; incomplete out.wav seen: "
          f"{bad_outputs}; peak RSS per run max {max(peaks) / 1024:.1f} MB, median {sorted(peaks)[len(peaks) // 2] / 1024:.1f} MB")
    return not stray and not bad_outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--interruptions", type=int, default=1000)
    parser.add_argument("--engine", default="piper")
    parser.add_argument("--binary", default=".build/debug/chorus")
    parser.add_argument("--seed", type=int, default=17)
    arguments = parser.parse_args()
    ok = True
    if arguments.minutes > 0:
        ok = endless_stream(arguments.binary, arguments.engine, arguments.minutes) and ok
    if arguments.interruptions > 0:
        ok = interruptions(arguments.binary, arguments.engine, arguments.interruptions, arguments.seed) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
