#!/usr/bin/env python3
"""How far T3's logits move between the things that could run a golden of sampled tokens, on the committed
graphs and the goldens' own token sequences: what GoldenRun.leastMargin (1e-5 of a step's largest |logit|) must
stay above. Prints one row per comparison; writes nothing.

For each golden (hello, tags, capped, each chunk of chunked, the clip's speech), the language model's input as
Chorus feeds it (the voice's audio_features, the text ids and start-of-speech through embed_tokens.onnx, then each
drawn token's embedding), and every step's logits from:
  ort-1, ort-2   language_model.onnx in ONNX Runtime, prefill then one token per run with its cache (as Chorus runs
                 it), at 1 and 2 intra-op threads
  ort-plain      the same at 1 thread with every graph optimisation off (other kernels: no fusions)
  torch-32       T3's own modules (make_testdata.py's, the stop bias from golden/model.json), one pass over the
                 whole sequence, float32
  torch-64       the same modules in float64: the exact result any float32 run approximates
Each comparison is the largest |difference| of a step's logits over that step's largest |logit| (torch-64's), the
unit margins are measured in. Between CPUs nothing here runs two instruction sets; a float32 run on another CPU
lies about as far from float64 as these do, so two CPUs differ by at most about twice the float64 row.

Usage: python measure_bound.py   (make_testdata.py's environment; see requirements.lock)
"""
import json
import os
import sys

import numpy as np
import onnxruntime as ort
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_testdata as testdata  # noqa: E402

RESOURCES = os.path.normpath(testdata.OUT)


def load(path):
    with open(os.path.join(RESOURCES, path)) as f:
        return json.load(f)


def sequences():
    """(name, voice folder, text, tokens) of every golden of sampled tokens on the float32 graphs."""
    cases = [(name, "voice", load(f"golden/{name}.json")) for name in ("hello", "tags", "capped")]
    chunked = load("golden/chunked.json")
    cases += [(f"chunked {i + 1}", "voice", chunk) for i, chunk in enumerate(chunked["chunks"])]
    cases.append(("speech", "encoder", load("encoder/speech.json")))
    tokenizer = testdata.make_tokenizers()
    for name, voice, case in cases:
        ids = testdata.upstream_ids(tokenizer, case["text"])[0].tolist()
        yield name, voice, [i + testdata.SPEECH_VOCAB for i in ids] + [testdata.START_SPEECH], case["tokens"]


def inputs(embed, voice, ids, tokens):
    features = np.load(os.path.join(RESOURCES, voice, "audio_features.npy")).astype(np.float32)
    text = embed.run(None, {"input_ids": np.array([ids], np.int64)})[0]
    drawn = embed.run(None, {"input_ids": np.array([tokens[:-1]], np.int64)})[0] if len(tokens) > 1 else text[:, :0]
    return np.concatenate([features, text, drawn], 1), features.shape[1] + len(ids)


def run_onnx(path, x, prefill, threads, optimised=True):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    if not optimised:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(path, options)
    past = {i.name: np.zeros((1, testdata.HEADS, 0, testdata.WIDTH // testdata.HEADS), np.float32)
            for i in session.get_inputs() if i.name.startswith("past_key_values")}
    names = ["logits"] + [n.replace("past_key_values", "present") for n in past]
    rows, start = [], 0
    for end in [prefill] + list(range(prefill + 1, x.shape[1] + 1)):
        outputs = session.run(names, {"inputs_embeds": x[:, start:end], "attention_mask": np.ones((1, end), np.int64),
                                      "position_ids": np.arange(start, end, dtype=np.int64)[None], **past})
        past = dict(zip(past, outputs[1:]))
        rows.append(outputs[0][0, -1].astype(np.float64))
        start = end
    return np.stack(rows)


def run_torch(t3, x, prefill, dtype):
    model = t3.to(dtype)
    with torch.no_grad():
        hidden = model.tfmr(inputs_embeds=torch.from_numpy(x).to(dtype)).last_hidden_state
        logits = model.speech_head(hidden)[0, prefill - 1:]
    return logits.double().numpy()


def main():
    t3 = testdata.make_t3(len(testdata.make_tokenizers()))
    with torch.no_grad():
        t3.speech_head.bias[testdata.STOP_SPEECH] = load("golden/model.json")["stop_bias"]
    model = os.path.join(RESOURCES, "model")
    embed = ort.InferenceSession(os.path.join(model, "embed_tokens.onnx"))
    path = os.path.join(model, "language_model.onnx")
    comparisons = [("threads", "ort-1", "ort-2"), ("kernels", "ort-1", "ort-plain"), ("runtimes", "torch-32", "ort-1"),
                   ("runtimes", "torch-32", "ort-2"), ("float64", "torch-64", "ort-1"), ("float64", "torch-64", "ort-2"),
                   ("float64", "torch-64", "torch-32")]
    worst = {c: 0.0 for c in comparisons}
    for name, voice, ids, tokens in sequences():
        x, prefill = inputs(embed, voice, ids, tokens)
        runs = {"ort-1": run_onnx(path, x, prefill, 1), "ort-2": run_onnx(path, x, prefill, 2),
                "ort-plain": run_onnx(path, x, prefill, 1, optimised=False),
                "torch-32": run_torch(t3, x, prefill, torch.float32), "torch-64": run_torch(t3, x, prefill, torch.float64)}
        scale = np.abs(runs["torch-64"]).max(axis=1)
        row = []
        for comparison in comparisons:
            _, a, b = comparison
            change = (np.abs(runs[a] - runs[b]).max(axis=1) / scale).max()
            worst[comparison] = max(worst[comparison], change)
            row.append(f"{a} vs {b} {change:.2e}")
        print(f"{name} ({len(tokens)} steps): " + ", ".join(row))
    print("largest change of a step's logits, over its largest |logit|, on every golden:")
    for (kind, a, b), change in worst.items():
        print(f"  {kind:9} {a:9} vs {b:9} {change:.2e}")


if __name__ == "__main__":
    main()
