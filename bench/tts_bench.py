#!/usr/bin/env python3
"""Chorus's Kokoro and Piper against the plain Python onnxruntime path, side by side in one run.

Chorus is timed end to end (text -> phonemes -> every model call -> samples) by chorus-bench.
The Python side is the few lines a user would write around onnxruntime and numpy, fed the very
same phoneme ids Chorus produced (so it skips phonemization: the comparison favours Python).
Both use the same model file, the same intra-op thread count and the runtime's default settings.

    swift build -c release --product chorus-bench
    python3 bench/tts_bench.py [--threads 2] [--runs 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent
# Where ChorusModels' ModelStore looks: CHORUS_MODELS, else an absolute XDG_CACHE_HOME or ~/.cache, + chorus/models.
_CACHE = os.environ.get("XDG_CACHE_HOME", "")
MODELS = Path(os.environ.get("CHORUS_MODELS") or Path(_CACHE if _CACHE.startswith("/") else Path.home() / ".cache") / "chorus/models")


def python_kokoro(inputs, threads, runs):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(MODELS / "kokoro/kokoro-v1.0.int8.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    voice = np.load(MODELS / "kokoro/voices_ja.npz")["jf_alpha"]

    def synthesize():
        audio = []
        for ids in inputs:
            style = voice[min(len(ids), len(voice)) - 1]
            out = session.run(None, {"tokens": np.array([[0, *ids, 0]], np.int64),
                                     "style": style.reshape(1, 256).astype(np.float32),
                                     "speed": np.array([1.0], np.float32)})[0]
            audio.append(out.ravel())
        return np.concatenate(audio), 24000

    return time_it(synthesize, runs)


def python_piper(inputs, threads, runs):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    model = MODELS / "piper/en_US-joe-medium.onnx"
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    config = json.loads(Path(str(model) + ".json").read_text())
    inference = config["inference"]
    scales = np.array([inference["noise_scale"], inference["length_scale"], inference["noise_w"]], np.float32)
    rate = config["audio"]["sample_rate"]
    silence = np.zeros(int(0.2 * rate), np.float32)

    def synthesize():
        audio = []
        for index, ids in enumerate(inputs):
            out = session.run(None, {"input": np.array([ids], np.int64),
                                     "input_lengths": np.array([len(ids)], np.int64), "scales": scales})[0]
            audio.append(out.ravel())
            if index < len(inputs) - 1:
                audio.append(silence)
        return np.concatenate(audio), rate

    return time_it(synthesize, runs)


def time_it(synthesize, runs):
    synthesize()  # warm-up, as chorus-bench does
    times, seconds = [], 0.0
    for _ in range(runs):
        start = time.perf_counter()
        audio, rate = synthesize()
        times.append(time.perf_counter() - start)
        seconds = len(audio) / rate
    return seconds, times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--text", default=str(ROOT / "bench/tts_paragraph.txt"))
    parser.add_argument("--bench", default=str(ROOT / ".build/release/chorus-bench"))
    args = parser.parse_args()
    if not Path(args.bench).exists():
        sys.exit(f"{args.bench} missing: swift build -c release --product chorus-bench")

    print(f"onnxruntime {ort.__version__} (Python) vs Chorus; {args.threads} intra-op threads, "
          f"median of {args.runs} runs after one warm-up; text: {Path(args.text).name}")
    header = f"{'engine':8} {'audio s':>8} {'Chorus s':>9} {'RTF':>6} {'in Run':>7} {'outside':>8} " \
             f"{'Python s':>9} {'RTF':>6} {'Chorus/Python':>14}"
    print(header)
    for engine, python_path in (("kokoro", python_kokoro), ("piper", python_piper)):
        with tempfile.NamedTemporaryFile(suffix=".json") as dump:
            result = subprocess.run([args.bench, "--engine", engine, "--text-file", args.text,
                                     "--threads", str(args.threads), "--runs", str(args.runs),
                                     "--inputs-out", dump.name], check=True, capture_output=True, text=True)
            chorus = json.loads(result.stdout)
            inputs = json.load(open(dump.name))
        chorus_wall = statistics.median(chorus["wallSeconds"])
        chorus_run = statistics.median(chorus["runSeconds"])
        audio = chorus["audioSeconds"]
        py_audio, py_times = python_path(inputs, args.threads, args.runs)
        py_wall = statistics.median(py_times)
        print(f"{engine:8} {audio:8.2f} {chorus_wall:9.3f} {chorus_wall / audio:6.3f} {chorus_run:7.3f} "
              f"{100 * (chorus_wall - chorus_run) / chorus_wall:7.1f}% {py_wall:9.3f} {py_wall / py_audio:6.3f} "
              f"{chorus_wall / py_wall:14.3f}")
        if abs(py_audio - audio) > 0.05 * audio:
            print(f"  note: audio lengths differ (Chorus {audio:.2f} s, Python {py_audio:.2f} s)")


if __name__ == "__main__":
    main()
