#!/usr/bin/env python3
"""VAD speed, Chorus against the Python silero-vad package, on the same audio and threads, in one run.

The audio is the VAD test clip (espeak-ng sentences between silences) repeated to about a minute.
Chorus: `chorus vad` (release build), whose own timing covers the VAD pass only (after loading the
model and reading the file). Python: silero-vad 6.2.3's get_speech_timestamps with the same ONNX
file (load_silero_vad(onnx=True)) and with the package default, its TorchScript model. One thread
everywhere: the package pins ONNX Runtime to one intra- and one inter-op thread and torch to one
thread; Chorus's SileroVAD defaults to the same. Best of --repeats runs each. Also checks that both
find the same segments within one window.

Needs torch and silero-vad==6.2.3 in the Python that runs it:
    python3 -m venv --system-site-packages /tmp/vad-venv
    /tmp/vad-venv/bin/pip install torch==2.8.0 silero-vad==6.2.3
    /tmp/vad-venv/bin/python bench/vad_speed.py
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import wave

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CLIP = os.path.join(ROOT, "Tests", "ChorusVADTests", "Resources", "speech_pauses_16k.wav")


def read_wav(path):
    with wave.open(path) as reader:
        return np.frombuffer(reader.readframes(reader.getnframes()), "<i2"), reader.getframerate()


def chorus_vad(binary, path, repeats):
    best, segments = float("inf"), None
    for _ in range(repeats):
        run = subprocess.run([binary, "vad", path, "--json"], check=True, capture_output=True, text=True)
        elapsed = float(re.search(r"analysed in ([0-9.]+) s", run.stderr).group(1))
        best = min(best, elapsed)
        segments = [[round(s["start"] * 16000), round(s["end"] * 16000)] for s in json.loads(run.stdout)]
    return best, segments


def python_vad(audio, onnx, repeats):
    import torch
    from silero_vad import get_speech_timestamps, load_silero_vad
    torch.set_num_threads(1)
    model = load_silero_vad(onnx=onnx)
    tensor = torch.from_numpy(audio)
    best, segments = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        segments = get_speech_timestamps(tensor, model, sampling_rate=16000)
        best = min(best, time.perf_counter() - started)
    return best, [[s["start"], s["end"]] for s in segments]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60, help="length of the benchmark audio")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-build", action="store_true", help="use the existing .build/release/chorus")
    args = parser.parse_args()

    if not args.no_build:
        subprocess.run(["swift", "build", "-c", "release", "--product", "chorus"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, ".build", "release", "chorus")

    clip, rate = read_wav(CLIP)
    pcm = np.tile(clip, int(np.ceil(args.seconds * rate / len(clip))))
    seconds = len(pcm) / rate
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "vad_bench.wav")
        with wave.open(path, "wb") as writer:
            writer.setnchannels(1)
            writer.setsampwidth(2)
            writer.setframerate(rate)
            writer.writeframes(pcm.tobytes())
        swift_time, swift_segments = chorus_vad(binary, path, args.repeats)
    audio = pcm.astype(np.float32) / 32768
    onnx_time, onnx_segments = python_vad(audio, True, args.repeats)
    jit_time, _ = python_vad(audio, False, args.repeats)

    def agree(a, b):
        return len(a) == len(b) and all(abs(x - y) <= 512 for p, q in zip(a, b) for x, y in zip(p, q))

    print(f"audio: {seconds:.1f} s at {rate} Hz, {len(swift_segments)} segments; one thread; best of {args.repeats}")
    print(f"{'':34}{'seconds':>9}{'x real time':>13}")
    for name, elapsed in [("Chorus SileroVAD (Swift, ONNX)", swift_time),
                          ("silero-vad 6.2.3, ONNX wrapper", onnx_time),
                          ("silero-vad 6.2.3, TorchScript", jit_time)]:
        print(f"{name:34}{elapsed:9.3f}{seconds / elapsed:13.0f}")
    print(f"Chorus vs Python ONNX wrapper: {onnx_time / swift_time:.2f}x faster; "
          f"vs TorchScript: {jit_time / swift_time:.2f}x faster")
    print(f"segments equal to Python's within one window: {agree(swift_segments, onnx_segments)}")
    return 0 if agree(swift_segments, onnx_segments) else 1


if __name__ == "__main__":
    sys.exit(main())
