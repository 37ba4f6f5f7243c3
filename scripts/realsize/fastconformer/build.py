#!/usr/bin/env python3
"""The real-size FastConformer CTC stand-in: NeMo's own classes at FastConformer Large's published
configuration, seeded random weights, exported by scripts/export-fastconformer.py.

    python build.py MODELS          # MODELS is a CHORUS_MODELS root, e.g. /work/realsize/models

Writes
  MODELS/../fastconformer-ctc-large-random.nemo   the checkpoint, as a user holding real weights has one;
  MODELS/fastconformer/           encoder.onnx (NeMo's free-length export with `length`), tokenizer.model,
                                  tokens.txt, .complete: what export-fastconformer.py writes by default, so
                                  what a user following docs/models.md has;
  MODELS/fastconformer-buckets/   encoder_T{80,200,400,800,1600,2400,4800}.onnx sharing encoder.weights and
                                  the same tokenizer: the seed export's length buckets (`--model` to use it).

The model: EncDecCTCModelBPE with NeMo's ConformerEncoder as NeMo's examples/asr/conf/fastconformer/
fast-conformer_ctc_bpe.yaml gives it (d_model 512, 18 layers, 8 heads, feed-forward x4, 8x dw_striding
subsampling with 256 channels, relative positions with untied biases, conv kernel 9, batch norm,
xscaling), a ConvASRDecoder CTC head over 1024 SentencePiece pieces plus the blank (the seed's 1025
classes), and the 80-mel per-feature-normalised preprocessor: 115.6 M parameters, 462 MB in float32.
(That file's table lists 17 layers for Large, as the hybrid RNNT/CTC config has, which makes 109.3 M;
the CTC config's 18 is nearer the seed's 257 MB Core ML package in float16.) The tokenizer is a
real SentencePiece unigram model of 1024 pieces that NeMo's create_spt_model trains on the text of
Python's own documentation (pydoc_data, shipped with every Python), so it needs no download.
Seeded (torch and sentencepiece), so a rebuild gives the same files.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORT = os.path.join(HERE, "..", "..", "export-fastconformer.py")
VOCABULARY = 1024
BUCKETS = [80, 200, 400, 800, 1600, 2400, 4800]
SEED = 39


def config(tokenizer_dir):
    from omegaconf import OmegaConf

    return OmegaConf.create({
        "sample_rate": 16000,
        # No data; NeMo's transcribe reads validation_ds's settings, as published checkpoints carry them.
        **{name: {"manifest_filepath": None, "sample_rate": 16000, "batch_size": 16, "shuffle": False,
                  "use_start_end_token": False} for name in ("train_ds", "validation_ds", "test_ds")},
        "tokenizer": {"dir": tokenizer_dir, "type": "bpe"},
        "preprocessor": {
            "_target_": "nemo.collections.asr.modules.AudioToMelSpectrogramPreprocessor",
            "sample_rate": 16000, "normalize": "per_feature", "window_size": 0.025, "window_stride": 0.01,
            "window": "hann", "features": 80, "n_fft": 512, "log": True, "frame_splicing": 1,
            "dither": 0.00001, "pad_to": 0, "pad_value": 0.0,
        },
        "encoder": {
            "_target_": "nemo.collections.asr.modules.ConformerEncoder",
            "feat_in": 80, "feat_out": -1, "n_layers": 18, "d_model": 512,
            "subsampling": "dw_striding", "subsampling_factor": 8, "subsampling_conv_channels": 256,
            "causal_downsampling": False, "ff_expansion_factor": 4,
            "self_attention_model": "rel_pos", "n_heads": 8, "att_context_size": [-1, -1],
            "att_context_style": "regular", "xscaling": True, "untie_biases": True, "pos_emb_max_len": 5000,
            "conv_kernel_size": 9, "conv_norm_type": "batch_norm", "conv_context_size": None,
            "dropout": 0.1, "dropout_pre_encoder": 0.1, "dropout_emb": 0.0, "dropout_att": 0.1,
        },
        "decoder": {"_target_": "nemo.collections.asr.modules.ConvASRDecoder", "feat_in": None,
                    "num_classes": -1, "vocabulary": []},
    })


def tokenizer(folder):
    import pydoc_data.topics
    import sentencepiece
    from nemo.collections.common.tokenizers.sentencepiece_tokenizer import create_spt_model

    text = os.path.join(folder, "text.txt")
    with open(text, "w", encoding="utf-8") as out:
        for name in sorted(pydoc_data.topics.topics):
            for line in pydoc_data.topics.topics[name].splitlines():
                if line.strip():
                    out.write(line.strip() + "\n")
    sentencepiece.set_random_generator_seed(SEED)
    model_path, _ = create_spt_model(text, VOCABULARY, sample_size=-1, do_lower_case=False,
                                     tokenizer_type="unigram", output_dir=folder)
    return os.path.dirname(model_path)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: build.py MODELS (a CHORUS_MODELS root, such as /work/realsize/models)")
    models = os.path.abspath(sys.argv[1])
    os.makedirs(models, exist_ok=True)
    nemo_path = os.path.join(os.path.dirname(models), "fastconformer-ctc-large-random.nemo")

    import torch
    from nemo.collections.asr.models import EncDecCTCModelBPE

    torch.manual_seed(SEED)
    with tempfile.TemporaryDirectory() as scratch:
        model = EncDecCTCModelBPE(cfg=config(tokenizer(scratch)))
        parameters = sum(p.numel() for p in model.parameters())
        if model.tokenizer.vocab_size != VOCABULARY:
            sys.exit(f"build.py: the tokenizer has {model.tokenizer.vocab_size} pieces, not {VOCABULARY}.")
        model.save_to(nemo_path)
    print(f"{parameters / 1e6:.1f} M parameters -> {nemo_path}", file=sys.stderr)
    del model

    for folder, extra in (("fastconformer", []),
                          ("fastconformer-buckets", ["--buckets", ",".join(map(str, BUCKETS))])):
        subprocess.run([sys.executable, EXPORT, nemo_path, os.path.join(models, folder), *extra], check=True)


if __name__ == "__main__":
    main()
