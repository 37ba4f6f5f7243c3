#!/usr/bin/env python3
"""Chatterbox Turbo at real size (issue 39): Chorus (the `chorus` binary, on the user path) beside upstream's own
ChatterboxTurboTTS (chatterbox-tts 0.1.7, PyTorch on the CPU), on the same weights, text, voice and number of speech
tokens, one JSON row per line.

The weights: scripts/realsize/chatterbox/build.py's stand-in (MODELS/chatterbox-<variant>, and the same weights as
upstream's checkpoint folder in MODELS/../upstream/chatterbox-turbo); its T3 never draws the stop token, so each
side draws exactly what its limit says: upstream's max_gen_len (inference_turbo's argument) and Chorus's
CHORUS_CHATTERBOX_MAX_NEW_TOKENS (the same limit), N - 1 for N draws. The voice: both made from the same clip
(MODELS/../clips/chatterbox-reference.wav): `chorus voice add` and upstream's prepare_conditionals. Upstream's Perth
watermark is switched off (Chorus adds none). Both sides get --threads intra-op threads (torch.set_num_threads;
CHORUS_ORT_INTRA_OP_THREADS), each in a process of its own, one after the other.

Rows (seconds, MB = 10^6 bytes):
  chorus voice-add   wall time and peak RSS (VmHWM) of `chorus voice add`
  chorus speak N     wall time and peak RSS of `chorus speak` drawing N tokens (a fresh process: load included);
                     N = 1 is the load (with one draw and a 4-token decode)
  chorus synth N     speak N's wall minus speak 1's: the synthesis alone
  chorus first-audio `chorus serve` (warm: one request made first), a streamed request of two sentences with
                     FIRST_TOKENS draws a chunk (a first sentence's worth): seconds to the first audio byte
  upstream load      ChatterboxTurboTTS.from_local; cond: prepare_conditionals; generate N: generate() drawing N
                     tokens, each in a process of its own with its peak RSS; first-audio: upstream has no
                     streaming, so its first audio is generate() of the first sentence at FIRST_TOKENS
  ratio rows         Chorus / upstream for synthesis time, peak RSS, and memory growth 100 -> 1000 per side

Usage:
  flock /work/locks/heavy.lock DIR/venv-chatterbox/bin/python bench/realsize/chatterbox.py --models DIR/models \
      --chorus .build/release/chorus [--variants fp32,fp16,q8,q4,q4f16] [--threads 2]
"""
import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _measured import measured_run  # noqa: E402

TEXT = "The lamp turned slowly over the water, and the sailors watched it from far away."
STREAMED = "The keeper climbed the stairs. He kept the lamp burning every night until the morning came back."
FIRST_TOKENS = 60  # about 2.4 s of speech: what a first sentence of 30 characters makes at 25 tokens a second
VOICE = "realsize"


def row(**fields):
    print(json.dumps(dict(engine="chatterbox", **fields)), flush=True)


def measured(command, env):
    """Runs `command` to its end: its wall time, peak resident memory (VmHWM) in MB and standard error."""
    seconds, peak_mb, done = measured_run([str(part) for part in command], env=env)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, command))} failed ({done.returncode}): {done.stderr[-1500:]}")
    return seconds, peak_mb * 1.048576, done.stderr


def folder_size(folder):
    return sum(f.stat().st_size for f in Path(folder).glob("*.onnx*")) / 1e6


# ---------------------------------------------------------------------------------------------- Chorus

def chorus_env(models, threads, tokens):
    env = dict(os.environ, CHORUS_MODELS=str(models), CHORUS_ORT_INTRA_OP_THREADS=str(threads),
               CHORUS_CHATTERBOX_MAX_NEW_TOKENS=str(tokens - 1))
    return env


