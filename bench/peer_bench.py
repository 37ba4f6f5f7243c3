#!/usr/bin/env python3
"""Chorus beside the Python TTS packages users choose between, on the same model files and texts.

Peers, installed from PyPI into a virtual environment of their own (created on first use):
  piper-tts 1.8.0 (the `piper` command, Piper voices), kokoro-onnx 0.6.1 (a few-line script), both on
  onnxruntime 1.32.0, the ONNX Runtime version Chorus's scripts/setup.sh pins; piper-phonemize 1.1.0
  (the front end the Piper voices were trained with) for the phoneme ids only.
  sherpa-onnx is not run yet: since 2.0 it no longer phonemizes with espeak-ng (its data_dir option
  reads "Ignored since v2.0.0: espeak-ng is no longer used. Use lexicon, or
  GenerationConfig.phoneme_codepoints / tokens with an external phonemizer instead"), so it needs
  another front end's tokens fed in; that comparison is still to be written.
Models: Chorus's installed Kokoro int8 ($CHORUS_MODELS/kokoro) and Piper en_US-joe-medium.

Each tool runs as its own process, from process start to a finished WAV file, which is what a user
waits for: `chorus speak`, `piper -m ... -f`, and a kokoro-onnx script. Runs are interleaved
(Chorus, peer, Chorus, peer, ...) over several rounds, so a busy machine slows both alike. Reported
per tool: min and median wall time, CPU time (user + system of the process), real-time factor
(wall / audio seconds) and Chorus's median wall time over the peer's. kokoro-onnx trims each
piece's silence by default, which makes its audio shorter; it runs with trim=False here, so the
audio lengths agree. piper-tts runs with --sentence-silence 0.2, Chorus's pause between sentences;
piper-tts puts it only between the sentences of one input line (its lines_to_wav writes it before
each chunk after a line's first), so it reads the text joined into one line, as Chorus reads it.

Then the audio of each sentence on its own, Chorus beside piper-tts's Python API, on a copy of the
Piper voice with its noise scales set to 0 (the graph draws random noise for the durations, which
would make two runs of either tool differ in length), reported as each sentence's length ratio.

Then the front ends, sentence by sentence (a line of the text each): the Piper phoneme ids of
Chorus, piper-phonemize and piper-tts (piper-tts bundles espeak-ng 1.52, which reads some words
differently from the 1.51 that Debian and piper-phonemize have), and the Kokoro ids of Chorus and kokoro-onnx (which
differ: kokoro-onnx feeds espeak-ng's IPA letters as they are, Chorus rewrites them into misaki's
symbols, as the voices were trained).

    swift build -c release --product chorus --product chorus-bench
    python3 bench/peer_bench.py [--venv DIR] [--rounds 5] [--text bench/peer_text.txt]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = Path(os.environ.get("CHORUS_MODELS", Path.home() / ".cache/chorus/models"))
PIPER_MODEL = MODELS / "piper/en_US-joe-medium.onnx"
KOKORO = MODELS / "kokoro"
PEERS = ["piper-tts==1.8.0", "kokoro-onnx==0.6.1", "onnxruntime==1.32.0", "piper-phonemize==1.1.0"]
KOKORO_VOICE = "jf_alpha"

KOKORO_SCRIPT = """
import sys, json, numpy as np, wave
from kokoro_onnx import Kokoro
kokoro = Kokoro(sys.argv[1] + "/kokoro-v1.0.int8.onnx", sys.argv[1] + "/voices_ja.npz",
                vocab_config=sys.argv[1] + "/vocab.json")
text = open(sys.argv[2], encoding="utf-8").read()
audio, rate = kokoro.create(text, voice=sys.argv[4], speed=1.0, lang="en-us", trim=False)
pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2")
with wave.open(sys.argv[3], "wb") as f:
    f.setnchannels(1); f.setsampwidth(2); f.setframerate(rate); f.writeframes(pcm.tobytes())
"""

KOKORO_IDS = """
import sys, json
from kokoro_onnx import Kokoro
kokoro = Kokoro(sys.argv[1] + "/kokoro-v1.0.int8.onnx", sys.argv[1] + "/voices_ja.npz",
                vocab_config=sys.argv[1] + "/vocab.json")
out = []
for line in open(sys.argv[2], encoding="utf-8").read().splitlines():
    if line.strip():
        phonemes = " ".join(kokoro.tokenizer.phonemize(line, "en-us").split())
        out.append({"phonemes": phonemes, "ids": kokoro.tokenizer.tokenize(phonemes, limit=None)})
print(json.dumps(out, ensure_ascii=False))
"""

PIPER_IDS = """
import sys, json
import piper_phonemize
from piper import PiperVoice
voice = PiperVoice.load(sys.argv[1])
tts, phonemize = [], []
for line in open(sys.argv[2], encoding="utf-8").read().splitlines():
    if line.strip():
        tts.append([voice.phonemes_to_ids(s) for s in voice.phonemize(line) if s])
        phonemize.append([piper_phonemize.phoneme_ids_espeak(s)
                          for s in piper_phonemize.phonemize_espeak(line, "en-us") if s])
