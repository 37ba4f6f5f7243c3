#!/usr/bin/env python3
"""CosyVoice 3 at real size: Chorus (the `chorus` binary, through `chorus serve` as a user's requests reach it)
beside upstream's own CosyVoice3Model.tts in PyTorch (FunAudioLLM/CosyVoice at the goldens' commit), on the
same weights (scripts/realsize/cosyvoice/build.py writes the ONNX files and upstream's checkpoints from one
seeded model), the same voice (made once by `chorus voice add` from s3tokenizer's AISHELL clip), the same text
ids and the same number of speech tokens, forced on both sides (random weights stop anywhere): Chorus through
CHORUS_COSYVOICE_SPEECH_TOKENS, upstream through its own min/max token ratios with every stop id masked until
then. 2 threads each (torch.set_num_threads; ONNX Runtime takes the machine's 2 cores).

Rows (one JSON object a line, see bench/realsize.py): load, whole (time, real-time factor), streamed (first
audio, end), peak resident memory (VmHWM) against the model files' size, the LLM alone at token 100 against token
1,000 (upstream in torch; Chorus through CosyVoiceBench --decode-steps when --cosyvoice-bench names it), and the
flow's cost per streamed chunk: one estimator call (batch 2 over the prompt's frames plus the first chunk's) on
ONNX Runtime, times the 10 Euler steps, the floor under the first streamed audio.

    DIR/venv-cosyvoice/bin/python bench/realsize/cosyvoice.py --models DIR/models --chorus .build/release/chorus \
        [--cosyvoice-bench .build/release/CosyVoiceBench] [--tokens 100] [--long 1000]
"""
import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
from _measured import ResidentSampler, in_process_peak_mb, measured_run  # noqa: E402

VOICE = "rs-aishell"
CLIP_TEXT = "甚至出现交易几乎停滞的情况"        # AISHELL-1 BAC009S0764W0121, as the corpus transcribes it
TEXT = "今天天气很好，我们一起去公园散步吧。"
PREFIX = "You are a helpful assistant.<|endofprompt|>"
SAMPLE_RATE = 24000


def row(**fields):
    print(json.dumps(dict(engine="cosyvoice", variant="fp16 (community export)", **fields), ensure_ascii=False), flush=True)


def note(message):
    print(message, file=sys.stderr, flush=True)


def clip_path():
    import s3tokenizer
    return os.path.join(os.path.dirname(s3tokenizer.__file__), "assets", "BAC009S0764W0121.wav")


def files_mb(folder):
    names = [n for n in os.listdir(folder) if n.endswith(".onnx") and n not in ("campplus.onnx", "speech_tokenizer_v3.onnx")]
    return sum(os.path.getsize(os.path.join(folder, n)) for n in names) / 2**20


def tokenize(chorus, folder, text):
    out = subprocess.run([chorus, "tokenize", "--tokenizer", folder, "--cosyvoice3", text], check=True,
                         capture_output=True, text=True).stdout
    return [int(t) for t in out.replace(",", " ").split()]


