#!/usr/bin/env python3
"""NeuTTS's GGUF sampling chain from llama.cpp's own samplers (Tests/ChorusNeuTTSTests/Resources/llama/sampler.json).

upstream neutts runs its GGUF backbone through llama-cpp-python's create_completion with temperature 1.0 and
top_k 50; llama-cpp-python's Llama._init_sampler then chains llama.cpp's samplers: penalties (repeat 1.0: none),
top-k 50, typical 1.0 (none), top-p 0.95, min-p 0.05 (min_keep 1), temperature 1.0, dist(seed). This runs those
samplers themselves (llama-cpp-python's low-level API, llama_sampler_apply on a llama_token_data_array of given
logits) one after another, and records for each case the candidates after every stage (ids in llama.cpp's order),
the probabilities dist normalises, and the token it draws.

The draw: dist takes one uniform from std::mt19937(seed) through std::uniform_real_distribution<double> (libstdc++:
two 32-bit outputs, (first + second * 2**32) / 2**64) and picks the first candidate whose running sum of
probabilities reaches uniform * total. Chorus draws its uniform from SplitMix64, so its random stream cannot equal
llama.cpp's; the generator records the uniform (reproduced here from numpy's MT19937 and checked against dist's
choice), so a test can compare the stages exactly and apply the same uniform to Chorus's probabilities.

Margins (as scripts/testdata/draw_margins.py measures them, in units of the largest |logit| M: a relative
perturbation e moves a logit by at most e M, a gap or a cumulative probability by at most 2 e M): top_k the gap
between the 50th and 51st logits; top_p the distance of the nearest cumulative probability tested from 0.95;
min_p the distance of the nearest candidate's logit from the cut (largest + ln 0.05); draw the uniform's distance
from the chosen token's cumulative bounds; each / 2M. Each case's logits come from the first seed whose margins all
keep THRESHOLD, so Chorus's float64 sums (llama.cpp's are float32) cannot change a cut or the draw.

Needs llama-cpp-python 0.3.36 (PyPI; no binary wheel there: built from its sdist) and numpy. Deterministic.
"""
import ctypes
import json
import math
import os

import numpy as np
import llama_cpp

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "..", "Tests", "ChorusNeuTTSTests", "Resources", "llama")
VOCABULARY = 1024
TOP_K, TYPICAL_P, TOP_P, MIN_P, TEMPERATURE = 50, 1.0, 0.95, 0.05, 1.0
THRESHOLD = 1e-5
# Flat, middling and peaked logits: top-p cuts little, some, or min-p does the cutting.
SCALES = {"flat": 1.0, "middling": 3.0, "peaked": 6.0}


def stages():
    """llama-cpp-python's chain for neutts' arguments, as separate samplers so each stage's output can be read."""
    return [("penalties", llama_cpp.llama_sampler_init_penalties(VOCABULARY, 64, 1.0, 0.0, 0.0)),
            ("top_k", llama_cpp.llama_sampler_init_top_k(TOP_K)),
            ("typical", llama_cpp.llama_sampler_init_typical(TYPICAL_P, 1)),
            ("top_p", llama_cpp.llama_sampler_init_top_p(TOP_P, 1)),
            ("min_p", llama_cpp.llama_sampler_init_min_p(MIN_P, 1)),
            ("temp", llama_cpp.llama_sampler_init_temp(TEMPERATURE))]


def mt19937_uniform(seed):
    raw = np.random.RandomState(seed)._bit_generator.random_raw(2)
    return (int(raw[0]) + int(raw[1]) * 2**32) / 2**64


def run(logits, seed):
    data = (llama_cpp.llama_token_data * len(logits))()
    for i, value in enumerate(logits):
        data[i].id, data[i].logit, data[i].p = i, float(value), 0.0
    array = llama_cpp.llama_token_data_array(data, len(logits), -1, False)
    after = {}
    for name, sampler in stages():
        llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
        after[name] = [data[i].id for i in range(array.size)]
        llama_cpp.llama_sampler_free(sampler)
    kept = [(data[i].id, data[i].logit) for i in range(array.size)]
    dist = llama_cpp.llama_sampler_init_dist(seed)
    llama_cpp.llama_sampler_apply(dist, ctypes.byref(array))
    llama_cpp.llama_sampler_free(dist)
    probabilities = [data[i].p for i in range(array.size)]
    return after, kept, probabilities, data[array.selected].id


def margins(logits, kept, uniform):
    l = np.asarray(logits, np.float64)
    m = np.abs(l).max()
    ranked = np.sort(l)[::-1]
    out = {"top_k": (ranked[TOP_K - 1] - ranked[TOP_K]) / (2 * m)}
    top = ranked[:TOP_K]
    p = np.exp(top - top[0]); p /= p.sum()
    cumulative = np.cumsum(p)
    crossing = int(np.argmax(cumulative >= TOP_P))
    out["top_p"] = np.abs(cumulative[:crossing + 1] - TOP_P).min() / (2 * m)
    survivors = top[:crossing + 1]
    cut = survivors[0] + math.log(MIN_P)
    out["min_p"] = np.abs(survivors - cut).min() / (2 * m)
    values = np.array([v for _, v in kept], np.float64)
    w = np.exp(values - values.max())
    running = np.cumsum(w)
    target = uniform * running[-1]
    chosen = int(np.argmax(running >= target))
    before = running[chosen - 1] if chosen else 0.0
    out["draw"] = min(target - before, running[chosen] - target) / running[-1] / (2 * m)
    return {k: float(v) for k, v in out.items()}, chosen


def main():
    llama_cpp.llama_backend_init()
    cases = {}
    for (name, scale), start in zip(SCALES.items(), (100, 200, 300)):
        for seed in range(start, start + 1000):
            logits = (scale * np.random.default_rng(seed).standard_normal(VOCABULARY)).astype(np.float32)
            after, kept, probabilities, token = run(logits, seed)
            uniform = mt19937_uniform(seed)
            found, chosen = margins(logits, kept, uniform)
            assert kept[chosen][0] == token, f"{name} seed {seed}: dist's choice is not the mt19937 uniform's"
            if min(found.values()) >= THRESHOLD:
                break
        else:
            raise SystemExit(f"{name}: no seed keeps the margins")
        print(f"{name}: seed {seed}, candidates {[len(after[s]) for s, _ in stages()]}, token {token}, "
              f"least margin {min(found.values()):.2e} ({min(found, key=found.get)})")
        cases[name] = {"seed": seed, "logits": [float(v) for v in logits],
                       "afterStage": after, "probabilities": [float(f"{p:.9g}") for p in probabilities],
                       "uniform": uniform, "token": token, "margins": {k: float(f"{v:.4g}") for k, v in found.items()}}
    os.makedirs(OUT, exist_ok=True)
    golden = {"upstream": {"llama-cpp-python": llama_cpp.__version__, "numpy": np.__version__},
              "chain": {"top_k": TOP_K, "typical_p": TYPICAL_P, "top_p": TOP_P, "min_p": MIN_P, "temperature": TEMPERATURE,
                        "penalty_repeat": 1.0},
              "threshold": THRESHOLD, "cases": cases}
    with open(os.path.join(OUT, "sampler.json"), "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
