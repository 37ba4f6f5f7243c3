#!/usr/bin/env python3
"""Writes the VAD test audio and its golden segments (Tests/VADTests/Resources).

Three sentences spoken by espeak-ng, each trimmed to its first and last audible sample, laid out
between silences of known length, so the true speech boundaries are known to the sample. Then the
Python `silero-vad` package's own `get_speech_timestamps` (ONNX model, defaults) runs on the very
int16 samples the WAV files hold, at 16 kHz and 8 kHz, and its segments and per-window
probabilities are written next to the audio.

Deterministic for a given espeak-ng (1.51 here): no randomness but a seeded noise floor.
Needs espeak-ng, numpy, scipy, torch, onnxruntime and silero-vad==6.2.3:

    python3 -m venv --system-site-packages /tmp/vad-venv
    /tmp/vad-venv/bin/pip install torch==2.8.0 silero-vad==6.2.3
    /tmp/vad-venv/bin/python scripts/testdata/make_vad_testdata.py
"""
import io
import json
import os
import subprocess
import sys
import wave

import numpy as np
from scipy.signal import resample_poly

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "Tests", "VADTests", "Resources")

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Chorus runs speech models on this machine.",
    "Every sentence here is followed by silence.",
]
# Silence before each sentence, and after the last one, in seconds.
GAPS = [0.6, 0.8, 0.45, 0.7]
RATE = 16000


def speak(text):
    """espeak-ng's 22,050 Hz output for `text`, resampled to 16 kHz, trimmed to its audible part."""
    wav = subprocess.run(["espeak-ng", "-v", "en-us", "--stdout", text], check=True, capture_output=True).stdout
    with wave.open(io.BytesIO(wav)) as reader:
        assert reader.getframerate() == 22050 and reader.getsampwidth() == 2
        samples = np.frombuffer(reader.readframes(reader.getnframes()), np.int16).astype(np.float64) / 32768
    samples = resample_poly(samples, 320, 441)
    audible = np.flatnonzero(np.abs(samples) > 0.01)
    return samples[audible[0]:audible[-1] + 1]


def write_wav(path, samples, rate):
    pcm = np.clip(np.round(samples * 32767), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(pcm.tobytes())
    return pcm.astype(np.float32) / 32768


def main():
    import torch
    from silero_vad import get_speech_timestamps, load_silero_vad

    parts, truth, cursor = [], [], 0
    for gap, sentence in zip(GAPS, SENTENCES + [None]):
        silence = int(round(gap * RATE))
        parts.append(np.zeros(silence))
        cursor += silence
        if sentence is not None:
            speech = speak(sentence)
            parts.append(speech)
            truth.append([cursor, cursor + len(speech)])
            cursor += len(speech)
    audio = np.concatenate(parts)
    # A faint noise floor (about -66 dBFS) so the silences are not digital zero.
    audio += np.random.default_rng(7).normal(0, 0.0005, len(audio))
    audio *= 0.5 / np.max(np.abs(audio))

    golden = {"generator": "scripts/testdata/make_vad_testdata.py", "silero_vad": "6.2.3", "rates": {}}
    model = load_silero_vad(onnx=True)
    for rate, samples in [(16000, audio), (8000, resample_poly(audio, 1, 2))]:
        name = f"speech_pauses_{rate // 1000}k.wav"
        stored = write_wav(os.path.join(OUT, name), samples, rate)
        scale = rate / RATE
        tensor = torch.from_numpy(stored)
        segments = get_speech_timestamps(tensor, model, sampling_rate=rate)
        window = 512 if rate == 16000 else 256
        model.reset_states()
        probabilities = [
            model(torch.nn.functional.pad(tensor[i:i + window], (0, max(0, i + window - len(tensor)))), rate).item()
            for i in range(0, len(tensor), window)
        ]
        golden["rates"][str(rate)] = {
            "file": name,
            "samples": len(stored),
            "truth": [[int(round(s * scale)), int(round(e * scale))] for s, e in truth],
            "segments": [[d["start"], d["end"]] for d in segments],
            "probabilities": [round(p, 6) for p in probabilities],
        }
        print(rate, "truth", golden["rates"][str(rate)]["truth"], "silero", golden["rates"][str(rate)]["segments"])
    with open(os.path.join(OUT, "speech_pauses.json"), "w") as out:
        json.dump(golden, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
