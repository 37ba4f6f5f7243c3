#!/usr/bin/env python3
"""NeuTTS Nano and Air at real size: Chorus (the `chorus` binary on the user path) beside upstream's own PyTorch
inference (neutts 1.4.1's `NeuTTS` with its torch backbone, `infer` -> `_infer_torch`, and the NeuCodec ONNX
decoder upstream loads from a local .onnx), on the same weights (scripts/realsize/neutts/build.py: the Hugging
Face checkpoint upstream loads and the ONNX export of it Chorus reads), the same voice (the neutts wheel's
samples/emily: its codes and transcript), the same text, and the same number of speech tokens, forced on both
(Chorus: CHORUS_NEUTTS_SPEECH_TOKENS; upstream: generate's min_new_tokens and max_new_tokens), 2 threads each.

Each side runs in processes of its own, one at a time; figures per size:
  load_s         Chorus: `chorus speak` of a 2-token reply, process start to exit (load, prompt, 2 tokens,
                 decode); upstream: process start to a constructed NeuTTS (imports and loading only)
  whole_s        process start to the whole reply of N tokens written (Chorus: `chorus speak -o FILE`;
                 upstream: NeuTTS(...) then infer), and generation_s = whole_s - load_s
  rtf            generation_s / seconds of audio
  peak_rss_mb    the process's peak resident memory (wait4's ru_maxrss) in the whole run
  rss_100_mb, rss_N_mb   resident memory at token 100 and at the last token: upstream from a logits processor
                 at those steps (N = --tokens); Chorus from `chorus serve` streaming a reply of --long-tokens
                 (1000), read from /proc when the audio of those tokens has arrived (audio trails tokens by 30-80)
  first_audio_s  Chorus: `chorus serve`'s first byte of a streamed reply, the engine loaded by an earlier
                 request; upstream: none (neutts streams only on its GGUF backend; `infer_stream` raises
                 NotImplementedError for torch), so its first audio is its whole reply (whole_s - load_s)
  files_mb       the model folder's files (backbone, its data, decoder, tokenizer; the encoder is not loaded)
Rows are JSON lines: {"engine": "neutts", "variant": "nano"|"air", "side": "chorus"|"upstream"|"ratio", ...}.

The side-by-side runs are 200 tokens (--tokens) by default: upstream's bfloat16 backbone takes about 2 s a
token for Nano on 2 busy cores, so 1000 tokens of both sizes would take hours; Chorus's memory over a long
generation is its served run of 1000 (--long-tokens).

Usage: DIR/venv-neutts/bin/python bench/realsize/neutts.py --models DIR/models --chorus BIN [--variants nano air]
       [--tokens 200] [--long-tokens 1000] [--threads 2]
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

# This file is neutts.py: its own folder must not hide upstream's package of that name.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]

FOLDERS = {"nano": "neutts", "air": "neutts-air"}
TEXT = ("The old lighthouse keeper climbed the stairs each evening, lit the lamp, and watched the ships pass "
        "safely through the narrow channel below.")
VOICE = "bench-emily"
SAMPLES_PER_TOKEN = 480


def status_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def run_measured(command, env):
    """Runs `command`; returns (seconds from start to exit, peak resident kB, stdout)."""
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = []
    readers = [threading.Thread(target=lambda s=s, o=o: o.append(s.read())) for s, o in
               ((process.stdout, out), (process.stderr, []))]
    for reader in readers:
        reader.start()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.monotonic() - start
    for reader in readers:
        reader.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode})")
    return elapsed, usage.ru_maxrss, out[0]


def folder_mb(folder):
    names = [n for n in os.listdir(folder) if n.startswith(("backbone", "decoder", "tokenizer"))]
    return sum(os.path.getsize(os.path.join(folder, n)) for n in names) / 1e6


def voice_files(work):
    """The neutts wheel's emily: codes as .npy and the transcript."""
    import numpy as np
    import torch
    import neutts
    samples = os.path.join(os.path.dirname(neutts.__file__), "samples")
    codes = torch.load(os.path.join(samples, "emily.pt")).numpy().astype(np.int64).reshape(-1)
    with open(os.path.join(samples, "emily.txt")) as f:
        transcript = f.read().strip()
    path = os.path.join(work, "emily.npy")
    np.save(path, codes)
    return path, transcript, os.path.join(samples, "emily.pt")


