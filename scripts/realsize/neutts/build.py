#!/usr/bin/env python3
"""NeuTTS Nano and Air at their published sizes with seeded random weights, laid out as a user's folder is once
`chorus models pull neutts` has added the codec to the backbone they exported (docs/models.md):

  MODELS/neutts/       Nano: backbone.onnx (float32, 914 MB), tokenizer.json, tokenizer_config.json,
                       decoder.onnx (NeuCodec's decoder, 783 MB like neuphonic/neucodec-onnx-decoder's model.onnx),
                       encoder.onnx + encoder.onnx.data (NeuCodec's encoder, scripts/export-neucodec-encoder.py),
                       .complete ("neutts", as a pull writes it)
  MODELS/neutts-air/   Air: the same files, its backbone.onnx with backbone.onnx.data (about 3 GB: past
                       protobuf's 2 GB). The engine has one model id, so Air is the folder a user names with
                       `--model` (or puts at <models>/neutts instead of Nano).
  DIR/neutts-checkpoints/{nano,air}/   each backbone as a Hugging Face checkpoint (config.json, model.safetensors,
                       tokenizer files) written by save_pretrained: what a user downloads, and what
                       scripts/export-neutts-backbone.py turns into backbone.onnx here (the build goes through it).

The backbones (transformers' own classes; Hugging Face was not reachable, so no config.json was seen):
  Air:  Qwen2ForCausalLM on Qwen2.5-0.5B's config (24 layers, width 896, 14 heads, 2 KV heads of 64, MLP 4864,
        rope theta 1e6), untied: the published 291 tensors are 24 x 12 + embeddings + norm + lm_head. Vocabulary:
        Qwen2's 151,936 + the 6 control tokens + 65,536 speech tokens = 217,478: 747.6 M values (published 747.9 M).
  Nano: LlamaForCausalLM, 24 layers, width 576, 9 heads and 3 KV heads of 64, MLP 2304, tied embeddings, over
        Llama 3's tokenizer (128,261 entries as llama.cpp's vocabulary file has them) + 65,542 = 193,803 tokens:
        228.4 M values (published 228.7 M), 218 tensors (24 x 9 + embeddings + norm: the published count, which
        only tied embeddings and 24 layers give), 116.8 M outside the embeddings (published "~117 M active").
        The 218 tensors fix the layers and the tying; 193,803 x 576 is the embedding that leaves ~117 M for 24
        layers; width 576 with 9 x 64 heads and 3 KV heads is the head layout small LLaMA models use at that width
        (SmolLM); the MLP is what makes the total. Real Nano may split heads or MLP otherwise at the same size.
  Tokenizers: the real Qwen2 and Llama 3 byte-level BPE vocabularies that ship in llama-cpp-python's sdist
  (prepare.sh fetches them), with the control tokens and <|speech_0|>..<|speech_65535|> added as upstream's
  TRAINING.md adds them. Every text row of lm_head is zero, so only speech (and the stop) tokens are drawn.
NeuCodec (neucodec==0.0.6's classes at their defaults): the decoder exported with upstream's onnx_ops swaps
(from NEUCODEC_REPO, as upstream's onnx/export_onnx.py) with its 6000-frame window table, float32, one file; the
encoder from NeuCodec's parts at full size, w2v-bert-2.0 as Wav2Vec2BertConfig's defaults (its published
layout: 24 layers x 1024, 16 heads, conformer kernel 31), exported by scripts/export-neucodec-encoder.py.

Usage: python build.py DIR/models   (after prepare.sh DIR, which puts the vocabularies and a neucodec checkout
       in DIR/neutts-cache; NEUCODEC_REPO names another checkout)
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(SCRIPTS, "testdata", "neutts"))
sys.path.insert(0, os.path.join(SCRIPTS, "testdata"))


def load_script(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BACKBONE_EXPORT = os.path.join(SCRIPTS, "export-neutts-backbone.py")
backbone_export = load_script("export_neutts_backbone", BACKBONE_EXPORT)
encoder_export = load_script("export_neucodec_encoder", os.path.join(SCRIPTS, "export-neucodec-encoder.py"))

VOCABULARIES = {"air": "ggml-vocab-qwen2.gguf", "nano": "ggml-vocab-llama-bpe.gguf"}
FOLDERS = {"nano": "neutts", "air": "neutts-air"}
SEEDS = {"nano": 39, "air": 40, "decoder": 41, "encoder": 42}


def log(*args):
    print(f"[{time.strftime('%H:%M:%S')}]", *args, flush=True)


def tokenizer(kind, cache):
    """The base model's tokenizer (from llama.cpp's vocabulary file) with NeuTTS's control and speech tokens."""
    from tokenizers import AddedToken
    from transformers import AutoTokenizer, PreTrainedTokenizerFast
    folder = os.path.join(cache, "vocab")
    converted = AutoTokenizer.from_pretrained(folder, gguf_file=VOCABULARIES[kind])
    # A fast tokenizer of the converted one, so it saves as tokenizer.json with NeuTTS's tokens added.
    tok = PreTrainedTokenizerFast(tokenizer_object=converted.backend_tokenizer,
                                  bos_token=converted.bos_token if kind == "nano" else None,
                                  eos_token=converted.eos_token)
    tok.add_special_tokens({"additional_special_tokens": [AddedToken(t, special=True, normalized=False)
                                                          for t in backbone_export.CONTROL]})
    tok.add_tokens([AddedToken(f"<|speech_{i}|>", special=False, normalized=False)
                    for i in range(backbone_export.SPEECH)])
    return tok


