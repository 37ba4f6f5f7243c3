#!/usr/bin/env python3
"""Chorus's WeTextNormalizer against Python wetext on many generated texts, beyond the committed goldens.

Makes N seeded random Chinese and English texts full of numbers (integers, decimals, times, dates,
fractions, money, negatives, long numbers, units, separators), normalises them with wetext 0.1.8 on
kaldifst, and has WeTextBench normalise the ones Python can; prints how many outputs are equal.

  pip install wetext==0.1.8 kaldifst==1.8.3
  scripts/setup.sh && swift build -c release --product WeTextBench
  python3 bench/wetext_fuzz.py [--count 3000] [--seed 7]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

from wetext import Normalizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Where ChorusModels' ModelStore looks: CHORUS_MODELS, else an absolute XDG_CACHE_HOME or ~/.cache, + chorus/models.
_CACHE = os.environ.get("XDG_CACHE_HOME", "")
MODELS = os.environ.get("CHORUS_MODELS") or os.path.join(_CACHE if _CACHE.startswith("/") else os.path.expanduser("~/.cache"), "chorus/models")

ZH_WORDS = ["今天", "价格", "温度", "他", "我们", "会议", "增长了", "共有", "大约", "第", "电话", "时间", "比分", "面积",
            "重量", "收入"]
ZH_UNITS = ["年", "月", "日", "点", "分", "元", "块", "个", "人", "米", "公斤", "%", "℃", "km", "kg", "美元", "万", "亿",
            "号", "楼", ""]
EN_WORDS = ["I", "have", "the", "price", "is", "about", "on", "at", "meeting", "costs", "we", "ran", "call", "page",
            "and", "was"]
EN_UNITS = ["", "%", " km", " kg", " dollars", " pm", " am", "th", "st", "nd", " miles", "s", ".5", ",000"]
SEPARATORS = ["，", "。", "！", "？", "、", " ", "-", "/", ":", ".", ",", "~"]


def number(rng):
    k = rng.random()
    if k < 0.3:
        return str(rng.randint(0, 100))
    if k < 0.5:
        return str(rng.randint(100, 100000))
    if k < 0.6:
        return f"{rng.randint(0, 999)}.{rng.randint(0, 99)}"
    if k < 0.7:
        return f"{rng.randint(1, 12)}:{rng.randint(0, 59):02d}"
    if k < 0.8:
        return f"{rng.randint(1990, 2030)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if k < 0.85:
        return f"{rng.randint(1, 9)}/{rng.randint(2, 9)}"
    if k < 0.9:
        return rng.choice(["$", "¥", "￥", "€", "£"]) + str(rng.randint(1, 9999))
    if k < 0.95:
        return "-" + str(rng.randint(1, 500))
    return str(rng.randint(10**9, 10**11))


def text(rng):
    chinese = rng.random() < 0.55
    parts = []
    for _ in range(rng.randint(1, 6)):
        if chinese:
            parts.append(rng.choice(ZH_WORDS))
            if rng.random() < 0.7:
                parts.append(number(rng) + rng.choice(ZH_UNITS))
            parts.append(rng.choice(SEPARATORS) if rng.random() < 0.5 else "")
        else:
            parts.append(rng.choice(EN_WORDS) + " ")
            if rng.random() < 0.6:
                parts.append(number(rng) + rng.choice(EN_UNITS) + " ")
            if rng.random() < 0.3:
                parts.append(rng.choice(SEPARATORS))
    return "".join(parts)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    normalizer = Normalizer(remove_erhua=False)
    cases, failures = [], 0
    for _ in range(args.count):
        item = {"text": text(rng)}
        try:
            item["normalized"] = normalizer.normalize(item["text"])
        except AssertionError:  # wetext's tagger has no path for the text
            failures += 1
        cases.append(item)
    binary = os.path.join(ROOT, ".build", "release", "WeTextBench")
    if not os.path.exists(binary):
        sys.exit(f"{binary} is missing: run `swift build -c release --product WeTextBench` first")
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
        json.dump({"cases": cases}, f, ensure_ascii=False)
        f.flush()
        result = json.loads(subprocess.run([binary, os.path.join(MODELS, "wetext"), f.name, "1"], check=True,
                                           capture_output=True, text=True).stdout)
    print(f"{args.count} texts, seed {args.seed}: Python failed on {failures}; "
          f"Chorus equal to wetext on {result['equal']} of {result['texts']}")


if __name__ == "__main__":
    main()
