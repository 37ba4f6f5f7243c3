#!/usr/bin/env python3
"""The NeuCodec encoder's test model and goldens for Tests/ChorusNeuTTSTests, made with upstream's own classes
and functions (neucodec==0.0.6, neutts==1.4.1, transformers' SeamlessM4TFeatureExtractor and Wav2Vec2BertModel).

The graph is made by scripts/export-neucodec-encoder.py's `export_encoder`, the export a user runs on the real
codec, here on a small NeuCodec: upstream's NeuCodec with its parts built small from upstream's classes, weights
pinned by torch.manual_seed (Wav2Vec2-BERT width 16, 18 layers so the cut to 16 is exercised; CodecEncoder
ngf 4 to width 16; SemanticEncoder 16; fc_prior 32 -> 2048; the generator's ResidualFSQ at upstream's 2048 and
4^8 levels). Its semantic model is not w2v-bert-2.0 and its weights are random: the codes test the plumbing
(features, padding, layer cut, concatenation, FSQ indices), not speech.

Made (deterministic):
  model/encoder.onnx              the encoder graph (audio [1, 1, N], features [1, N/320 - 1, 160] -> codes)
  golden/encoder-16k.wav          a 2.61 s clip, float32 mono 16 kHz: chirps, harmonics, noise, a quiet part
  golden/encoder-44k.wav          the same signal made at 44.1 kHz, 16-bit stereo (channels differ in level)
  golden/encoder-44k-at-16k.f32   that clip as encode_reference reads it: librosa.load(sr=16000, mono=True)
  golden/encoder-features.f32     SeamlessM4TFeatureExtractor's input_features of the padded 16 kHz clip, as
                                  encode_code computes them
  golden/encoder.json             NeuTTS.encode_reference's codes of both clips (librosa load at 16 kHz mono,
                                  then encode_code) on the small codec, the graph's codes (onnxruntime), the
                                  features' shape, and the smallest distance of an FSQ value to a rounding
                                  boundary on the 16 kHz clip (how far features may move before a code flips)

Environment (as run): torch 2.13.0+cpu, transformers==5.1.0, vector-quantize-pytorch==1.17.8, torchtune,
torchao==0.13.0, local_attention, librosa==0.11.0 (soxr 1.1.0), phonemizer, onnx 1.23.2, onnxruntime 1.32.0,
onnxscript 0.7.2, then neutts==1.4.1 and neucodec==0.0.6 with --no-deps; torchaudio==2.11.0 (no CPU build of it
matches torch 2.13) with --no-deps and its compiled extension moved aside: neucodec imports torchaudio only to
read files, and encode_code on a tensor never calls it.
Usage: python make_encoder_testdata.py OUT_DIR   (OUT_DIR: Tests/ChorusNeuTTSTests/Resources)
"""
import argparse
import importlib.util
import json
import os
import struct
import types

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORT = os.path.join(HERE, "..", "..", "export-neucodec-encoder.py")


def export_module():
    spec = importlib.util.spec_from_file_location("export_neucodec_encoder", EXPORT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def small_codec():
    """upstream's NeuCodec with small parts; NeuCodec.__init__ itself would download w2v-bert-2.0."""
    import torch.nn as nn
    from neucodec import NeuCodec
    from neucodec.codec_decoder_vocos import CodecDecoderVocos
    from neucodec.codec_encoder import CodecEncoder
    from neucodec.module import SemanticEncoder
    from transformers import SeamlessM4TFeatureExtractor, Wav2Vec2BertConfig, Wav2Vec2BertModel

    torch.manual_seed(17)
    codec = NeuCodec.__new__(NeuCodec)
    nn.Module.__init__(codec)
    codec.sample_rate, codec.hop_length = 24_000, 480
    config = Wav2Vec2BertConfig(hidden_size=16, num_hidden_layers=18, num_attention_heads=2, intermediate_size=32,
                                output_hidden_size=16, conv_depthwise_kernel_size=7, output_hidden_states=True)
    codec.semantic_model = Wav2Vec2BertModel(config)
    # w2v-bert-2.0's preprocessor_config.json: the class defaults with padding_value 1.
    codec.feature_extractor = SeamlessM4TFeatureExtractor(padding_value=1.0)
    codec.SemanticEncoder_module = SemanticEncoder(16, 16, 16)
    codec.CodecEnc = CodecEncoder(ngf=4, hidden_dim=16)
    codec.generator = CodecDecoderVocos(hidden_dim=32, depth=1, heads=2, pos_meb_dim=8, hop_length=480)
    codec.fc_prior = nn.Linear(32, 2048)
    codec.fc_post_a = nn.Linear(2048, 32)
    with torch.no_grad():
        # Random init leaves the FSQ's eight values near 0, so nearly every code would be the same; a larger
        # projection spreads them over the 4 levels (x10: 92 distinct codes of 130, while noise of 1e-5 on
        # the clip still leaves 98% of them as they were).
        codec.generator.quantizer.project_in.weight.mul_(10)
    return codec.eval()


def clip(rate, channels, seconds=2.61, seed=18):
    """A deterministic test signal: two chirps, a harmonic tone under a 3 Hz envelope, a quieter 0.2 s, noise.
    No digital silence: a silent frame's log-mel sits at the floor, and the per-bin normalisation carries any
    change there (a resampler's ringing) into every frame, which flips most codes of a random codec."""
    n = int(round(seconds * rate))
    t = np.arange(n) / rate
    rng = np.random.default_rng(seed)
    chirp = np.sin(2 * np.pi * (150 * t + 400 * t ** 2)) + 0.5 * np.sin(2 * np.pi * (2500 * t - 300 * t ** 2))
    tone = sum(np.sin(2 * np.pi * 220 * k * t) / k for k in range(1, 6))
    envelope = 0.55 + 0.45 * np.sin(2 * np.pi * 3 * t)
    mono = 0.2 * chirp * envelope + 0.1 * tone
    mono[(t > 1.2) & (t < 1.4)] *= 0.05
    mono = (mono + 0.02 * rng.standard_normal(n)).astype(np.float32)
    if channels == 1:
        return mono[:, None]
    return np.stack([mono * 0.9, mono * 0.7], axis=1).astype(np.float32)


def write_wav(path, frames, rate, pcm16=False):
    """A WAV file of frames [n, channels]: WAVE_FORMAT_IEEE_FLOAT float32, or 16-bit PCM (x * 32768 rounded)."""
    channels = frames.shape[1]
    if pcm16:
        body = np.clip(np.round(frames * 32768), -32768, 32767).astype("<i2").tobytes()
        fmt = struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * 2 * channels, 2 * channels, 16)
        header = b"RIFF" + struct.pack("<I", 4 + 24 + 8 + len(body)) + b"WAVE" + b"fmt " + fmt
    else:
        body = frames.astype("<f4").tobytes()
        fmt = struct.pack("<IHHIIHHH", 18, 3, channels, rate, rate * 4 * channels, 4 * channels, 32, 0)
        header = b"RIFF" + struct.pack("<I", 4 + 26 + 12 + 8 + len(body)) + b"WAVE" + b"fmt " + fmt
        header += b"fact" + struct.pack("<II", 4, frames.shape[0])
    with open(path, "wb") as f:
        f.write(header + b"data" + struct.pack("<I", len(body)) + body)


