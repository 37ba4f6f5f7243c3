#!/usr/bin/env python3
"""Export NeuCodec's encoder (neucodec==0.0.6 `NeuCodec.encode_code`) to ONNX for `chorus voice add --engine neutts
--audio CLIP.wav`: put the result in the NeuTTS model folder as encoder.onnx.

Neuphonic publishes the decoder as ONNX but no encoder: it recommends pre-encoded references. This script makes
the encoder graph from the PyTorch codec. It needs the real weights, which `NeuCodec.from_pretrained` downloads
from Hugging Face (neuphonic/neucodec's pytorch_model.bin and facebook/w2v-bert-2.0, a few GB) or
finds in the Hugging Face cache (set HF_HUB_OFFLINE=1 to use only the cache). The Chorus developers' machines
cannot reach Hugging Face, so this script has not been run on the real weights there; the same export
(`export_encoder` below) runs on a small NeuCodec built from upstream's classes in
scripts/testdata/neutts/make_encoder_testdata.py, whose graph gives upstream's codes exactly.

The graph is upstream's `encode_code` with the two steps that are not torch code taken as inputs: the
SeamlessM4T feature extractor (numpy) and the padding of the clip to a multiple of 320 samples, both done by
Chorus (Sources/ChorusNeuTTS/CodecEncoder.swift):
  audio     float32 [1, 1, N]            the 16 kHz clip padded with 320 - (n % 320) zeros
  features  float32 [1, N / 320 - 1, 160] SeamlessM4TFeatureExtractor(audio).input_features
  codes     int32   [1, 1, N / 320 - 1]  the FSQ indices, 0-65535 (vector-quantize-pytorch makes them int32)
Wav2Vec2-BERT keeps its first 16 layers only: encode_code reads hidden state 16 (the input of layer 16), so the
last 8 layers never reach the codes (about 440 M weights remain: a graph of about 1.8 GB, by the parameter
count); --check compares the graph's codes with the whole model's encode_code on a clip of yours.

Environment: pip install torch neucodec==0.0.6 onnx onnxruntime onnxscript (Python 3.10-3.12).

Usage:
  python scripts/export-neucodec-encoder.py OUT/encoder.onnx [--check CLIP.wav] [--model neuphonic/neucodec]
"""
import argparse
import os
import sys
import types

import numpy as np
import torch

SAMPLES_PER_CODE = 320
SEMANTIC_LAYER = 16  # encode_code reads semantic_model(...).hidden_states[16]


class EncoderGraph(torch.nn.Module):
    """upstream's NeuCodec.encode_code over `codec`, with the clip already padded and its features given."""

    def __init__(self, codec):
        super().__init__()
        self.codec = codec

    def forward(self, audio, features):
        from neucodec import NeuCodec
        codec = self.codec
        # The two steps upstream does outside torch, replaced by what the inputs already hold: _prepare_audio's
        # padding (the audio comes padded) and the feature extractor's call (the features come computed).
        saved = codec.__dict__.get("_prepare_audio"), codec.__dict__.get("feature_extractor")
        codec._prepare_audio = lambda y: y
        codec.feature_extractor = lambda *args, **kwargs: types.SimpleNamespace(input_features=features)
        try:
            return NeuCodec.encode_code(codec, audio)
        finally:
            for name, value in zip(("_prepare_audio", "feature_extractor"), saved):
                if value is None:
                    codec.__dict__.pop(name, None)
                else:
                    codec.__dict__[name] = value


def cut_semantic_model(codec):
    """Keeps Wav2Vec2-BERT's first 16 layers (hidden state 16 is their output); returns the full list."""
    layers = codec.semantic_model.encoder.layers
    if len(layers) < SEMANTIC_LAYER:
        raise SystemExit(f"the semantic model has {len(layers)} layers; encode_code reads hidden state {SEMANTIC_LAYER}")
    codec.semantic_model.encoder.layers = torch.nn.ModuleList(list(layers)[:SEMANTIC_LAYER])
    return layers