def chorus(args, variant, folder, clip, work):
    env = chorus_env(args.models, args.threads, 1)
    wall, rss, _ = measured([args.chorus, "voice", "add", "--engine", "chatterbox", "--model", str(folder), "--audio",
                             str(clip), "--id", VOICE, "--replace"], env)
    row(side="chorus", variant=variant, metric="voice-add", seconds=round(wall, 2), peak_mb=round(rss))
    results = {}
    for tokens in [1] + args.tokens:
        out = work / f"chorus-{variant}-{tokens}.wav"
        wall, rss, _ = measured([args.chorus, "speak", "--engine", "chatterbox", "--model", str(folder), "--voice", VOICE,
                                 "-o", str(out), "--force", TEXT], chorus_env(args.models, args.threads, tokens))
        seconds = wav_seconds(out)
        results[tokens] = (wall, rss, seconds)
        row(side="chorus", variant=variant, metric=f"speak {tokens}", seconds=round(wall, 2), peak_mb=round(rss),
            audio_s=round(seconds, 2))
    load = results[1][0]
    for tokens in args.tokens:
        wall, rss, seconds = results[tokens]
        row(side="chorus", variant=variant, metric=f"synth {tokens}", seconds=round(wall - load, 2),
            rtf=round((wall - load) / seconds, 3), peak_mb=round(rss))
    return results


def wav_seconds(path):
    import soundfile
    info = soundfile.info(str(path))
    return info.frames / info.samplerate


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def first_audio(args, variant):
    """Seconds from a streamed request to its first audio byte, on a warm `chorus serve` (fp32: the server's
    default chatterbox model)."""
    port = free_port()
    env = chorus_env(args.models, args.threads, FIRST_TOKENS)
    process = subprocess.Popen([args.chorus, "serve", "--host", "127.0.0.1", "--port", str(port), "--no-history",
                                "--engine", "chatterbox"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit("chorus serve did not start")
                time.sleep(0.2)

        def request(text):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
            start = time.monotonic()
            connection.request("POST", "/v1/audio/speech", json.dumps(
                {"model": "chatterbox", "voice": VOICE, "input": text, "response_format": "pcm"}),
                {"Content-Type": "application/json"})
            response = connection.getresponse()
            if response.status != 200:
                raise SystemExit(f"serve: {response.status} {response.read()[:300]!r}")
            first, total = None, 0
            while True:
                data = response.read1(65536)
                if not data:
                    break
                if first is None:
                    first = time.monotonic() - start
                total += len(data)
            return first, time.monotonic() - start, total / 2 / 24000

        warm = request("Warm the engine up first.")
        first, whole, seconds = request(STREAMED)
        status = open(f"/proc/{process.pid}/status").read()
        hwm = int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) * 1024 / 1e6
        row(side="chorus", variant=variant, metric="first-audio", seconds=round(first, 2), whole=round(whole, 2),
            audio_s=round(seconds, 2), warm_request=round(warm[1], 2), server_peak_mb=round(hwm),
            tokens_per_chunk=FIRST_TOKENS)
        return first
    finally:
        process.terminate()
        process.wait()


# ---------------------------------------------------------------------------------------------- upstream

def upstream_worker(checkpoint, clip, text, tokens, threads):
    """One process: load, conditionals from the clip, generate drawing `tokens`; prints one JSON object."""
    import functools
    # This file is chatterbox.py and its folder is first on the path: without it there, `chatterbox` is upstream's.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.modules.pop("chatterbox", None)
    import torch
    torch.set_num_threads(threads)
    from chatterbox.tts_turbo import ChatterboxTurboTTS
    start = time.monotonic()
    tts = ChatterboxTurboTTS.from_local(checkpoint, "cpu")
    load = time.monotonic() - start
    tts.watermarker.apply_watermark = lambda wav, sample_rate: wav
    start = time.monotonic()
    tts.prepare_conditionals(str(clip))
    cond = time.monotonic() - start
    tts.t3.inference_turbo = functools.partial(tts.t3.inference_turbo, max_gen_len=tokens - 1)
    start = time.monotonic()
    wav = tts.generate(text)
    generate = time.monotonic() - start
    status = open("/proc/self/status").read()
    hwm = int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) * 1024 / 1e6
    print(json.dumps({"load": load, "cond": cond, "generate": generate, "samples": int(wav.shape[-1]),
                      "peak_mb": hwm}))