# ------------------------------------------------------------------------------------------------ Chorus

def chorus_env(args, tokens, models=None):
    env = dict(os.environ, CHORUS_ORT_INTRA_OP_THREADS=str(args.threads), CHORUS_NEUTTS_SPEECH_TOKENS=str(tokens))
    if models:
        env["CHORUS_MODELS"] = models
    return env


def chorus_side(args, variant, folder, work, codes, transcript):
    subprocess.run([args.chorus, "voice", "add", "--engine", "neutts", "--model", folder, "--codes", codes,
                    "--text", transcript, "--id", VOICE, "--replace"], check=True, stdout=subprocess.DEVNULL)
    speak = [args.chorus, "speak", "--engine", "neutts", "--model", folder, "--voice", VOICE, TEXT]
    out = os.path.join(work, f"chorus-{variant}.wav")
    load, _, _ = run_measured(speak + ["-o", out], chorus_env(args, 2))
    whole, peak, _ = run_measured(speak + ["-o", out], chorus_env(args, args.tokens))
    samples = (os.path.getsize(out) - 44) // 2
    row = {"load_s": load, "whole_s": whole, "generation_s": whole - load,
           "audio_s": samples / 24_000, "peak_rss_mb": peak / 1024}
    row["rtf"] = row["generation_s"] / row["audio_s"]
    row.update(chorus_served(args, folder, work))
    return row


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chorus_served(args, folder, work):
    """`chorus serve` over a models root whose neutts is `folder`: a first request loads the engine (cut off
    at its first byte), then a streamed request's first byte, and the server's memory as its audio arrives."""
    root = os.path.join(work, "served")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    os.symlink(os.path.abspath(folder), os.path.join(root, "neutts"))
    port = free_port()
    server = subprocess.Popen([args.chorus, "serve", "--engine", "neutts", "--port", str(port), "--no-history"],
                              env=chorus_env(args, args.long_tokens, root), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        body = json.dumps({"model": "neutts", "input": TEXT, "voice": VOICE, "response_format": "pcm",
                           "stream_format": "audio"}).encode()

        def request():
            return urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{port}/v1/audio/speech", data=body,
                headers={"Content-Type": "application/json"}), timeout=3600)

        with request() as warm:
            warm.read(1)
        time.sleep(1)
        start = time.monotonic()
        first, received, marks = None, 0, {}
        with request() as response:
            while True:
                chunk = response.read1(65536)
                if not chunk:
                    break
                if first is None:
                    first = time.monotonic() - start
                received += len(chunk)
                tokens = received // 2 // SAMPLES_PER_TOKEN
                for mark in (100, args.long_tokens):
                    if tokens >= mark - 30 and mark not in marks:
                        marks[mark] = status_kb(server.pid, "VmRSS")
        marks.setdefault(args.long_tokens, status_kb(server.pid, "VmRSS"))
        return {"first_audio_s": first, "served_audio_s": received / 2 / 24_000,
                "rss_100_mb": marks[100] / 1024, f"rss_{args.long_tokens}_mb": marks[args.long_tokens] / 1024,
                "serve_peak_rss_mb": status_kb(server.pid, "VmHWM") / 1024}
    finally:
        server.terminate()
        server.wait()


# ---------------------------------------------------------------------------------------------- upstream

