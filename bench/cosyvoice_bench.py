#!/usr/bin/env python3
"""Chorus's CosyVoice pipeline against the Python reference (numpy + onnxruntime), side by side in one run.

Both run the same ONNX files, the same voice, the same token ids and seeds (so the same tokens are
drawn), with the same intra-op thread count, and are timed stage by stage: LLM (prefill, decode loop,
sampling), flow (10 Euler steps through the batch-2 estimator), vocoder (HiFT with STFT/iSTFT), whole,
and streamed (time to the first chunk and to the last). Chorus also reports the time spent inside
ONNX Runtime's Run, so the time its own code adds is visible ("outside").

By default it runs on the generated test models (Tests/ChorusCosyVoiceTests/Resources): tiny networks, so
the numbers measure the code around the models far more than the models. Pass --model and --voice
for a real export folder and voice.

    swift build -c release --product CosyVoiceBench
    python3 bench/cosyvoice_bench.py [--threads 2] [--runs 3] [--model DIR --voice DIR]

Memory over a long decode (resident memory every 250 steps against the KV cache's own growth):

    .build/release/CosyVoiceBench --model Tests/ChorusCosyVoiceTests/Resources/model \
        --voice Tests/ChorusCosyVoiceTests/Resources/voice --case Tests/ChorusCosyVoiceTests/Resources/golden/case.json \
        --decode-steps 2000

The second piece of a request with the hop restarted at 25 (Chorus) and carried on from the first piece
(upstream), time to its first audio and to its end:

    .build/release/CosyVoiceBench --model Tests/ChorusCosyVoiceTests/Resources/model \
        --voice Tests/ChorusCosyVoiceTests/Resources/voice --case Tests/ChorusCosyVoiceTests/Resources/golden/case.json \
        --hop-across-pieces --runs 15
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts" / "testdata" / "cosyvoice"))
import reference as ref  # noqa: E402

RESOURCES = ROOT / "Tests" / "ChorusCosyVoiceTests" / "Resources"


def read_voice(folder):
    folder = Path(folder)
    mel_bytes = (folder / "prompt_mel.bin").read_bytes()
    frames = int(np.frombuffer(mel_bytes[:4], "<i4")[0])
    return {
        "embedding": np.fromfile(folder / "speaker_embedding.bin", "<f4"),
        "tokens": [int(t) for t in np.fromfile(folder / "prompt_tokens.bin", "<i8")],
        "mel": np.frombuffer(mel_bytes[4:], "<f4").reshape(frames, 80),
        "text": (folder / "prompt_text.txt").read_text(encoding="utf-8"),
    }


def python_runs(model, voice, case, threads, runs):
    models = ref.Models(str(model), threads)
    prompt_tokens, prompt_mel = ref.align_prompt(voice["tokens"], voice["mel"])

    def whole():
        start = time.perf_counter()
        raw = ref.llm_tokens(models, case["promptTextTokens"], case["textTokens"], prompt_tokens,
                             ref.SplitMix64(case["samplingSeed"]))
        after_llm = time.perf_counter()
        tokens = ref.drop_long_silences(raw)
        mel = ref.flow_mel(models, tokens, prompt_tokens, prompt_mel, voice["embedding"], case["noiseSeed"])
        after_flow = time.perf_counter()
        audio = ref.vocode(models, mel)
        end = time.perf_counter()
        return {"llm": after_llm - start, "flow": after_flow - after_llm, "vocoder": end - after_flow,
                "whole": end - start, "tokens": len(tokens), "audioSeconds": len(audio) / 24000}

    def streamed():
        start = time.perf_counter()
        first = []
        ref.synthesize_streaming(models, case["promptTextTokens"], case["textTokens"], voice, case["samplingSeed"],
                                 case["noiseSeed"], on_chunk=lambda _: first or first.append(time.perf_counter() - start))
        return first[0], time.perf_counter() - start

    whole()  # warm-up, as the Swift side does
    results = []
    for _ in range(runs):
        run = whole()
        run["firstChunk"], run["streamed"] = streamed()
        results.append(run)
    return results


def median(runs, key):
    return statistics.median(run[key] for run in runs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", default=str(RESOURCES / "model"))
    parser.add_argument("--voice", default=str(RESOURCES / "voice"))
    parser.add_argument("--case", default=str(RESOURCES / "golden" / "case.json"))
    parser.add_argument("--bench", default=str(ROOT / ".build/release/CosyVoiceBench"))
    args = parser.parse_args()
    if not Path(args.bench).exists():
        sys.exit(f"{args.bench} missing: swift build -c release --product CosyVoiceBench")

    case = json.loads(Path(args.case).read_text())
    result = subprocess.run([args.bench, "--model", args.model, "--voice", args.voice, "--case", args.case,
                             "--threads", str(args.threads), "--runs", str(args.runs)],
                            check=True, capture_output=True, text=True)
    chorus = json.loads(result.stdout)
    python = python_runs(args.model, read_voice(args.voice), case, args.threads, args.runs)

    print(f"CosyVoice 3 pipeline, {args.model}; {args.threads} intra-op threads; median of {args.runs} runs after "
          f"one warm-up; {chorus['tokens']} speech tokens, {chorus['audioSeconds']:.2f} s of audio")
    print(f"{'stage':22} {'Chorus s':>9} {'in Run':>8} {'outside':>8} {'Python s':>9} {'Python/Chorus':>14}")
    for key, label in (("llm", "LLM (prefill + decode)"), ("flow", "flow (10 Euler, CFG)"),
                       ("vocoder", "vocoder (HiFT)"), ("whole", "whole utterance"),
                       ("firstChunkInTurn", "first chunk, in turn"), ("streamedInTurn", "streamed, in turn"),
                       ("firstChunk", "first chunk, overlap"), ("streamed", "streamed, overlap")):
        # The reference streams with its stages in turn; Chorus's overlap (LLM in its own executor job) is set beside it.
        c, p = median(chorus["runs"], key), median(python, key.replace("InTurn", ""))
        in_run = {"llm": "llmInRun", "flow": "flowInRun", "vocoder": "vocoderInRun", "whole": "inRun",
                  "streamedInTurn": "streamInRun"}.get(key)
        if in_run:
            r = median(chorus["runs"], in_run)
            print(f"{label:22} {c:9.4f} {r:8.4f} {100 * (c - r) / c:7.1f}% {p:9.4f} {p / c:14.2f}")
        else:
            print(f"{label:22} {c:9.4f} {'':8} {'':8} {p:9.4f} {p / c:14.2f}")
    whole, in_run = median(chorus["runs"], "whole"), median(chorus["runs"], "inRun")
    print(f"Chorus inside Run: {in_run:.4f} s of {whole:.4f} s ({chorus['runs'][0]['runCalls']} calls); "
          f"outside Run: {100 * (whole - in_run) / whole:.1f}%")
    if "steps" in chorus:
        llm, llm_in = median(chorus["runs"], "llm"), median(chorus["runs"], "llmInRun")
        steps = chorus["steps"]
        print(f"Chorus LLM per decode step ({steps} steps, 3 runs each): {1e6 * llm_in / steps:.1f} us in Run, "
              f"{1e6 * (llm - llm_in) / steps:.1f} us outside")
    print(f"Chorus streamed with the LLM in its own job / in turn: "
          f"{median(chorus['runs'], 'streamed') / median(chorus['runs'], 'streamedInTurn'):.2f}")
    print(f"Chorus first chunk / whole: {median(chorus['runs'], 'firstChunk') / whole:.2f}; "
          f"RTF whole {whole / chorus['audioSeconds']:.3f}")
    if python[0]["tokens"] != chorus["tokens"]:
        print(f"  note: token counts differ (Chorus {chorus['tokens']}, Python {python[0]['tokens']})")


if __name__ == "__main__":
    main()
