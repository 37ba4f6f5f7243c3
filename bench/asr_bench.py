#!/usr/bin/env python3
"""Recognition time: Chorus's FastConformer path against the Python reference path, in one run,
on a model with FastConformer Large's size and shapes, and how much of Chorus's time is spent
outside ONNX Runtime's Run.

No FastConformer weights ship offline, so this script writes a stand-in with the Large model's
structure and size and random weights (about 115 M parameters, 460 MB, cached in
$CHORUS_BENCH_CACHE or ~/.cache/chorus/bench): 8x depthwise-striding subsampling to d_model 512,
17 conformer blocks (two half-step feed-forward 512-2048-512, 8-head self-attention, convolution
module with kernel 9), and a CTC head over the 1000 pieces of the test vocabulary plus blank, as
fixed-shape buckets of 800 and 1600 frames. Its transcripts are meaningless; its cost is real.

Chorus: `chorus transcribe --repeats N` (release build): NeMo features, bucket, padding, Run,
trimming, greedy CTC, token decoding; best of N after a warm-up; the binding's own Run statistics.
Python: onnx-asr's nemo80.onnx features, the same padding and bucket, onnxruntime, numpy argmax
and collapse, tokens.txt decoding; best of N after a warm-up. Same threads on both sides.

    python3 bench/asr_bench.py [--threads 2] [--repeats 5]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import wave

import numpy as np
import onnx
import onnx_asr
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TEST_MODEL = os.path.join(ROOT, "Tests", "ChorusRecognitionTests", "Resources", "fastconformer")
CLIP = os.path.join(ROOT, "Tests", "ChorusVADTests", "Resources", "speech_pauses_16k.wav")
CACHE = os.environ.get("CHORUS_BENCH_CACHE", os.path.expanduser("~/.cache/chorus/bench"))
D, HEADS, FF, LAYERS, KERNEL, CHANNELS, VOCAB = 512, 8, 2048, 17, 9, 256, 1000
BUCKETS = [800, 1600]


class Graph:
    """A little builder: weights from one seeded generator, nodes named in order."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def weight(self, *shape, scale=0.02):
        self.count += 1
        name = f"w{self.count}"
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(self, values, dtype=np.int64):
        self.count += 1
        name = f"c{self.count}"
        self.inits.append(numpy_helper.from_array(np.array(values, dtype), name))
        return name

    def op(self, kind, inputs, **attributes):
        self.count += 1
        name = f"t{self.count}"
        self.nodes.append(helper.make_node(kind, inputs, [name], **attributes))
        return name

    def linear(self, x, n_in, n_out):
        return self.op("Add", [self.op("MatMul", [x, self.weight(n_in, n_out)]), self.weight(n_out)])

    def norm(self, x):
        return self.op("LayerNormalization", [x, self.const(np.ones(D), np.float32),
                                              self.const(np.zeros(D), np.float32)], axis=-1)

    def swish(self, x):
        return self.op("Mul", [x, self.op("Sigmoid", [x])])

    def feed_forward(self, x):
        y = self.linear(self.swish(self.linear(self.norm(x), D, FF)), FF, D)
        return self.op("Add", [x, self.op("Mul", [y, self.const(0.5, np.float32)])])

    def attention(self, x, frames):
        h = self.norm(x)
        split = self.const([1, frames, HEADS, D // HEADS])
        q, k, v = (self.op("Transpose", [self.op("Reshape", [self.linear(h, D, D), split])], perm=[0, 2, 1, 3])
                   for _ in range(3))
        scores = self.op("Mul", [self.op("MatMul", [q, self.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                                 self.const(1 / np.sqrt(D // HEADS), np.float32)])
        context = self.op("MatMul", [self.op("Softmax", [scores], axis=-1), v])
        merged = self.op("Reshape", [self.op("Transpose", [context], perm=[0, 2, 1, 3]), self.const([1, frames, D])])
        return self.op("Add", [x, self.linear(merged, D, D)])

    def convolution(self, x):
        h = self.op("Transpose", [self.norm(x)], perm=[0, 2, 1])  # [1, D, T]
        h = self.op("Conv", [h, self.weight(2 * D, D, 1)], kernel_shape=[1])
        gate = self.op("Split", [h, self.const([D, D])], axis=1)
        self.nodes[-1].output[:] = [gate + "_value", gate + "_gate"]  # GLU: value * sigmoid(gate)
        h = self.op("Mul", [gate + "_value", self.op("Sigmoid", [gate + "_gate"])])
        h = self.op("Conv", [h, self.weight(D, 1, KERNEL), self.weight(D)], kernel_shape=[KERNEL],
                    pads=[KERNEL // 2, KERNEL // 2], group=D)
        h = self.op("Conv", [self.swish(h), self.weight(D, D, 1)], kernel_shape=[1])
        return self.op("Add", [x, self.op("Transpose", [h], perm=[0, 2, 1])])


def encoder(frames, path):
    g = Graph(seed=2024)
    out_frames = frames // 8
    x = g.op("Unsqueeze", ["audio_signal", g.const([1])])  # [1, 1, 80, T]
    x = g.op("Relu", [g.op("Conv", [x, g.weight(CHANNELS, 1, 3, 3), g.weight(CHANNELS)],
                           kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])])
    for _ in range(2):
        x = g.op("Conv", [x, g.weight(CHANNELS, 1, 3, 3), g.weight(CHANNELS)], kernel_shape=[3, 3], strides=[2, 2],
                 pads=[1, 1, 1, 1], group=CHANNELS)
        x = g.op("Relu", [g.op("Conv", [x, g.weight(CHANNELS, CHANNELS, 1, 1), g.weight(CHANNELS)], kernel_shape=[1, 1])])
    # [1, C, 10, T/8] -> [1, T/8, C * 10] -> d_model
    x = g.op("Reshape", [g.op("Transpose", [x], perm=[0, 3, 1, 2]), g.const([1, out_frames, CHANNELS * 10])])
    x = g.linear(x, CHANNELS * 10, D)
    for _ in range(LAYERS):
        x = g.feed_forward(x)
        x = g.attention(x, out_frames)
        x = g.convolution(x)
        x = g.norm(g.feed_forward(x))
    g.nodes.append(helper.make_node("LogSoftmax", [g.linear(x, D, VOCAB + 1)], ["logprobs"], axis=-1))
    graph = helper.make_graph(
        g.nodes, f"fastconformer_large_T{frames}",
        [helper.make_tensor_value_info("audio_signal", TensorProto.FLOAT, [1, 80, frames])],
        [helper.make_tensor_value_info("logprobs", TensorProto.FLOAT, [1, out_frames, VOCAB + 1])], g.inits)
    model = helper.make_model(graph, producer_name="chorus-bench", opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.save(model, path)
    return sum(int(np.prod(t.dims)) for t in g.inits)


def ensure_model():
    folder = os.path.join(CACHE, "fastconformer-large-random")
    marker = os.path.join(folder, ".complete")
    if os.path.exists(marker):
        return folder
    os.makedirs(folder, exist_ok=True)
    for frames in BUCKETS:
        parameters = encoder(frames, os.path.join(folder, f"encoder_T{frames}.onnx"))
    shutil.copy(os.path.join(TEST_MODEL, "tokens.txt"), folder)
    with open(marker, "w") as out:
        out.write(f"{parameters} parameters\n")
    print(f"wrote a {parameters / 1e6:.0f} M parameter stand-in to {folder}", file=sys.stderr)
    return folder


def python_reference(folder, samples, threads, repeats):
    """The Python decode path; returns (best total seconds, Run seconds of that call, text)."""
    features_session = ort.InferenceSession(
        os.path.join(os.path.dirname(onnx_asr.__file__), "preprocessors", "data", "nemo80.onnx"),
        providers=["CPUExecutionProvider"])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    sessions = {frames: ort.InferenceSession(os.path.join(folder, f"encoder_T{frames}.onnx"), options,
                                             providers=["CPUExecutionProvider"]) for frames in BUCKETS}
    pieces = [line.rsplit(" ", 1)[0] for line in open(os.path.join(folder, "tokens.txt"), encoding="utf-8")][:VOCAB]

    def recognize():
        features, lengths = features_session.run(None, {"waveforms": samples[None],
                                                        "waveforms_lens": np.array([len(samples)], np.int64)})
        valid = int(lengths[0])
        bucket = next(b for b in BUCKETS if b >= valid)
        padded = np.zeros((1, 80, bucket), np.float32)
        padded[0, :, :valid] = features[0, :, :valid]
        started = time.perf_counter()
        logprobs = sessions[bucket].run(None, {"audio_signal": padded})[0][0]
        run = time.perf_counter() - started
        best = logprobs[:(valid + 7) // 8].argmax(axis=1)
        ids = [int(t) for i, t in enumerate(best) if t != VOCAB and (i == 0 or t != best[i - 1])]
        text = "".join(pieces[i] for i in ids if not pieces[i].startswith("<")).replace("\u2581", " ").strip()
        return run, text

    recognize()
    best = (float("inf"), 0.0, "")
    for _ in range(repeats):
        started = time.perf_counter()
        run, text = recognize()
        total = time.perf_counter() - started
        if total < best[0]:
            best = (total, run, text)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=7.9, help="audio length (up to 16 s)")
    parser.add_argument("--no-build", action="store_true", help="use the existing .build/release/chorus")
    args = parser.parse_args()

    if not args.no_build:
        subprocess.run(["swift", "build", "-c", "release", "--product", "chorus"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    folder = ensure_model()
    with wave.open(CLIP) as reader:
        pcm = np.frombuffer(reader.readframes(reader.getnframes()), "<i2")
    pcm = np.tile(pcm, 2)[:int(args.seconds * 16000)]
    samples = pcm.astype(np.float32) / 32768

    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "clip.wav")
        with wave.open(path, "wb") as writer:
            writer.setnchannels(1)
            writer.setsampwidth(2)
            writer.setframerate(16000)
            writer.writeframes(pcm.tobytes())
        run = subprocess.run([os.path.join(ROOT, ".build", "release", "chorus"), "transcribe", path, "--model", folder,
                              "--threads", str(args.threads), "--repeats", str(args.repeats), "--no-vad"],
                             check=True, capture_output=True, text=True)
    found = re.search(r"in ([0-9.]+) s \(.*?\).*?; ([0-9.]+) s in (\d+) model runs, ([0-9.]+) s \(([0-9.]+)%\) outside",
                      run.stderr)
    swift_total, swift_run, _, swift_outside, swift_percent = (float(found.group(i)) for i in (1, 2, 3, 4, 5))
    swift_text = run.stdout.strip()
    py_total, py_run, py_text = python_reference(folder, samples, args.threads, args.repeats)

    seconds = len(samples) / 16000
    print(f"audio: {seconds:.1f} s; FastConformer-Large-sized stand-in; {args.threads} intra-op threads; "
          f"best of {args.repeats} after a warm-up")
    print(f"{'':30}{'total s':>9}{'in Run s':>10}{'outside':>9}{'x real time':>13}")
    for name, total, inside, outside in [("Chorus (Swift)", swift_total, swift_run, swift_percent),
                                         ("Python reference", py_total, py_run, 100 * (py_total - py_run) / py_total)]:
        print(f"{name:30}{total:9.3f}{inside:10.3f}{outside:8.1f}%{seconds / total:13.1f}")
    print(f"Chorus time outside Run: {swift_percent:.1f}% (target < 5%); "
          f"Chorus vs Python total: {py_total / swift_total:.2f}x")
    print(f"same transcript as the Python reference: {swift_text == py_text}")
    return 0 if swift_text == py_text else 1


if __name__ == "__main__":
    sys.exit(main())