def upstream_child(args):
    """One upstream run in this process: NeuTTS constructed, then `infer` of exactly --tokens tokens."""
    start = float(args.started)
    import torch
    torch.set_num_threads(args.threads)
    from transformers import LogitsProcessor, LogitsProcessorList
    from neutts import NeuTTS
    tts = NeuTTS(backbone_repo=args.checkpoint, backbone_device="cpu", codec_repo=args.decoder, codec_device="cpu",
                 language="en-us", seed=0)
    tts.watermarker = None  # Chorus does not watermark; both sides do the same work
    loaded = time.time()
    rss = {}

    class Probe(LogitsProcessor):
        def __init__(self, prompt):
            self.prompt = prompt

        def __call__(self, input_ids, scores):
            step = input_ids.shape[-1] - self.prompt
            if step in (100, args.tokens - 1):
                rss[step + (1 if step == args.tokens - 1 else 0)] = status_kb(os.getpid(), "VmRSS")
            return scores

    generate = tts.backbone.generate

    def forced(prompt, **kwargs):
        kwargs.pop("max_length", None)
        kwargs.update(min_new_tokens=args.tokens, max_new_tokens=args.tokens,
                      logits_processor=LogitsProcessorList([Probe(prompt.shape[-1])]))
        return generate(prompt, **kwargs)

    tts.backbone.generate = forced
    codes = torch.load(args.codes)
    wav = tts.infer(TEXT, codes, args.transcript)
    done = time.time()
    print(json.dumps({"load_s": loaded - start, "whole_s": done - start, "generation_s": done - loaded,
                      "audio_s": len(wav) / 24_000,
                      "rss_100_mb": rss.get(100, 0) / 1024, f"rss_{args.tokens}_mb": rss.get(args.tokens, 0) / 1024,
                      "torch_threads": torch.get_num_threads(), "dtype": str(tts.backbone.dtype)}))


def upstream_side(args, variant, folder, codes_pt, transcript):
    checkpoint = os.path.join(os.path.dirname(os.path.abspath(args.models)), "neutts-checkpoints", variant)
    command = [sys.executable, os.path.abspath(__file__), "--upstream-child", "--checkpoint", checkpoint,
               "--decoder", os.path.join(folder, "decoder.onnx"), "--codes", codes_pt, "--transcript", transcript,
               "--tokens", str(args.tokens), "--threads", str(args.threads)]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), HF_HUB_OFFLINE="1")
    _, peak, out = run_measured(command + ["--started", repr(time.time())], env)
    row = json.loads(out.decode().strip().splitlines()[-1])
    row["peak_rss_mb"] = peak / 1024
    row["rtf"] = row["generation_s"] / row["audio_s"]
    row["first_audio_s"] = row["generation_s"]
    row["first_audio_note"] = "no streaming on the torch backend: the whole reply"
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=os.path.join(os.environ.get("CHORUS_REALSIZE", "/work/realsize"), "models"))
    parser.add_argument("--chorus", default="chorus")
    parser.add_argument("--variants", nargs="+", default=["nano", "air"], choices=list(FOLDERS))
    parser.add_argument("--tokens", type=int, default=200, help="speech tokens of the side-by-side runs")
    parser.add_argument("--long-tokens", type=int, default=1000, help="speech tokens of Chorus's served run")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--upstream-child", action="store_true", help=argparse.SUPPRESS)
    for name in ("checkpoint", "decoder", "codes", "transcript", "started"):
        parser.add_argument(f"--{name}", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.upstream_child:
        return upstream_child(args)
    work = tempfile.mkdtemp(prefix="neutts-bench-")
    codes, transcript, codes_pt = voice_files(work)
    for variant in args.variants:
        folder = os.path.join(args.models, FOLDERS[variant])
        files = folder_mb(folder)
        base = {"engine": "neutts", "variant": variant, "tokens": args.tokens, "long_tokens": args.long_tokens,
                "threads": args.threads,
                "files_mb": files}
        chorus = chorus_side(args, variant, folder, work, codes, transcript)
        print(json.dumps({**base, "side": "chorus", **chorus}), flush=True)
        upstream = upstream_side(args, variant, folder, codes_pt, transcript)
        print(json.dumps({**base, "side": "upstream", **upstream}), flush=True)
        ratio = {key: chorus[key] / upstream[key] for key in ("load_s", "whole_s", "generation_s", "peak_rss_mb",
                                                              "first_audio_s")
                 if chorus.get(key) and upstream.get(key)}
        ratio["chorus_peak_over_files"] = chorus["peak_rss_mb"] / files
        growth = chorus[f"rss_{args.long_tokens}_mb"] / chorus["rss_100_mb"] - 1
        ratio[f"chorus_rss_growth_100_to_{args.long_tokens}"] = growth
        print(json.dumps({**base, "side": "ratio", **ratio}), flush=True)


if __name__ == "__main__":
    main()
