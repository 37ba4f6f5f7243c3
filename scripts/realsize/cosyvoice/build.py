#!/usr/bin/env python3
"""CosyVoice 3 at its published size with seeded random weights, as `chorus models pull cosyvoice` lays it out.

Writes MODELS/cosyvoice/ (MODELS: a CHORUS_MODELS root, DIR/models of scripts/realsize/build.sh):
- the 12 files of the community export (ayousanz/cosy-voice3-onnx), exported from upstream's own classes at
  FunAudioLLM/CosyVoice's pinned commit with the code of scripts/testdata/cosyvoice/make_upstream.py (the same
  exports its small goldens use, here at cosyvoice3.yaml's sizes): CosyVoice3LM over a Qwen2-0.5B config (24
  layers, width 896, 14 heads, 2 KV heads, FFN 4864, the full 151,936-row embedding), CausalMaskedDiffWithDiT
  (a 1024-channel pre-lookahead layer, a DiT of width 1024, 22 blocks, 16 heads of 64), CausalHiFTGenerator at
  512 base channels with its 300 s frozen-noise tables (zeros, so the file stays small; the runtime holds them
  as upstream does); the `_fp16` files keep float16 weights behind a Cast, float32 at the boundary;
- campplus.onnx (3D-Speaker's CAMPPlus as chatterbox-tts 0.1.7 ships the class: 192-dim embedding) and
  speech_tokenizer_v3.onnx (s3tokenizer 0.3.0's S3TokenizerV3: 12 blocks of 1280, FSQ codes), inputs and
  outputs named as FunAudioLLM's files;
- vocab.json and merges.txt, the real Qwen2 vocabulary (ggml-vocab-qwen2.gguf of llama-cpp-python 0.3.36,
  derived by scripts/testdata/make_bpe_vocabularies.py), checked to encode cosyvoice3.md's sentence, with
  upstream's added tokens (`<|endofprompt|>` ...), to its published ids;
- the `.complete` marker a pull writes.
Beside it, DIR/upstream-cosyvoice/{llm,flow,hift}.pt: the same weights as upstream's checkpoints, for
bench/realsize/cosyvoice.py to run upstream's CosyVoice3Model on.

Seeded and deterministic. Needs the venv of requirements.txt and prepare.sh's sources in DIR/src. Peak memory
about 8 GB (the LLM in float32 while its backbone is exported). Run through scripts/realsize/build.sh.

    python3 build.py MODELS
"""
import importlib.util
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
if len(sys.argv) != 2:
    raise SystemExit("usage: build.py MODELS (a models root, e.g. DIR/models)")
MODELS = os.path.abspath(sys.argv[1])
DIR = os.path.dirname(MODELS)
SRC = os.path.join(DIR, "src")
os.environ["COSYVOICE"] = os.path.join(SRC, "cosyvoice")
os.environ["MATCHA"] = os.path.join(SRC, "matcha-tts-0.0.7.2")
for needed in (os.environ["COSYVOICE"], os.environ["MATCHA"], os.path.join(SRC, "ggml-vocab-qwen2.gguf")):
    if not os.path.exists(needed):
        raise SystemExit(f"build.py: {needed} is missing; run scripts/realsize/cosyvoice/prepare.sh {DIR} first")
sys.path.insert(0, os.path.join(ROOT, "scripts", "testdata", "cosyvoice"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "testdata"))

import torch  # noqa: E402

import make_upstream as mu  # noqa: E402

# cosyvoice3.yaml's published sizes.
LLM = dict(hidden=896, layers=24, heads=14, kv_heads=2, ffn=4864)
DIT = dict(dim=1024, depth=22, heads=16, dim_head=64, lookahead_channels=1024)
HIFT_CHANNELS = 512
SOURCE_FRAMES = 300 * 50          # upstream's frozen noise: 300 s at 50 mel frames a second
MODEL_ID = "cosyvoice"
CHECK_TEXT = "You are a helpful assistant.<|endofprompt|>希望你以后能够做的比我还好呦。"
CHECK_IDS = [2610, 525, 264, 10950, 17847, 13, 151646, 99880, 56568, 103934, 100006, 100854, 56006, 107228, 52801,
             119024, 1773]


def log(message, started=[time.time()]):  # noqa: B006 (one clock for the run)
    print(f"[{time.time() - started[0]:6.0f} s] {message}", flush=True)


def build_llm():
    """CosyVoice3LM over the Qwen2-0.5B config, every weight seeded (make_upstream.seeded: fan-in scaled,
    norms near 1), float16 values so the `_fp16` files and upstream's float32 agree."""
    llm = mu.make_llm(mu.qwen2_config(**LLM))
    mu.seeded(llm, torch.Generator().manual_seed(20261202), half=True)
    return llm.eval()


def build_flow():
    return mu.build_flow(**DIT, rows=None)


def build_hift():
    return mu.build_hift(channels=HIFT_CHANNELS, source_frames=SOURCE_FRAMES)