def upstream(args, clip, text, tokens):
    checkpoint = Path(args.models).parent / "upstream" / "chatterbox-turbo"
    out = subprocess.run([sys.executable, __file__, "--upstream-worker", str(checkpoint), str(clip), text, str(tokens),
                          str(args.threads)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"upstream failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    if sys.argv[1:2] == ["--upstream-worker"]:
        checkpoint, clip, text, tokens, threads = sys.argv[2:7]
        upstream_worker(checkpoint, clip, text, int(tokens), int(threads))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", required=True, type=Path)
    parser.add_argument("--chorus", required=True)
    parser.add_argument("--variants", default="fp32")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", default="100,1001", help="draws per generation, comma-separated (1001: upstream's 1 + max_gen_len 1000)")
    parser.add_argument("--upstream-tokens", help="upstream's draws, comma-separated (default: --tokens); upstream's "
                        "1,001 draws take over 12 min on 2 cores, so a bench that must fit its time runs them on Chorus only")
    parser.add_argument("--skip-upstream", action="store_true")
    parser.add_argument("--skip-chorus", action="store_true")
    args = parser.parse_args()
    args.tokens = [int(t) for t in args.tokens.split(",")]
    args.upstream_tokens = [int(t) for t in args.upstream_tokens.split(",")] if args.upstream_tokens else args.tokens
    args.models = args.models.resolve()
    clip = args.models.parent / "clips" / "chatterbox-reference.wav"
    work = Path(tempfile.mkdtemp(prefix="realsize-chatterbox-"))
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((line.split(":", 1)[1].strip() for line in lscpu.splitlines() if line.startswith("Model name")), "?")
    row(side="machine", metric="machine", cpu=model, load=open("/proc/loadavg").read().split()[:3],
        threads=args.threads, chorus=args.chorus)

    ups = {}
    if not args.skip_upstream:
        for tokens in args.upstream_tokens:
            result = upstream(args, clip, TEXT, tokens)
            ups[tokens] = result
            row(side="upstream", variant="fp32 (PyTorch)", metric=f"generate {tokens}", seconds=round(result["generate"], 2),
                rtf=round(result["generate"] / (result["samples"] / 24000), 3), load=round(result["load"], 2),
                cond=round(result["cond"], 2), peak_mb=round(result["peak_mb"]),
                audio_s=round(result["samples"] / 24000, 2))
        first = upstream(args, clip, STREAMED.split(". ")[0] + ".", FIRST_TOKENS)
        row(side="upstream", variant="fp32 (PyTorch)", metric="first-audio", seconds=round(first["generate"], 2),
            note="no streaming upstream: generate() of the first sentence")
    for variant in [] if args.skip_chorus else args.variants.split(","):
        folder = args.models / f"chatterbox-{variant}"
        if not (folder / ".complete").exists():
            row(side="chorus", variant=variant, metric="skipped", reason=f"{folder} is not built")
            continue
        files = folder_size(folder)
        results = chorus(args, variant, folder, clip, work)
        load = results[1][0]
        for tokens in args.tokens:
            wall, rss, seconds = results[tokens]
            fields = dict(side="ratio", variant=variant, metric=f"{tokens} tokens", files_mb=round(files),
                          peak_over_files=round(rss / files, 2))
            if tokens in ups:
                fields.update(synth_ratio=round((wall - load) / ups[tokens]["generate"], 3),
                              peak_ratio=round(rss / ups[tokens]["peak_mb"], 3))
            row(**fields)
        if len(args.tokens) >= 2:
            low, high = args.tokens[0], args.tokens[-1]
            fields = dict(side="ratio", variant=variant, metric=f"growth {low}->{high}",
                          chorus=round(results[high][1] / results[low][1], 3))
            if low in ups and high in ups:
                fields["upstream"] = round(ups[high]["peak_mb"] / ups[low]["peak_mb"], 3)
            row(**fields)
        if variant == "fp32":
            first_audio(args, variant)


if __name__ == "__main__":
    main()
