#!/usr/bin/env python3
"""Chorus's Chatterbox Turbo stages beside the Python loop on the same graphs, in one run.

Python: the model card's loop (ResembleAI/chatterbox-turbo-ONNX: embed_tokens, language_model with the cache fed
back, conditional_decoder, driven by onnxruntime and numpy), with upstream's sampling in place of the card's
greedy draw (temperature 0.8, top-k 1000, top-p 0.95, penalty 1.2 over [6561] then the drawn tokens; the first
draw not checked for stop) and the draws pinned to SplitMix64, so both sides draw the same tokens, checked
against upstream's golden. Chorus: bench/ChatterboxBench. Reported: per decode step (Chorus also outside Run),
decoding, whole utterance, resident memory across upstream's 1 + 1000 draws (stop masked, in a process of its
own), and for a two-chunk text the engine's first chunk against the whole stream (Python:
the chunks spoken one after another, the same 50-character chunks). Same intra-op threads on both.

On the generated test models (a 2-layer 32-wide GPT-2, a 6,563-token vocabulary) the numbers measure the code
around the models far more than the models.

    swift build -c release --product ChatterboxBench
    /work/venv-chatter/bin/python bench/chatterbox_bench.py [--threads 2] [--runs 3]   (onnxruntime, numpy)
"""
import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "Tests" / "ChorusChatterboxTests" / "Resources"


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & (2**64 - 1)

    def uniform(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        return ((z ^ (z >> 31)) >> 11) * 2.0**-53


def sessions(model, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    return [ort.InferenceSession(str(model / f"{name}.onnx"), options, providers=["CPUExecutionProvider"])
            for name in ("embed_tokens", "language_model", "conditional_decoder")]


def generate(embed, lm, voice, ids, seed, max_new=1000):
    names = [i.name for i in lm.get_inputs() if i.name.startswith("past_key_values")]
    outputs = ["logits"] + [n.replace("past_key_values", "present") for n in names]
    heads, size = lm.get_inputs()[3].shape[1], lm.get_inputs()[3].shape[3]
    rng = SplitMix64(seed)
    text = embed.run(["inputs_embeds"], {"input_ids": np.array([ids], np.int64)})[0]
    embeds = np.concatenate([voice["audio_features"], text], axis=1).astype(np.float32)
    length = embeds.shape[1]
    feeds = {"inputs_embeds": embeds, "attention_mask": np.ones((1, length), np.int64),
             "position_ids": np.arange(length, dtype=np.int64)[None]}
    for n in names:
        feeds[n] = np.zeros((1, heads, 0, size), np.float32)
    drawn = []
    while len(drawn) < 1 + max_new:
        result = lm.run(outputs, feeds)
        logits = result[0][0, -1].astype(np.float32) / np.float32(0.8)
        top = np.argpartition(-logits, 1000)[:1000]
        order = top[np.lexsort((top, -logits[top]))]
        weights = np.exp((logits[order] - logits[order[0]]).astype(np.float64))
        mass = np.cumsum(weights) / weights.sum()
        keep = int(np.searchsorted(mass - weights / weights.sum(), 0.95, side="left"))
        kept = order[:max(keep, 1)]
        history = set(drawn) if drawn else {6561}
        values = logits[kept].copy()
        for i, token in enumerate(kept):
            if token in history:
                values[i] = values[i] * np.float32(1.2) if values[i] < 0 else values[i] / np.float32(1.2)
        ranked = np.lexsort((kept, -values))
        kept, values = kept[ranked], values[ranked]
        w = np.exp((values - values[0]).astype(np.float64))
        target = rng.uniform() * w.sum()
        token = int(kept[min(np.searchsorted(np.cumsum(w), target, side="right"), len(kept) - 1)])
        drawn.append(token)
        if token == 6562 and len(drawn) > 1:
            break
        length += 1
        step = embed.run(["inputs_embeds"], {"input_ids": np.array([[token]], np.int64)})[0]
        feeds = {"inputs_embeds": step, "attention_mask": np.ones((1, length), np.int64),
                 "position_ids": np.array([[length - 1]], np.int64)}
        for n, present in zip(names, result[1:]):
            feeds[n] = present
    if drawn and drawn[-1] == 6562:
        drawn.pop()
    return drawn


def decode(decoder, voice, tokens):
    kept = [t for t in tokens if t < 6561] + [4299] * 3
    wav = decoder.run(["waveform"], {"speech_tokens": np.concatenate([voice["audio_tokens"], [kept]], 1).astype(np.int64),
                                     "speaker_embeddings": voice["speaker_embeddings"],
                                     "speaker_features": voice["speaker_features"]})[0][0]
    fade = np.zeros(960, np.float32)
    fade[480:] = (np.cos(np.linspace(np.pi, 0, 480)) + 1) / 2
    wav[:960] *= fade
    return wav


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "ChatterboxBench"))
    args = parser.parse_args()
    model, voice_dir = RESOURCES / "model", RESOURCES / "voice"
    case = json.load(open(RESOURCES / "golden" / "tags.json"))
    chunked = json.load(open(RESOURCES / "golden" / "chunked.json"))
    voice = {name: np.load(voice_dir / f"{name}.npy") for name in
             ("audio_features", "audio_tokens", "speaker_embeddings", "speaker_features")}
    voice["audio_tokens"] = voice["audio_tokens"].astype(np.int64)

    memory = subprocess.run([args.binary, "--model", str(model), "--voice", str(voice_dir), "--text", case["text"],
                             "--stream-text", chunked["text"], "--memory"], check=True, capture_output=True, text=True)
    print("Chorus resident memory over 1 + 1000 draws (stop masked), steps 100-150 to 950-1000:",
          memory.stdout.strip().splitlines()[-1])
    swift = subprocess.run([args.binary, "--model", str(model), "--voice", str(voice_dir), "--text", case["text"],
                            "--stream-text", chunked["text"], "--seed", str(case["seed"]),
                            "--threads", str(args.threads), "--runs", str(args.runs)],
                           check=True, capture_output=True, text=True)
    chorus = json.loads(swift.stdout.strip().splitlines()[-1])
    assert chorus["tokens"] == case["tokens"], "Chorus drew other tokens than upstream's inference_turbo"

    embed, lm, decoder = sessions(model, args.threads)
    ids = [i + 6563 for i in case["text_ids"]] + [6561]
    tokens = generate(embed, lm, voice, ids, case["seed"])
    assert tokens == case["tokens"], "the Python loop drew other tokens than upstream's inference_turbo"
    from chatterbox.tts_turbo import punc_norm
    from tokenizers import Tokenizer
    plain = Tokenizer.from_file(str(RESOURCES / "plain" / "tokenizer.json"))
    chunk_ids = [[i + 6563 for i in plain.encode(punc_norm(chunk["text"])).ids] + [6561] for chunk in chunked["chunks"]]
    for chunk, chunk_tokens in zip(chunk_ids, chunked["chunks"]):
        assert generate(embed, lm, voice, chunk, chunked["seed"]) == chunk_tokens["tokens"]
    runs = []
    for _ in range(args.runs):
        start = time.perf_counter()
        tokens = generate(embed, lm, voice, ids, case["seed"])
        generated = time.perf_counter()
        decode(decoder, voice, tokens)
        end = time.perf_counter()
        stream_start = time.perf_counter()
        first = None
        for chunk in chunk_ids:
            decode(decoder, voice, generate(embed, lm, voice, chunk, chunked["seed"]))
            if first is None:
                first = time.perf_counter() - stream_start
        runs.append({"generate": generated - start, "decode": end - generated, "whole": end - start,
                     "firstChunk": first, "streamed": time.perf_counter() - stream_start})

    steps = chorus["steps"]

    def median(rows, key):
        return statistics.median(r[key] for r in rows)
    print(f"Chatterbox on the generated test models, {steps} tokens ({steps} decode steps after the prefill), "
          f"{chorus['samples']} samples; stream of {chorus['chunks']} chunks; {args.threads} threads, median of {args.runs} runs")
    print(f"{'':24}{'Chorus':>12}{'Python':>12}{'Chorus/Python':>15}")
    for key, label, scale in [("generate", "per decode step (ms)", 1000 / steps), ("decode", "decode (ms)", 1000),
                              ("whole", "whole (ms)", 1000), ("firstChunk", "first chunk (ms)", 1000),
                              ("streamed", "streamed (ms)", 1000)]:
        c, p = median(chorus["runs"], key) * scale, median(runs, key) * scale
        print(f"{label:24}{c:12.3f}{p:12.3f}{c / p:15.3f}")
    outside = (median(chorus["runs"], "generate") - median(chorus["runs"], "generateInRun")) * 1000 / steps
    print(f"Chorus per step outside Run (ms): {outside:.3f}")
    print(f"first chunk / whole stream: Chorus {median(chorus['runs'], 'firstChunk') / median(chorus['runs'], 'streamed'):.3f}, "
          f"Python {median(runs, 'firstChunk') / median(runs, 'streamed'):.3f}")


if __name__ == "__main__":
    main()
