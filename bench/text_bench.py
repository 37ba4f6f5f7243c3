#!/usr/bin/env python3
"""Tokenizer encode throughput, Chorus (Swift) beside Hugging Face `tokenizers` (Rust), one thread each.

Both encode every document of Tests/TextTestData/corpus.txt one call at a time, several passes, and the
best pass counts. Both also check that they produce the same number of tokens.

  pip install tokenizers==0.23.3
  swift build -c release --product TextBench
  python3 bench/text_bench.py [--repeats 5]
"""
import argparse
import json
import os
import subprocess
import sys
import time

os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "Tests", "TextTestData")
sys.path.insert(0, os.path.join(ROOT, "scripts", "testdata"))
from make_tokenizer_golden import reference  # noqa: E402


def bench_tokenizers(name, documents, repeats):
    start = time.perf_counter()
    tokenizer = reference(os.path.join(DATA, name), name)
    load = time.perf_counter() - start
    best, tokens = float("inf"), 0
    for _ in range(repeats):
        start = time.perf_counter()
        tokens = sum(len(tokenizer.encode(d).ids) for d in documents)
        best = min(best, time.perf_counter() - start)
    return tokens, best, load


def bench_chorus(name, repeats):
    binary = os.path.join(ROOT, ".build", "release", "TextBench")
    if not os.path.exists(binary):
        sys.exit(f"{binary} is missing: run `swift build -c release --product TextBench` first")
    output = subprocess.run([binary, os.path.join(DATA, name), os.path.join(DATA, "corpus.txt"), str(repeats)],
                            check=True, capture_output=True, text=True).stdout
    result = json.loads(output)
    return result["tokens"], result["seconds"], result["load_seconds"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with open(os.path.join(DATA, "corpus.txt"), encoding="utf-8", newline="") as f:
        documents = f.read().split("\x1e")
    size = sum(len(d.encode("utf-8")) for d in documents)
    print(f"corpus: {len(documents)} documents, {size / 1e6:.2f} MB; single thread, best of {args.repeats}")
    print(f"{'tokenizer':<10}{'Chorus MB/s':>14}{'tokenizers MB/s':>18}{'ratio':>8}"
          f"{'Chorus load s':>16}{'tokenizers load s':>19}{'load ratio':>12}")
    for name in ("qwen2", "gpt2"):
        chorus_tokens, chorus_seconds, chorus_load = bench_chorus(name, args.repeats)
        hf_tokens, hf_seconds, hf_load = bench_tokenizers(name, documents, args.repeats)
        if chorus_tokens != hf_tokens:
            sys.exit(f"{name}: Chorus made {chorus_tokens} tokens, tokenizers {hf_tokens}")
        chorus_rate, hf_rate = size / chorus_seconds / 1e6, size / hf_seconds / 1e6
        print(f"{name:<10}{chorus_rate:>14.2f}{hf_rate:>18.2f}{chorus_rate / hf_rate:>7.2f}x"
              f"{chorus_load:>16.3f}{hf_load:>19.3f}{chorus_load / hf_load:>11.2f}x")


if __name__ == "__main__":
    main()