def chatterbox_campplus():
    """chatterbox-tts's CAMPPlus class, loaded from its file (the package's __init__ imports far more)."""
    spec = importlib.util.find_spec("chatterbox")
    path = os.path.join(spec.submodule_search_locations[0], "models", "s3gen", "xvector.py")
    module_spec = importlib.util.spec_from_file_location("chatterbox_xvector", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.CAMPPlus


def export_campplus(folder):
    """campplus.onnx: Kaldi fbank [1, frames, 80] -> [1, 192], as FunAudioLLM's file (input `input`)."""
    model = chatterbox_campplus()(feat_dim=80, embedding_size=192).eval()
    mu.seeded(model, torch.Generator().manual_seed(20261203), half=False)
    mu.traced(model, (torch.randn(1, 200, 80),), os.path.join(folder, "campplus.onnx"), ["input"], ["output"],
              {"input": {1: "frames"}})


def rotary_from_table(xq, xk, freqs_cis):
    """The rotary embedding of s3tokenizer's attention (rotate-half form) from a real [positions, dims, 2] table of
    (cos, sin), where s3tokenizer keeps a complex table, which TorchScript's ONNX export cannot carry."""
    cos, sin = freqs_cis[None, :, None, :, 0].to(xq.dtype), freqs_cis[None, :, None, :, 1].to(xq.dtype)

    def turned(x):
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return xq * cos + turned(xq) * sin, xk * cos + turned(xk) * sin


class SpeechTokenizer(torch.nn.Module):
    """S3TokenizerV3's encoder and FSQ quantizer (its quantize without the long-audio split, which the 30 s
    limit never reaches): feats [1, 128, frames], feats_length int32 [1] -> 25 Hz codes [1, frames / 4]. Its
    rotary table is held as real numbers (rotary_from_table) for the export."""

    def __init__(self):
        super().__init__()
        from s3tokenizer import model_v2
        from s3tokenizer.model_v3 import S3TokenizerV3
        self.model = S3TokenizerV3("speech_tokenizer_v3")
        self.model.encoder.freqs_cis = torch.view_as_real(self.model.encoder.freqs_cis)
        model_v2.apply_rotary_emb = rotary_from_table

    def forward(self, feats, feats_length):
        hidden, _ = self.model.encoder(feats, feats_length.long())
        return self.model.quantizer._codebook.encode(hidden)


def export_speech_tokenizer(folder):
    model = SpeechTokenizer().eval()
    mu.seeded(model, torch.Generator().manual_seed(20261204), half=False)
    frames = 400
    mu.traced(model, (torch.randn(1, 128, frames), torch.tensor([frames], dtype=torch.int32)),
              os.path.join(folder, "speech_tokenizer_v3.onnx"), ["feats", "feats_length"], ["indices"],
              {"feats": {2: "frames"}, "indices": {1: "tokens"}})


def tokenizer_files(folder):
    """vocab.json and merges.txt of the real Qwen2 vocabulary, checked with upstream's first added token."""
    import make_bpe_vocabularies
    from transformers import AutoTokenizer
    with tempfile.TemporaryDirectory() as work:
        make_bpe_vocabularies.derive(os.path.join(SRC, "ggml-vocab-qwen2.gguf"), "Qwen2Tokenizer", work)
        tokenizer = AutoTokenizer.from_pretrained(work)
        tokenizer.add_special_tokens({"additional_special_tokens": ["<|endofprompt|>"]})
        ids = tokenizer.encode(CHECK_TEXT)
        if ids != CHECK_IDS:
            raise SystemExit(f"build.py: the derived Qwen2 vocabulary encodes the check sentence to {ids}, not {CHECK_IDS}")
        for name in ("vocab.json", "merges.txt"):
            shutil.copy(os.path.join(work, name), os.path.join(folder, name))


def main():
    with open(os.path.join(os.environ["COSYVOICE"], ".commit")) as f:
        if f.read().strip() != mu.UPSTREAM_COMMIT:
            raise SystemExit(f"build.py: {os.environ['COSYVOICE']} is not at {mu.UPSTREAM_COMMIT}; run prepare.sh again")
    torch.set_num_threads(2)
    final = os.path.join(MODELS, MODEL_ID)
    staging = final + ".building"
    checkpoints = os.path.join(DIR, "upstream-cosyvoice")
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    os.makedirs(checkpoints, exist_ok=True)

    tokenizer_files(staging)
    log("tokenizer: vocab.json, merges.txt")
    llm = build_llm()
    torch.save(llm.state_dict(), os.path.join(checkpoints, "llm.pt"))
    mu.export_llm(llm, staging, text_rows=None, speech_rows=None)
    del llm
    log("LLM: 5 files")
    flow = build_flow()
    torch.save(flow.state_dict(), os.path.join(checkpoints, "flow.pt"))
    mu.export_flow(flow, staging, rows=None)
    del flow
    log("flow: 4 files")
    hift = build_hift()
    torch.save(hift.state_dict(), os.path.join(checkpoints, "hift.pt"))
    mu.export_hift(hift, staging)
    del hift
    log("HiFT: 3 files")
    export_campplus(staging)
    export_speech_tokenizer(staging)
    log("voice extraction: campplus.onnx, speech_tokenizer_v3.onnx")
    with open(os.path.join(staging, ".complete"), "w") as f:
        f.write(MODEL_ID)
    shutil.rmtree(final, ignore_errors=True)
    os.rename(staging, final)
    for name in sorted(os.listdir(final)):
        print(f"{os.path.getsize(os.path.join(final, name)):>14,}  {name}")


if __name__ == "__main__":
    main()
