#!/usr/bin/env python3
"""Chorus's NeuTTS stages beside the Python path on the same graphs, in one run.

Python: the backbone ONNX driven by onnxruntime and numpy with the cache fed back (upstream has no ONNX
backbone path; this is the loop its PyTorch path amounts to, with the same top-k 50 and stop masking and
the draws pinned to SplitMix64, so both sides draw the same tokens), upstream's NeuCodecOnnxDecoder for
decoding, and upstream's own NeuTTS._infer_stream_ggml fed the tokens as the loop draws them for streaming.
Chorus: bench/NeuTTSBench. Reported: per decode step (Chorus also outside Run), decoding, whole, and the
first streamed chunk against the whole stream. Same intra-op threads on both.

On the generated test models (tiny networks, a 66,142-token vocabulary) the numbers measure the code
around the models far more than the models.

    swift build -c release --product NeuTTSBench
    /tmp/venv-neutts/bin/python bench/neutts_bench.py [--threads 2] [--runs 3]   (neutts 1.4.1, onnxruntime)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "Tests" / "ChorusNeuTTSTests" / "Resources"
sys.path.insert(0, str(ROOT / "scripts" / "testdata" / "neutts"))
from make_testdata import SplitMix64  # noqa: E402


def python_path(model, case, reference, threads):
    import onnxruntime as ort
    from neucodec import NeuCodecOnnxDecoder
    from neutts import NeuTTS
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    backbone = ort.InferenceSession(str(model / "backbone.onnx"), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in backbone.get_inputs() if i.name.startswith("past_key_values")]
    outputs = ["logits"] + [n.replace("past_key_values", "present") for n in names]
    heads, size = backbone.get_inputs()[3].shape[1], backbone.get_inputs()[3].shape[3]
    codec = NeuCodecOnnxDecoder(str(model / "decoder.onnx"))
    codec.session = ort.InferenceSession(str(model / "decoder.onnx"), options, providers=["CPUExecutionProvider"])
    tokenizer = json.load(open(model / "tokenizer.json"))
    added = {t["content"]: t["id"] for t in tokenizer["added_tokens"]}
    stop = added["<|SPEECH_GENERATION_END|>"]
    code_of = {added[f"<|speech_{i}|>"]: i for i in range(65536)}

    def draw():
        """Yields each token as it is drawn."""
        rng = SplitMix64(case["seed"])
        ids = np.array([case["prompt_ids"]], dtype=np.int64)
        length = ids.shape[1]
        feeds = {"input_ids": ids, "attention_mask": np.ones((1, length), np.int64),
                 "position_ids": np.arange(length, dtype=np.int64)[None]}
        for n in names:
            feeds[n] = np.zeros((1, heads, 0, size), np.float32)
        tokens = []
        while length < 2048:
            result = backbone.run(outputs, feeds)
            logits = result[0][0, -1].astype(np.float64)
            if len(tokens) < 50:
                logits[stop] = -np.inf
            top = np.argpartition(-logits, 50)[:50]
            order = top[np.lexsort((top, -logits[top]))]
            weights = np.exp(logits[order] - logits[order[0]])
            target = rng.uniform() * weights.sum()
            token = int(order[min(np.searchsorted(np.cumsum(weights), target, side="right"), 49)])
            if token == stop:
                break
            tokens.append(token)
            yield token
            length += 1
            feeds = {"input_ids": np.array([[token]], np.int64), "attention_mask": np.ones((1, length), np.int64),
                     "position_ids": np.array([[length - 1]], np.int64)}
            for n, present in zip(names, result[1:]):
                feeds[n] = present

    tts = NeuTTS.__new__(NeuTTS)
    tts.hop_length, tts.streaming_overlap_frames, tts.streaming_frames_per_chunk = 480, 1, 25
    tts.streaming_lookforward, tts.streaming_lookback, tts.streaming_stride_samples = 5, 50, 25 * 480
    tts.max_context, tts._is_onnx_codec, tts.codec, tts.watermarker, tts._seed = 2048, True, codec, None, 0
    tts._ggml_prompt = lambda *args: ""

    return draw, codec, code_of, tts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--case", default="short")
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "NeuTTSBench"))
    args = parser.parse_args()
    model = RESOURCES / "model"
    case = json.load(open(RESOURCES / "golden" / f"{args.case}.json"))
    reference = np.fromfile(RESOURCES / "golden" / f"{args.case}-ref.i32", dtype=np.int32).tolist()

    swift = subprocess.run([args.binary, "--model", str(model),
                            "--case", str(RESOURCES / "golden" / f"{args.case}.json"),
                            "--reference", str(RESOURCES / "golden" / f"{args.case}-ref.i32"),
                            "--threads", str(args.threads), "--runs", str(args.runs)],
                           check=True, capture_output=True, text=True)
    chorus = json.loads(swift.stdout.strip().splitlines()[-1])

    draw, codec, code_of, tts = python_path(model, case, reference, args.threads)
    tokens = list(draw())
    expected = [t for t in case["generated_ids"] if t in code_of]
    assert tokens == expected, "the Python loop drew other tokens than upstream's _infer_torch"
    runs = []
    for _ in range(args.runs):
        start = time.perf_counter()
        tokens = list(draw())
        generated = time.perf_counter()
        codec.decode_code(np.array([code_of[t] for t in tokens], np.int32)[None, None])
        end = time.perf_counter()
        first = []
        stream_start = time.perf_counter()

        class Live:
            def reset(self):
                pass

            def __call__(self, prompt, **kwargs):
                return ({"choices": [{"text": f"<|speech_{code_of[t]}|>"}]} for t in draw())
        tts.backbone = Live()
        for _chunk in tts._infer_stream_ggml(reference, "", ""):
            if not first:
                first.append(time.perf_counter() - stream_start)
        runs.append({"generate": generated - start, "decode": end - generated, "whole": end - start,
                     "firstChunk": first[0], "streamed": time.perf_counter() - stream_start})

    steps = chorus["steps"]
    def median(rows, key):
        return statistics.median(r[key] for r in rows)
    print(f"NeuTTS on the generated test models, {steps} decode steps, {chorus['codes']} codes, {args.threads} threads, "
          f"median of {args.runs} runs")
    print(f"{'':24}{'Chorus':>12}{'Python':>12}{'Chorus/Python':>15}")
    for key, label, scale in [("generate", "per decode step (ms)", 1000 / (steps + 1)), ("decode", "decode (ms)", 1000),
                              ("whole", "whole (ms)", 1000), ("firstChunk", "first chunk (ms)", 1000),
                              ("streamed", "streamed (ms)", 1000)]:
        c, p = median(chorus["runs"], key) * scale, median(runs, key) * scale
        print(f"{label:24}{c:12.3f}{p:12.3f}{c / p:15.3f}")
    outside = (median(chorus["runs"], "generate") - median(chorus["runs"], "generateInRun")) * 1000 / (steps + 1)
    print(f"Chorus per step outside Run (ms): {outside:.3f}")


if __name__ == "__main__":
    main()
