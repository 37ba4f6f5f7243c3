#!/usr/bin/env python3
"""Goldens for ChorusAudio's SincResampler from torchaudio itself (Tests/ChorusAudioTests/Resources/sinc).

CosyVoice's front end resamples a voice clip with torchaudio.transforms.Resample (windowed sinc, Hann,
lowpass_filter_width 6, rolloff 0.99) before its features; these are torchaudio's
outputs with those defaults on a fixed test signal, for the rate pairs a clip meets on its way to 16 and
24 kHz, made by torchaudio.transforms.Resample as upstream's load_wav calls it (its kernel is computed in
float64 and kept in float32; torchaudio.functional.resample would compute it in float32). Deterministic (seeded numpy signal). Needs PyPI torch and torchaudio (generation time only).

    python3 scripts/testdata/make_sinc_resampler_goldens.py
"""
import os

import numpy as np
import torch
import torchaudio

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "ChorusAudioTests", "Resources", "sinc")
PAIRS = [(22050, 16000), (22050, 24000), (44100, 16000), (48000, 24000), (8000, 16000), (24000, 16000)]


def signal(rate, seconds=0.25):
    """Tones across the band, a sweep and seeded noise: something in every bin, near the edges too."""
    t = np.arange(int(rate * seconds)) / rate
    rng = np.random.default_rng(rate)
    x = 0.3 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 0.45 * rate * t)
    x += 0.2 * np.sin(2 * np.pi * (100 + 0.2 * rate * t) * t) + 0.05 * rng.standard_normal(t.size)
    return x.astype(np.float32)


def main():
    os.makedirs(OUT, exist_ok=True)
    for rate in sorted({p[0] for p in PAIRS}):
        signal(rate).astype("<f4").tofile(os.path.join(OUT, f"input_{rate}.f32"))
    for source, target in PAIRS:
        waveform = torch.from_numpy(signal(source))[None]
        resampled = torchaudio.transforms.Resample(orig_freq=source, new_freq=target)(waveform)[0].numpy()
        resampled.astype("<f4").tofile(os.path.join(OUT, f"{source}_{target}.f32"))
        print(f"{source} -> {target}: {waveform.shape[1]} -> {resampled.size} samples")
    print("torch", torch.__version__, "torchaudio", torchaudio.__version__)


if __name__ == "__main__":
    main()