def backbone_config(kind, tok):
    from transformers import LlamaConfig, Qwen2Config
    stop = tok.convert_tokens_to_ids("<|SPEECH_GENERATION_END|>")
    if kind == "air":
        return Qwen2Config(vocab_size=len(tok), hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                           num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                           rope_theta=1_000_000.0, rms_norm_eps=1e-6, tie_word_embeddings=False,
                           eos_token_id=stop, bos_token_id=None)
    return LlamaConfig(vocab_size=len(tok), hidden_size=576, intermediate_size=2304, num_hidden_layers=24,
                       num_attention_heads=9, num_key_value_heads=3, head_dim=64, max_position_embeddings=8192,
                       rope_theta=100_000.0, rms_norm_eps=1e-5, tie_word_embeddings=True,
                       bos_token_id=tok.bos_token_id, eos_token_id=stop)


def make_checkpoint(kind, folder, cache):
    """A seeded random backbone saved as a Hugging Face checkpoint in `folder`."""
    from transformers import AutoModelForCausalLM
    tok = tokenizer(kind, cache)
    config = backbone_config(kind, tok)
    torch.manual_seed(SEEDS[kind])
    model = AutoModelForCausalLM.from_config(config).eval()
    with torch.no_grad():
        # Text tokens are never drawn (upstream's streaming takes every generated token for a code).
        first_speech = tok.convert_tokens_to_ids("<|speech_0|>")
        stop = tok.convert_tokens_to_ids("<|SPEECH_GENERATION_END|>")
        head = model.get_output_embeddings().weight
        if config.tie_word_embeddings:
            # Tied: the rows are the text tokens' embeddings too, so they are scaled down rather than zeroed;
            # their logits stay far below the speech tokens' top 50.
            head[:first_speech][torch.arange(first_speech) != stop] *= 1e-3
        else:
            head[:first_speech][torch.arange(first_speech) != stop] = 0
    shutil.rmtree(folder, ignore_errors=True)
    model.save_pretrained(folder, safe_serialization=True)
    tok.save_pretrained(folder)
    values = sum(p.numel() for p in model.parameters())
    tensors = len(model.state_dict()) - (1 if config.tie_word_embeddings else 0)
    log(f"{kind}: {values / 1e6:.1f} M values, {tensors} tensors, vocabulary {len(tok)} -> {folder}")
    return values


def export_backbone(checkpoint, out):
    """scripts/export-neutts-backbone.py on the checkpoint, as a user runs it."""
    subprocess.run([sys.executable, BACKBONE_EXPORT, checkpoint, out, "--check"], check=True)


def make_decoder(path):
    import make_testdata
    torch.manual_seed(SEEDS["decoder"])
    codec = make_testdata.CodecDecoding().eval()
    with torch.no_grad():
        codec.generator.head.out.weight.mul_(0.3)
    make_testdata.swap_for_onnx(codec, dim=1024, max_frames=6000)
    codes = torch.randint(0, backbone_export.SPEECH, (1, 1, 40), dtype=torch.int32)
    make_testdata.export_decoder(codec, codes, path)
    log(f"decoder: {sum(p.numel() for p in codec.parameters()) / 1e6:.1f} M values -> {path} "
        f"({os.path.getsize(path):,} bytes)")


