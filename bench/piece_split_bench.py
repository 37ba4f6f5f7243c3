#!/usr/bin/env python3
"""How to split 2 cores between the sentences of a text, on plain onnxruntime (the choice behind
CHORUS_PIECES's default): one call at a time with 2 or 1 intra-op threads, two calls at once on one
session or on two, with or without the intra-op threads spinning, and (Piper) sentences batched
into one call along the export's batch axis, padded to the longest.

Inputs are each line of bench/peer_text.txt written as letters the model knows (not phonemes), so
lengths are those of real sentences; the time of a call depends on its length, not its ids.
Configurations are interleaved over the rounds; medians and their ratio to one call at a time with
2 spinning threads (what the peers do) are printed.

    python3 bench/piece_split_bench.py piper [sentences] [rounds]     # needs onnxruntime, numpy
"""
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import onnxruntime as ort

MODELS = Path(os.environ.get("CHORUS_MODELS", Path.home() / ".cache/chorus/models"))
ROOT = Path(__file__).resolve().parent.parent
engine = sys.argv[1] if len(sys.argv) > 1 else "piper"
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
lines = [l.strip() for l in (ROOT / "bench/peer_text.txt").read_text().splitlines() if l.strip()][:count]

if engine == "piper":
    path = MODELS / "piper/en_US-joe-medium.onnx"
    ids_of = json.loads(Path(str(path) + ".json").read_text())["phoneme_id_map"]
    inputs = [[1, 0] + sum(([ids_of[c][0], 0] for c in line.lower() if c in ids_of), []) + [2] for line in lines]
    scales = np.array([0.667, 1.0, 0.8], dtype=np.float32)

    def feeds(x):
        return {"input": np.array([x], dtype=np.int64), "input_lengths": np.array([len(x)], dtype=np.int64), "scales": scales}
else:
    path = MODELS / "kokoro/kokoro-v1.0.int8.onnx"
    vocab = json.loads((MODELS / "kokoro/vocab.json").read_text())
    vocab = vocab.get("vocab", vocab)
    inputs = [[0] + [vocab[c] for c in line.lower() if c in vocab] + [0] for line in lines]
    style = np.random.RandomState(0).randn(1, 256).astype(np.float32) * 0.1

    def feeds(x):
        return {"tokens": np.array([x], dtype=np.int64), "style": style, "speed": np.array([1.0], dtype=np.float32)}


def session(threads, spinning=True):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.enable_mem_pattern = False
    if not spinning:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


two, one_a, one_b, two_still = session(2), session(1), session(1), session(2, spinning=False)


def in_turn(s):
    for x in inputs:
        s.run(None, feeds(x))


def side_by_side(sessions, width):
    with ThreadPoolExecutor(width) as pool:
        list(pool.map(lambda i: sessions[i % len(sessions)].run(None, feeds(inputs[i])), range(len(inputs))))


def batched(s, width):
    for start in range(0, len(inputs), width):
        group = inputs[start:start + width]
        longest = max(map(len, group))
        s.run(None, {"input": np.array([g + [0] * (longest - len(g)) for g in group], dtype=np.int64),
                     "input_lengths": np.array([len(g) for g in group], dtype=np.int64), "scales": scales})


configurations = {
    "1 at a time, 2 threads": lambda: in_turn(two),
    "1 at a time, 1 thread": lambda: in_turn(one_a),
    "2 at once, 2 sessions x 1 thread": lambda: side_by_side([one_a, one_b], 2),
    "2 at once, 1 session, 1 thread": lambda: side_by_side([one_a], 2),
    "2 at once, 1 session, 2 threads": lambda: side_by_side([two], 2),
    "1 at a time, 2 threads, no spinning": lambda: in_turn(two_still),
    "2 at once, 1 session, 2 threads, no spinning": lambda: side_by_side([two_still], 2),
}
if engine == "piper":
    configurations.update({
        "batches of 2, 2 threads": lambda: batched(two, 2),
        "batches of 2, 1 thread": lambda: batched(one_a, 2),
        "batches of 4, 1 thread": lambda: batched(one_a, 4),
    })
in_turn(two)
in_turn(one_a)
times = {name: [] for name in configurations}
for _ in range(rounds):
    for name, run in configurations.items():
        started = time.perf_counter()
        run()
        times[name].append(time.perf_counter() - started)
print(f"{engine}, {len(inputs)} sentences, {rounds} rounds, onnxruntime {ort.__version__}, "
      f"load average {os.getloadavg()[0]:.1f}")
base = np.median(times["1 at a time, 2 threads"])
for name, values in times.items():
    print(f"{name:46} median {np.median(values):7.3f} s  ratio {np.median(values) / base:.3f}")
