#!/usr/bin/env python3
"""Goldens for ChorusAudio's LoudnessMeter from pyloudnorm itself (Tests/ChorusAudioTests/Resources/loudness).

Chatterbox Turbo normalises a voice clip to -27 LUFS with pyloudnorm (`tts_turbo.py` norm_loudness:
Meter(sr).integrated_loudness, then gain 10^((target - loudness) / 20) when finite). These are pyloudnorm's
integrated loudness and normalised outputs on synthetic signals (tones, noise, a quiet passage under the
relative gate, a signal with blocks under the absolute gate, stereo, 5 channels, rates 8-48 kHz, lengths that
do not fill a last block) and on real speech (the Kokoro and Piper clips of the VAD tests, copied here).
Deterministic (seeded numpy). Needs PyPI chatterbox-tts==0.1.7 (its norm_loudness), pyloudnorm, numpy, soundfile (generation time only).

    python3 scripts/testdata/make_loudness_goldens.py
"""
import json
import os
import shutil

import numpy as np
import pyloudnorm
import soundfile
from chatterbox.tts_turbo import ChatterboxTurboTTS

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
OUT = os.path.join(ROOT, "Tests", "ChorusAudioTests", "Resources", "loudness")
SPEECH = ["speech_pauses_kokoro_16k.wav", "speech_pauses_piper_16k.wav"]
TARGET = -27.0
NORMALIZED = {"tone_1k_24k", "speech_pauses_kokoro_16k"}


def synthetic():
    """(name, rate, channels, float32 frames x channels)."""
    rng = np.random.default_rng(1770)
    cases = []

    def add(name, rate, x):
        x = np.asarray(x, dtype=np.float32)
        if x.ndim == 1:
            x = x[:, None]
        cases.append((name, rate, x.shape[1], x))

    t = np.arange(int(24000 * 1.3)) / 24000
    add("tone_1k_24k", 24000, 0.25 * np.sin(2 * np.pi * 997 * t))
    t = np.arange(int(48000 * 0.734)) / 48000
    add("noise_48k", 48000, 0.1 * rng.standard_normal(t.size))
    t = np.arange(int(44100 * 2.05)) / 44100
    loud = 0.5 * np.sin(2 * np.pi * 220 * t) * (t < 1.0)
    quiet = 0.004 * np.sin(2 * np.pi * 3000 * t) * (t >= 1.0)
    add("relative_gate_44k", 44100, loud + quiet)
    t = np.arange(int(16000 * 2.0)) / 16000
    add("absolute_gate_16k", 16000, 0.3 * rng.standard_normal(t.size) * (t > 1.2))
    t = np.arange(int(8000 * 0.4)) / 8000
    add("one_block_8k", 8000, 0.2 * np.sin(2 * np.pi * 50 * t))
    t = np.arange(int(22050 * 0.77)) / 22050
    add("stereo_22k", 22050, np.stack([0.3 * np.sin(2 * np.pi * 440 * t), 0.05 * rng.standard_normal(t.size)], 1))
    t = np.arange(int(32000 * 0.5)) / 32000
    add("five_channels_32k", 32000, np.stack([0.1 * (c + 1) * np.sin(2 * np.pi * (100 + 300 * c) * t) for c in range(5)], 1))
    add("sweep_24k", 24000, 0.4 * np.sin(2 * np.pi * (20 + 2000 * t[: int(24000 * 1.1)] ** 2)))
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = synthetic()
    for name in SPEECH:
        shutil.copyfile(os.path.join(ROOT, "Tests", "ChorusVADTests", "Resources", name), os.path.join(OUT, name))
        data, rate = soundfile.read(os.path.join(OUT, name), dtype="float32", always_2d=True)
        cases.append((name[:-4], rate, data.shape[1], data))
    index = []
    for name, rate, channels, x in cases:
        meter = pyloudnorm.Meter(rate)
        loudness = float(meter.integrated_loudness(x if channels > 1 else x[:, 0]))
        if not name.startswith("speech_pauses"):
            x.astype("<f4").tofile(os.path.join(OUT, f"{name}.f32"))
        # What upstream's norm_loudness returns for a mono float32 clip (real speech and one tone).
        if channels == 1 and name in NORMALIZED:
            normalized = ChatterboxTurboTTS.norm_loudness(None, x[:, 0], rate, target_lufs=TARGET).astype("<f4")
            normalized.tofile(os.path.join(OUT, f"{name}.normalized.f32"))
        index.append({"name": name, "rate": rate, "channels": channels, "loudness": loudness,
                      "wav": name.startswith("speech_pauses"),
                      "normalized": name in NORMALIZED})
        print(f"{name}: {rate} Hz x {channels}, {x.shape[0]} frames, {loudness:.6f} LUFS")
    with open(os.path.join(OUT, "loudness.json"), "w") as out:
        json.dump({"pyloudnorm": "0.2.0",
                   "target": TARGET, "cases": index}, out, indent=1)


if __name__ == "__main__":
    main()