def make_encoder(path):
    """NeuCodec at full size from upstream's classes (NeuCodec.__init__ itself downloads w2v-bert-2.0)."""
    import torch.nn as nn
    from neucodec import NeuCodec
    from neucodec.codec_decoder_vocos import CodecDecoderVocos
    from neucodec.codec_encoder import CodecEncoder
    from neucodec.module import SemanticEncoder
    from transformers import SeamlessM4TFeatureExtractor, Wav2Vec2BertConfig, Wav2Vec2BertModel
    torch.manual_seed(SEEDS["encoder"])
    codec = NeuCodec.__new__(NeuCodec)
    nn.Module.__init__(codec)
    codec.sample_rate, codec.hop_length = 24_000, 480
    codec.semantic_model = Wav2Vec2BertModel(Wav2Vec2BertConfig(output_hidden_states=True))
    codec.feature_extractor = SeamlessM4TFeatureExtractor(padding_value=1.0)
    codec.SemanticEncoder_module = SemanticEncoder(1024, 1024, 1024)
    codec.CodecEnc = CodecEncoder()
    codec.generator = CodecDecoderVocos(hop_length=480)
    codec.fc_prior = nn.Linear(2048, 2048)
    codec.fc_post_a = nn.Linear(2048, 1024)
    codec.eval()
    encoder_export.export_encoder(codec, path)
    size = sum(os.path.getsize(p) for p in (path, path + ".data") if os.path.exists(p))
    log(f"encoder: {sum(p.numel() for p in codec.parameters()) / 1e6:.1f} M values before the cut to 16 layers "
        f"-> {path} ({size:,} bytes with its data)")


def link(source, target):
    if os.path.exists(target):
        os.remove(target)
    os.link(source, target)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", help="the CHORUS_MODELS root to write neutts/ and neutts-air/ into")
    parser.add_argument("--only", choices=["nano", "air"], action="append", help="build these backbones only")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    root = os.path.abspath(os.path.dirname(os.path.abspath(args.models)))
    cache = os.path.join(root, "neutts-cache")
    os.environ.setdefault("NEUCODEC_REPO", os.path.join(cache, "neucodec"))  # where prepare.sh puts it
    if not os.path.isfile(os.path.join(os.environ.get("NEUCODEC_REPO", ""), "onnx", "onnx_ops.py")):
        sys.exit("NEUCODEC_REPO must name a checkout of the neuphonic/neucodec repository (its onnx/onnx_ops.py "
                 "swaps the decoder for export); scripts/realsize/neutts/prepare.sh makes one")
    shared = os.path.join(cache, "codec")
    os.makedirs(shared, exist_ok=True)
    decoder, encoder = os.path.join(shared, "decoder.onnx"), os.path.join(shared, "encoder.onnx")
    if not os.path.exists(decoder):
        make_decoder(decoder)
    if not os.path.exists(encoder):
        make_encoder(encoder)
    for kind in args.only or ["nano", "air"]:
        checkpoint = os.path.join(root, "neutts-checkpoints", kind)
        folder = os.path.join(args.models, FOLDERS[kind])
        staging = folder + ".partial"
        shutil.rmtree(staging, ignore_errors=True)
        os.makedirs(staging)
        make_checkpoint(kind, checkpoint, cache)
        export_backbone(checkpoint, staging)
        for name in ("decoder.onnx", "encoder.onnx", "encoder.onnx.data"):
            if os.path.exists(os.path.join(shared, name)):
                link(os.path.join(shared, name), os.path.join(staging, name))
        with open(os.path.join(staging, ".complete"), "w") as f:
            f.write("neutts")
        shutil.rmtree(folder, ignore_errors=True)
        os.rename(staging, folder)
        sizes = {name: os.path.getsize(os.path.join(folder, name)) for name in sorted(os.listdir(folder))}
        log(f"{folder}: {json.dumps(sizes)}")


if __name__ == "__main__":
    main()