def read_voice(folder):
    import numpy as np
    with open(os.path.join(folder, "prompt_mel.bin"), "rb") as f:
        frames = int(np.frombuffer(f.read(4), "<i4")[0])
        mel = np.frombuffer(f.read(), "<f4").reshape(frames, 80)
    tokens = np.fromfile(os.path.join(folder, "prompt_tokens.bin"), "<i8").tolist()
    count = min(frames // 2, len(tokens))
    return {"tokens": tokens[:count], "mel": np.ascontiguousarray(mel[:2 * count]),
            "embedding": np.fromfile(os.path.join(folder, "speaker_embedding.bin"), "<f4")}


# ---- Chorus ------------------------------------------------------------------------------------------------

def post(port, body, stream):
    """(seconds to the first byte, seconds to the end, bytes) of one speech request."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/audio/speech", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=3600) as response:
        first, size = None, 0
        while True:
            chunk = response.read1(65536) if stream else response.read()
            if not chunk:
                break
            first = first or time.monotonic() - started
            size += len(chunk)
            if not stream:
                break
    return first, time.monotonic() - started, size


def chorus_side(chorus, models, tokens, port):
    env = dict(os.environ, CHORUS_MODELS=models, CHORUS_COSYVOICE_SPEECH_TOKENS=str(tokens))
    started = time.monotonic()
    server = subprocess.Popen([chorus, "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    sampler = ResidentSampler(server.pid, interval=0.2)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5).read()
                break
            except OSError:
                time.sleep(0.1)
        ready = time.monotonic() - started
        body = {"model": "cosyvoice", "voice": VOICE, "input": TEXT, "response_format": "pcm"}
        _, cold, _ = post(port, body, stream=False)                      # loads the engine, then speaks
        _, whole, size = post(port, body, stream=False)
        first, streamed, streamed_size = post(port, dict(body, stream=True), stream=True)
    finally:
        server.terminate()
        server.wait(timeout=60)
        sampler.stop()
    seconds = size / 2 / SAMPLE_RATE
    return {"serve_ready_s": round(ready, 2), "load_s": round(cold - whole, 2), "whole_s": round(whole, 2),
            "audio_s": round(seconds, 2), "rtf": round(whole / seconds, 3), "first_audio_s": round(first, 2),
            "streamed_s": round(streamed, 2), "streamed_audio_s": round(streamed_size / 2 / SAMPLE_RATE, 2),
            "peak_mb": round(sampler.peak_mb)}


def chorus_long(binary, folder, voice_folder, prompt, text, steps):
    """CosyVoiceBench --decode-steps: the LLM alone over `steps` forced tokens, resident memory every 250."""
    case = os.path.join("/tmp", f"chorus-bench-case-{os.getpid()}.json")
    with open(case, "w") as f:
        json.dump({"promptTextTokens": prompt, "textTokens": text, "samplingSeed": 0, "noiseSeed": 0}, f)
    try:
        out = subprocess.run([binary, "--model", folder, "--voice", voice_folder, "--case", case, "--decode-steps",
                              str(steps)], check=True, capture_output=True, text=True).stdout
    finally:
        os.remove(case)
    resident = {int(line.split()[1]): float(line.split()[3]) for line in out.splitlines() if line.startswith("step ")}
    return resident


# ---- upstream ----------------------------------------------------------------------------------------------

def upstream_model(models):
    """upstream's CosyVoice3Model on build.py's checkpoints, and the seconds construction and loading took."""
    sys.argv = ["build.py", models]
    sys.path.insert(0, os.path.join(ROOT, "scripts", "realsize", "cosyvoice"))
    import build  # sets up upstream's import paths from DIR/src
    import torch
    from cosyvoice.cli.model import CosyVoice3Model
    torch.set_num_threads(2)
    started = time.monotonic()
    llm = build.mu.make_llm(build.mu.qwen2_config(**build.LLM)).eval()
    model = CosyVoice3Model(llm, build.build_flow(), build.build_hift(), fp16=False)
    checkpoints = os.path.join(os.path.dirname(models), "upstream-cosyvoice")
    model.load(*(os.path.join(checkpoints, f"{name}.pt") for name in ("llm", "flow", "hift")))
    return model, time.monotonic() - started


def forcing(model, tokens, text_count):
    """Exactly `tokens` speech tokens from upstream's own loop: its min and max lengths both `tokens` (through the
    token-text ratios tts passes on) and every stop id masked until then (its sampling_ids masks only 6561)."""
    import functools
    llm = model.llm
    ratio = (tokens + 0.5) / text_count
    llm.inference = functools.partial(llm.inference, min_token_text_ratio=ratio, max_token_text_ratio=ratio)
    sampling = llm.sampling

    def masked(scores, decoded, top_k):
        if len(decoded) < tokens:
            scores[llm.speech_token_size:] = -float("inf")
        return sampling(scores, decoded, top_k)
    llm.sampling = masked


def upstream_child(models, mode, tokens, prompt, text, voice_folder):
    import numpy as np
    import torch
    model, load = upstream_model(models)
    forcing(model, tokens, len(text))
    voice = read_voice(voice_folder)
    ids = lambda values: torch.tensor([values], dtype=torch.int32)  # noqa: E731
    embedding = torch.from_numpy(voice["embedding"])[None]
    arguments = dict(text=ids(text), flow_embedding=embedding, llm_embedding=embedding, prompt_text=ids(prompt),
                     llm_prompt_speech_token=ids(voice["tokens"]), flow_prompt_speech_token=ids(voice["tokens"]),
                     prompt_speech_feat=torch.from_numpy(voice["mel"])[None])
    result = {"load_s": round(load, 2)}
    if mode == "memory":
        resident = {}
        sampling = model.llm.sampling

        def noting(scores, decoded, top_k):
            if len(decoded) + 1 in (100, 250, 500, 750, 1000):
                resident[len(decoded) + 1] = _rss_mb()
            return sampling(scores, decoded, top_k)
        model.llm.sampling = noting
        drawn = list(model.llm.inference(text=ids(text), text_len=torch.tensor([len(text)], dtype=torch.int32),
                                         prompt_text=ids(prompt), prompt_text_len=torch.tensor([len(prompt)], dtype=torch.int32),
                                         prompt_speech_token=ids(voice["tokens"]),
                                         prompt_speech_token_len=torch.tensor([len(voice["tokens"])], dtype=torch.int32),
                                         embedding=embedding))
        result.update(tokens=len(drawn), resident_mb=resident)
    else:
        started = time.monotonic()
        first, samples = None, 0
        for chunk in model.tts(**arguments, stream=mode == "stream"):
            first = first or time.monotonic() - started
            samples += chunk["tts_speech"].shape[1]
        whole = time.monotonic() - started
        result.update(first_audio_s=round(first, 2), whole_s=round(whole, 2), audio_s=round(samples / SAMPLE_RATE, 2),
                      rtf=round(whole / (samples / SAMPLE_RATE), 3))
    result["peak_mb"] = round(in_process_peak_mb())
    print(json.dumps(result), flush=True)
    del np


def _rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return None


def upstream_side(models, mode, tokens, prompt, text, voice_folder):
    command = [sys.executable, os.path.abspath(__file__), "--upstream-child", mode, "--models", models,
               "--tokens", str(tokens), "--prompt", json.dumps(prompt), "--text-ids", json.dumps(text),
               "--voice-folder", voice_folder]
    seconds, peak, process = measured_run(command)
    if process.returncode != 0:
        raise SystemExit(f"upstream {mode} failed:\n{process.stderr[-3000:]}")
    return json.loads(process.stdout.strip().splitlines()[-1])


# ---- the flow's cost per streamed chunk ----------------------------------------------------------------------

def estimator_call(folder, frames, threads=2, runs=3):
    """Seconds of one estimator call (batch 2, `frames` frames) on ONNX Runtime at `threads` threads, best of `runs`."""
    import numpy as np
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(os.path.join(folder, "flow.decoder.estimator.fp16.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    feeds = {name: np.random.default_rng(0).standard_normal((2, 80, frames)).astype(np.float32) for name in ("x", "mu", "cond")}
    feeds.update(mask=np.ones((2, 1, frames), np.float32), t=np.array([0.5, 0.5], np.float32),
                 spks=np.zeros((2, 80), np.float32))
    best = float("inf")
    for _ in range(runs):
        started = time.monotonic()
        session.run(None, feeds)
        best = min(best, time.monotonic() - started)
    return best


def session_memory(folder, threads=2):
    """Resident MB each of the 12 files adds when ONNX Runtime loads it (one process, loaded in turn), beside its
    size on disk: where the fp16 files are widened to float32 (constant folding turns each weight's Cast into a
    float32 initializer)."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.enable_cpu_mem_arena = False
    kept, rows = [], []
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".onnx") and n not in ("campplus.onnx", "speech_tokenizer_v3.onnx")):
        before = _rss_mb()
        kept.append(ort.InferenceSession(os.path.join(folder, name), options, providers=["CPUExecutionProvider"]))
        rows.append((name, round(os.path.getsize(os.path.join(folder, name)) / 2**20), round(_rss_mb() - before)))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", required=True)
    parser.add_argument("--chorus", default=os.path.join(ROOT, ".build", "release", "chorus"))
    parser.add_argument("--cosyvoice-bench", help="CosyVoiceBench (release) for Chorus's LLM memory over --long tokens")
    parser.add_argument("--tokens", type=int, default=100, help="speech tokens of the whole and streamed runs")
    parser.add_argument("--long", type=int, default=1000, help="tokens of the LLM-only memory run")
    parser.add_argument("--port", type=int, default=18932)
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out: sessions,flow,chorus,upstream,upstream-stream "
                        "(upstream's streamed run alone: 479 s at 100 tokens, beyond a 15-minute hold with the rest),memory")
    parser.add_argument("--upstream-child")
    parser.add_argument("--prompt")
    parser.add_argument("--text-ids")
    parser.add_argument("--voice-folder")
    args = parser.parse_args()
    models = os.path.abspath(args.models)
    if args.upstream_child:
        return upstream_child(models, args.upstream_child, args.tokens, json.loads(args.prompt),
                              json.loads(args.text_ids), args.voice_folder)
    skip = set(filter(None, args.skip.split(",")))
    folder = os.path.join(models, "cosyvoice")
    voice_folder = os.path.join(folder, "voices", VOICE)
    env = dict(os.environ, CHORUS_MODELS=models)
    if not os.path.exists(voice_folder):
        seconds, peak, process = measured_run([args.chorus, "voice", "add", "--engine", "cosyvoice", "--audio", clip_path(),
                                               "--text", CLIP_TEXT, "--id", VOICE], env=env)
        if process.returncode != 0:
            raise SystemExit(f"chorus voice add failed: {process.stderr}")
        row(side="chorus", metric="voice add (4.2 s clip)", seconds=round(seconds, 2), peak_mb=round(peak))
    prompt = tokenize(args.chorus, folder, PREFIX + CLIP_TEXT)
    text = tokenize(args.chorus, folder, TEXT)
    size = files_mb(folder)
    note(f"prompt {len(prompt)} ids, text {len(text)} ids, {args.tokens} speech tokens; the 12 files {size:.0f} MB")

    if "sessions" not in skip:
        for name, disk, resident in session_memory(folder):
            row(side="onnxruntime", metric="session memory", file=name, disk_mb=disk, resident_mb=resident)
    if "flow" not in skip:
        prompt_frames = 2 * len(read_voice(voice_folder)["tokens"])
        for chunk_tokens in (28, 0):
            frames = prompt_frames + 2 * chunk_tokens if chunk_tokens else 2 * 28
            call = estimator_call(folder, frames)
            row(side="onnxruntime", metric="flow estimator per streamed chunk", frames=frames,
                prompt_frames=prompt_frames if chunk_tokens else 0, call_s=round(call, 3), ten_steps_s=round(10 * call, 2))
    results = {}
    if "chorus" not in skip:
        results["chorus"] = chorus_side(args.chorus, models, args.tokens, args.port)
        row(side="chorus", metric="whole and streamed", tokens=args.tokens, files_mb=round(size),
            peak_over_files=round(results["chorus"]["peak_mb"] / size, 2), **results["chorus"])
    if "upstream" not in skip:
        whole = upstream_side(models, "whole", args.tokens, prompt, text, voice_folder)
        results["upstream"] = dict(whole)
        if "upstream-stream" not in skip:
            stream = upstream_side(models, "stream", args.tokens, prompt, text, voice_folder)
            results["upstream"].update(streamed_first_audio_s=stream["first_audio_s"], streamed_s=stream["whole_s"],
                                       streamed_peak_mb=stream["peak_mb"])
        row(side="upstream", metric="whole and streamed", tokens=args.tokens, files_mb=round(size),
            peak_over_files=round(whole["peak_mb"] / size, 2), **results["upstream"])
    if len(results) == 2:
        c, u = results["chorus"], results["upstream"]
        ratios = dict(load=round(c["load_s"] / u["load_s"], 2), whole=round(c["whole_s"] / u["whole_s"], 2),
                      peak=round(c["peak_mb"] / u["peak_mb"], 2))
        if "streamed_first_audio_s" in u:
            ratios["first_audio"] = round(c["first_audio_s"] / u["streamed_first_audio_s"], 2)
        row(side="ratio", metric="chorus / upstream", **ratios)
    if "memory" not in skip:
        long = upstream_side(models, "memory", args.long, prompt, text, voice_folder)
        r = {int(k): v for k, v in long["resident_mb"].items()}
        row(side="upstream", metric=f"LLM alone, {args.long} tokens", resident_mb=r,
            growth_100_to_1000=round(r[1000] / r[100] - 1, 4) if 1000 in r and 100 in r else None)
        if args.cosyvoice_bench:
            r = chorus_long(args.cosyvoice_bench, folder, voice_folder, prompt, text, args.long)
            row(side="chorus", metric=f"LLM alone, {args.long} tokens", resident_mb=r,
                growth_250_to_1000=round(r[1000] / r[250] - 1, 4) if 1000 in r and 250 in r else None)


if __name__ == "__main__":
    main()
