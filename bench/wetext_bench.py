#!/usr/bin/env python3
"""wetext text normalisation, Chorus (Swift, no Python) beside wetext 0.1.8 on kaldifst (C++), one thread each.

Both normalise every text of Tests/TextTestData/wetext/normalize.golden.json that Python can normalise,
one call at a time, several passes, and the best pass counts; both check their outputs against the
golden. Load time is the time to make a ready normaliser: for Chorus, reading the four grammars
(Chinese and English tagger and verbalizer); for Python, importing wetext (which reads every grammar of
the wheel, as any user pays) and constructing `Normalizer(remove_erhua=False)`, in a fresh process,
and, for a like-for-like figure, kaldifst reading just the same four files.

  pip install wetext==0.1.8 kaldifst==1.8.3
  scripts/setup.sh                      # installs the grammars into $CHORUS_MODELS/wetext
  swift build -c release --product WeTextBench
  python3 bench/wetext_bench.py [--repeats 5]
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "Tests", "TextTestData", "wetext", "normalize.golden.json")
# Where ChorusModels' ModelStore looks: CHORUS_MODELS, else an absolute XDG_CACHE_HOME or ~/.cache, + chorus/models.
_CACHE = os.environ.get("XDG_CACHE_HOME", "")
MODELS = os.environ.get("CHORUS_MODELS") or os.path.join(_CACHE if _CACHE.startswith("/") else os.path.expanduser("~/.cache"), "chorus/models")

# The same four grammars alone, read by kaldifst as wetext reads each of its graphs.
LOAD_FOUR = """
import sys, time
import kaldifst
start = time.perf_counter()
for name in ("zh/tn/tagger.fst", "zh/tn/verbalizer.fst", "en/tn/tagger.fst", "en/tn/verbalizer.fst"):
    kaldifst.TextNormalizer(sys.argv[1] + "/" + name)
print(time.perf_counter() - start)
"""

LOAD_PYTHON = """
import time
start = time.perf_counter()
from wetext import Normalizer
normalizer = Normalizer(remove_erhua=False)
normalizer.normalize("1")
print(time.perf_counter() - start)
"""


def bench_python(texts, expected, repeats):
    load = float(subprocess.run([sys.executable, "-c", LOAD_PYTHON], check=True, capture_output=True,
                                text=True).stdout)
    four = float(subprocess.run([sys.executable, "-c", LOAD_FOUR, os.path.join(MODELS, "wetext")], check=True,
                                capture_output=True, text=True).stdout)
    from wetext import Normalizer
    normalizer = Normalizer(remove_erhua=False)
    best, equal = float("inf"), 0
    for _ in range(repeats):
        start = time.perf_counter()
        outputs = [normalizer.normalize(t) for t in texts]
        best = min(best, time.perf_counter() - start)
        equal = sum(o == e for o, e in zip(outputs, expected))
    return best, load, four, equal


def bench_chorus(repeats):
    binary = os.path.join(ROOT, ".build", "release", "WeTextBench")
    if not os.path.exists(binary):
        sys.exit(f"{binary} is missing: run `swift build -c release --product WeTextBench` first")
    output = subprocess.run([binary, os.path.join(MODELS, "wetext"), GOLDEN, str(repeats)],
                            check=True, capture_output=True, text=True).stdout
    result = json.loads(output)
    return result["seconds"], result["load_seconds"], result["equal"], result["texts"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with open(GOLDEN, encoding="utf-8") as f:
        cases = [c for c in json.load(f)["cases"] if "normalized" in c]
    texts = [c["text"] for c in cases]
    expected = [c["normalized"] for c in cases]
    chorus_seconds, chorus_load, chorus_equal, chorus_texts = bench_chorus(args.repeats)
    python_seconds, python_load, python_four, python_equal = bench_python(texts, expected, args.repeats)
    assert chorus_texts == len(texts)
    per = lambda seconds: seconds / len(texts) * 1e3  # noqa: E731
    print(f"{len(texts)} texts (Chinese and English), single thread, best of {args.repeats}")
    print(f"{'':<22}{'Chorus':>10}{'wetext':>10}{'ratio':>8}")
    print(f"{'ms per text':<22}{per(chorus_seconds):>10.3f}{per(python_seconds):>10.3f}"
          f"{python_seconds / chorus_seconds:>8.2f}")
    print(f"{'load s (import)':<22}{chorus_load:>10.3f}{python_load:>10.3f}{python_load / chorus_load:>8.2f}")
    print(f"{'load s (same 4 files)':<22}{chorus_load:>10.3f}{python_four:>10.3f}{python_four / chorus_load:>8.2f}")
    print(f"{'outputs = golden':<22}{chorus_equal:>10}{python_equal:>10}")
    print("ratio = wetext time / Chorus time (above 1: Chorus is faster)")


if __name__ == "__main__":
    main()