def padded(samples):
    """upstream NeuCodec._prepare_audio's padding on a 1-D float32 array."""
    return np.pad(samples, (0, SAMPLES_PER_CODE - len(samples) % SAMPLES_PER_CODE))


def features_of(codec, padded_samples):
    """The features encode_code computes from the padded clip, as float32 [1, N / 320 - 1, 160]."""
    y = torch.from_numpy(padded_samples).float()[None, None, :]
    return codec.feature_extractor(y.squeeze(0), sampling_rate=16_000, return_tensors="pt").input_features.float()


def export_encoder(codec, path, example_seconds=2.0):
    """Writes the encoder graph of `codec` (a NeuCodec, eval mode) to `path` as one ONNX file (weights inside
    when under 2 GB, else beside it in path + '.data')."""
    import onnx
    codec.eval()
    full = cut_semantic_model(codec)
    try:
        graph = EncoderGraph(codec).eval()
        samples = np.random.default_rng(0).uniform(-0.3, 0.3, int(example_seconds * 16_000)).astype(np.float32)
        audio = torch.from_numpy(padded(samples))[None, None, :]
        features = features_of(codec, padded(samples))
        frames = torch.export.Dim("frames", min=1, max=6000)
        shapes = {"audio": {2: SAMPLES_PER_CODE * (frames + 1)}, "features": {1: frames}}
        with torch.no_grad():
            program = torch.onnx.export(graph, (audio, features), dynamo=True, dynamic_shapes=shapes,
                                        input_names=["audio", "features"], output_names=["codes"])
        program.save(path)
    finally:
        codec.semantic_model.encoder.layers = full
    model = onnx.load(path, load_external_data=True)
    for node in model.graph.node:
        del node.metadata_props[:]  # the exporter's Python stack of each node: two thirds of a small graph's bytes
    data = path + ".data"
    if os.path.exists(data):
        os.remove(data)
    if model.ByteSize() < 2_000_000_000:
        onnx.save(model, path)
    else:
        onnx.save(model, path, save_as_external_data=True, location=os.path.basename(data))
    onnx.checker.check_model(path)
    return path


def onnx_codes(path, samples):
    """Codes of a 16 kHz float32 clip through the exported graph, with upstream's extractor for the features."""
    import onnxruntime as ort
    from transformers import SeamlessM4TFeatureExtractor
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    audio = padded(samples)
    extractor = SeamlessM4TFeatureExtractor(padding_value=1.0)
    features = extractor(torch.from_numpy(audio)[None, :], sampling_rate=16_000, return_tensors="np").input_features
    return session.run(["codes"], {"audio": audio[None, None, :], "features": features.astype(np.float32)})[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="where to write encoder.onnx (the NeuTTS model folder's encoder.onnx)")
    parser.add_argument("--model", default="neuphonic/neucodec", help="the Hugging Face repository of the codec")
    parser.add_argument("--check", metavar="CLIP.wav",
                        help="also encode this clip with upstream's encode_code and with the graph and compare the codes")
    args = parser.parse_args()
    from neucodec import NeuCodec
    if args.model != "neuphonic/neucodec":
        sys.exit("only neuphonic/neucodec (Wav2Vec2-BERT semantic model) has this encoder; distill-neucodec differs")
    codec = NeuCodec.from_pretrained(args.model).eval()
    export_encoder(codec, args.out)
    print("wrote", args.out)
    if args.check:
        import librosa
        samples, _ = librosa.load(args.check, sr=16_000, mono=True)  # as NeuTTS.encode_reference loads it
        with torch.no_grad():
            expected = codec.encode_code(torch.from_numpy(samples)[None, None, :]).numpy()
        actual = onnx_codes(args.out, samples)
        same = int((expected == actual).sum())
        print(f"check: {same} of {expected.size} codes equal to encode_code's")
        if same != expected.size:
            sys.exit(1)


if __name__ == "__main__":
    main()