def encode_reference(codec, path):
    """upstream NeuTTS.encode_reference on `codec`."""
    from neutts import NeuTTS
    stub = types.SimpleNamespace(codec=codec)
    return NeuTTS.encode_reference(stub, path).numpy().astype(int)


def fsq_margin(codec, samples):
    """The smallest distance of an FSQ value to a rounding boundary (x.5) on `samples`, in the quantizer's units."""
    fsq = codec.generator.quantizer.layers[0]
    seen = []

    def hook(module, inputs, output):
        z = inputs[0]
        seen.append(fsq.bound(z) if hasattr(fsq, "bound") else z)

    handle = fsq.register_forward_hook(hook)
    try:
        with torch.no_grad():
            codec.encode_code(torch.from_numpy(samples)[None, None, :])
    finally:
        handle.remove()
    bounded = seen[0].double()
    return float((bounded - bounded.floor() - 0.5).abs().min())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    model_dir, golden_dir = os.path.join(args.out, "model"), os.path.join(args.out, "golden")
    os.makedirs(model_dir, exist_ok=True)
    os.makedirs(golden_dir, exist_ok=True)
    exporter = export_module()
    codec = small_codec()

    paths = {"16k": os.path.join(golden_dir, "encoder-16k.wav"), "44k": os.path.join(golden_dir, "encoder-44k.wav")}
    write_wav(paths["16k"], clip(16_000, 1), 16_000)
    write_wav(paths["44k"], clip(44_100, 2), 44_100, pcm16=True)
    expected = {name: encode_reference(codec, path) for name, path in paths.items()}

    # The cut to 16 layers changes nothing upstream reads.
    samples = clip(16_000, 1)[:, 0]
    full = torch.from_numpy(samples)[None, None, :]
    with torch.no_grad():
        before = codec.encode_code(full)
        layers = exporter.cut_semantic_model(codec)
        after = codec.encode_code(full)
        codec.semantic_model.encoder.layers = layers
    assert torch.equal(before, after), "cutting Wav2Vec2-BERT to 16 layers changed the codes"

    path = exporter.export_encoder(codec, os.path.join(model_dir, "encoder.onnx"))
    graph = {name: exporter.onnx_codes(path, clip(16_000, 1)[:, 0]) for name in ["16k"]}
    import librosa
    resampled, _ = librosa.load(paths["44k"], sr=16_000, mono=True)
    graph["44k"] = exporter.onnx_codes(path, resampled)
    resampled.astype("<f4").tofile(os.path.join(golden_dir, "encoder-44k-at-16k.f32"))
    for name in expected:
        same = int((graph[name].reshape(-1) == expected[name].reshape(-1)).sum())
        print(f"{name}: graph gives {same} of {expected[name].size} of encode_reference's codes")
        assert same == expected[name].size

    features = exporter.features_of(codec, exporter.padded(samples)).numpy()
    features.astype("<f4").tofile(os.path.join(golden_dir, "encoder-features.f32"))
    margin = fsq_margin(codec, samples)
    codes16 = expected["16k"].reshape(-1).tolist()
    print(f"16 kHz: {len(codes16)} codes, {len(set(codes16))} distinct; features {features.shape}; FSQ margin {margin:.2e}")
    golden = {
        "codes_16k": codes16,
        "codes_44k": expected["44k"].reshape(-1).tolist(),
        "samples_16k": int(samples.shape[0]),
        "features_shape": list(features.shape[1:]),
        "fsq_margin": margin,
    }
    with open(os.path.join(golden_dir, "encoder.json"), "w") as f:
        json.dump(golden, f)
    print("encoder.onnx", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