print(json.dumps({"piper-tts": tts, "piper-phonemize": phonemize}))
"""


PIPER_SECONDS = """
import sys, json
from piper import PiperVoice
voice = PiperVoice.load(sys.argv[1])
out = []
for line in open(sys.argv[2], encoding="utf-8").read().splitlines():
    if line.strip():
        chunks = list(voice.synthesize(line))
        # 0.2 s between a line's sentences, as `piper --sentence-silence 0.2` and Chorus put it.
        silence = int(chunks[0].sample_rate * 0.2) * (len(chunks) - 1)
        out.append((sum(len(c.audio_int16_bytes) // 2 for c in chunks) + silence) / chunks[0].sample_rate)
print(json.dumps(out))
"""


def ensure_venv(venv):
    python = venv / "bin/python"
    marker = venv / ".chorus-peers"
    if marker.exists() and marker.read_text() == "\n".join(PEERS):
        return python
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *PEERS], check=True)
    marker.write_text("\n".join(PEERS))
    return python


def run_timed(command, env=None):
    """Wall and CPU seconds of one child process, run to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {result.stderr.strip()[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def wav_seconds(path):
    with wave.open(str(path)) as f:
        return f.getnframes() / f.getframerate()


def one_line(text_file, out_dir):
    """The text of `text_file` joined into one line, written beside the outputs."""
    joined = out_dir / f"one-line-{text_file.name}"
    joined.write_text(" ".join(text_file.read_text(encoding="utf-8").split()) + "\n", encoding="utf-8")
    return joined


def tools(engine, python, text_file, out_dir, chorus):
    """(name, command, output file) of each tool for one engine."""
    if engine == "piper":
        return [
            ("chorus", [str(chorus), "speak", "--engine", "piper", "--file", str(text_file), "-o", str(out_dir / "chorus-piper.wav")],
             out_dir / "chorus-piper.wav"),
            ("piper-tts", [str(python), "-m", "piper", "-m", str(PIPER_MODEL), "-f", str(out_dir / "piper-tts.wav"),
                           "--input-file", str(one_line(text_file, out_dir)), "--sentence-silence", "0.2"],
             out_dir / "piper-tts.wav"),
        ]
    return [
        ("chorus", [str(chorus), "speak", "--engine", "kokoro", "--voice", KOKORO_VOICE, "--file", str(text_file),
                    "-o", str(out_dir / "chorus-kokoro.wav")],
         out_dir / "chorus-kokoro.wav"),
        ("kokoro-onnx", [str(python), "-c", KOKORO_SCRIPT, str(KOKORO), str(text_file), str(out_dir / "kokoro-onnx.wav"), KOKORO_VOICE],
         out_dir / "kokoro-onnx.wav"),
    ]


def bench(engine, python, text_file, rounds, chorus, out_dir):
    entries = tools(engine, python, text_file, out_dir, chorus)
    walls = {name: [] for name, _, _ in entries}
    cpus = {name: [] for name, _, _ in entries}
    audio = {}
    for _ in range(rounds):
        for name, command, output in entries:
            wall, cpu = run_timed(command)
            walls[name].append(wall)
            cpus[name].append(cpu)
            audio[name] = wav_seconds(output)
    chorus_median = statistics.median(walls["chorus"])
    rows = []
    for name, _, _ in entries:
        median = statistics.median(walls[name])
        rows.append({
            "tool": name, "wall_min": min(walls[name]), "wall_median": median,
            "cpu_median": statistics.median(cpus[name]), "audio_seconds": audio[name],
            "rtf": median / audio[name], "chorus_over_tool": chorus_median / median,
        })
    return rows


def print_rows(title, rows):
    print(f"\n{title}")
    print(f"{'tool':<12} {'wall min':>9} {'wall med':>9} {'cpu med':>8} {'audio s':>8} {'RTF':>6} {'Chorus/tool':>12}")
    for row in rows:
        print(f"{row['tool']:<12} {row['wall_min']:9.2f} {row['wall_median']:9.2f} {row['cpu_median']:8.2f} "
              f"{row['audio_seconds']:8.2f} {row['rtf']:6.3f} {row['chorus_over_tool']:12.3f}")


def noiseless_piper_voice(folder):
    """A copy of the Piper voice (the .onnx linked) whose config sets both noise scales to 0."""
    model = Path(folder) / PIPER_MODEL.name
    model.symlink_to(PIPER_MODEL)
    config = json.loads(Path(str(PIPER_MODEL) + ".json").read_text(encoding="utf-8"))
    config.setdefault("inference", {}).update({"noise_scale": 0.0, "noise_w": 0.0})
    Path(str(model) + ".json").write_text(json.dumps(config), encoding="utf-8")
    return model


def compare_piper_lengths(python, text_file, chorus):
    """Each sentence's audio length, Chorus over piper-tts, on the noiseless voice."""
    lines = [line for line in text_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as folder:
        model = noiseless_piper_voice(folder)
        peer = json.loads(subprocess.run([str(python), "-c", PIPER_SECONDS, str(model), str(text_file)],
                                         check=True, capture_output=True, text=True).stdout)
        ours = []
        # A voice in a folder about to be removed: no optimised graph is kept for it in the user's store.
        environment = dict(os.environ, CHORUS_OPTIMIZED_MODELS="off")
        for index, line in enumerate(lines):
            output = Path(folder) / f"line-{index}.wav"
            subprocess.run([str(chorus), "speak", "--engine", "piper", "--model", str(model), line, "-o", str(output)],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
            ours.append(wav_seconds(output))
    ratios = [a / b for a, b in zip(ours, peer)]
    within = sum(1 for r in ratios if abs(r - 1) <= 0.02)
    print(f"\nPiper audio per sentence, Chorus/piper-tts, noise scales 0: {within}/{len(lines)} within 2%, "
          f"ratios {min(ratios):.4f} to {max(ratios):.4f}, total {sum(ours):.2f} s vs {sum(peer):.2f} s")
    for line, a, b in zip(lines, ours, peer):
        if abs(a / b - 1) > 0.02:
            print(f"  {a:.3f} s vs {b:.3f} s: {line!r}")


def compare_front_ends(python, text_file, bench_binary):
    with tempfile.TemporaryDirectory() as folder:
        ours = {}
        for engine in ["piper", "kokoro"]:
            path = Path(folder) / f"{engine}.json"
            subprocess.run([str(bench_binary), "--engine", engine, "--text-file", str(text_file), "--ids-per-line", str(path)],
                           check=True, stdout=subprocess.DEVNULL)
            ours[engine] = json.loads(path.read_text())
    piper = json.loads(subprocess.run([str(python), "-c", PIPER_IDS, str(PIPER_MODEL), str(text_file)],
                                      check=True, capture_output=True, text=True).stdout)
    kokoro = json.loads(subprocess.run([str(python), "-c", KOKORO_IDS, str(KOKORO), str(text_file)],
                                       check=True, capture_output=True, text=True).stdout)
    lines = [line for line in text_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts = {}
    for peer, version in [("piper-phonemize", "1.1.0, espeak-ng 1.51 fork"), ("piper-tts", "1.8.0, espeak-ng 1.52.0.1")]:
        equal = sum(1 for a, b in zip(ours["piper"], piper[peer]) if a == b)
        counts[peer] = equal
        print(f"\nPiper phoneme ids, Chorus vs {peer} ({version}): {equal}/{len(lines)} sentences equal")
        for line, a, b in zip(lines, ours["piper"], piper[peer]):
            if a != b:
                print(f"  differs: {line!r}\n    chorus {a}\n    {peer} {b}")
    kokoro_equal = sum(1 for a, b in zip(ours["kokoro"], kokoro) if sum(a, []) == b["ids"])
    print(f"Kokoro phoneme ids, Chorus vs kokoro-onnx 0.6.1: {kokoro_equal}/{len(lines)} sentences equal "
          "(kokoro-onnx writes espeak-ng's letters as they are: aɪ, eɪ, oʊ, dʒ, tʃ, ɚ, ː, ɾ stay; Chorus writes "
          "misaki's I, A, O, ʤ, ʧ, əɹ, no length marks, T, as Kokoro was trained)")
    return counts, kokoro_equal, len(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, default=Path(tempfile.gettempdir()) / "chorus-peer-bench")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--text", type=Path, default=ROOT / "bench/peer_text.txt")
    parser.add_argument("--engines", default="piper,kokoro")
    args = parser.parse_args()

    chorus = ROOT / ".build/release/chorus"
    bench_binary = ROOT / ".build/release/chorus-bench"
    for binary in [chorus, bench_binary]:
        if not binary.exists():
            sys.exit(f"{binary} is missing; build it with `swift build -c release --product chorus --product chorus-bench`.")
    python = ensure_venv(args.venv)
    runtime = subprocess.run([str(python), "-c", "import onnxruntime; print(onnxruntime.__version__)"],
                             check=True, capture_output=True, text=True).stdout.strip()
    print(f"ONNX Runtime: Chorus loads {os.path.realpath(ROOT / '.deps/onnxruntime/lib')}; peers use onnxruntime {runtime}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; {args.rounds} interleaved rounds")

    one_sentence = Path(tempfile.gettempdir()) / "chorus-peer-one.txt"
    one_sentence.write_text("Hello there.\n", encoding="utf-8")
    with tempfile.TemporaryDirectory() as out:
        for engine in args.engines.split(","):
            sentences = len([l for l in args.text.read_text(encoding="utf-8").splitlines() if l.strip()])
            print_rows(f"{engine}: {sentences} sentences ({args.text.name}), process start to finished WAV",
                       bench(engine, python, args.text, args.rounds, chorus, Path(out)))
            print_rows(f"{engine}: one sentence ('Hello there.'), process start to finished WAV",
                       bench(engine, python, one_sentence, args.rounds, chorus, Path(out)))
    if "piper" in args.engines.split(","):
        compare_piper_lengths(python, args.text, chorus)
    compare_front_ends(python, args.text, bench_binary)


if __name__ == "__main__":
    main()
