#!/usr/bin/env python3
"""Writes the VAD test audio and its golden segments (Tests/ChorusVADTests/Resources).

Three sentences, each trimmed to its first and last audible sample, laid out between silences of
known length, so the true speech boundaries are known to the sample. The sentences are spoken by
espeak-ng (at 16 kHz, and resampled to 8 kHz) and by Chorus's own Piper and Kokoro voices
(`chorus speak`, resampled to 16 kHz). Then the Python `silero-vad` package's own
`get_speech_timestamps` (ONNX model, defaults) runs on the very int16 samples each WAV file holds,
and its segments and per-window probabilities are written next to the audio.

Deterministic for a given espeak-ng (1.51 here) and Chorus build: no randomness but a seeded noise
floor. Needs espeak-ng, numpy, scipy, torch, onnxruntime, silero-vad==6.2.3, a built `chorus`
(first argument, default .build/debug/chorus) and the voices scripts/setup.sh installs:

    python3 -m venv --system-site-packages /tmp/vad-venv
    /tmp/vad-venv/bin/pip install torch==2.8.0 silero-vad==6.2.3
    swift build --product chorus
    /tmp/vad-venv/bin/python scripts/testdata/make_vad_testdata.py
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import wave

import numpy as np
from scipy.signal import resample_poly

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "Tests", "ChorusVADTests", "Resources")
CHORUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "chorus")

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Chorus runs speech models on this machine.",
    "Every sentence here is followed by silence.",
]
# Silence before each sentence, and after the last one, in seconds.
GAPS = [0.6, 0.8, 0.45, 0.7]
RATE = 16000


def speak(text, voice):
    """`voice` saying `text`, resampled to 16 kHz, trimmed to its audible part."""
    if voice == "espeak":
        wav = subprocess.run(["espeak-ng", "-v", "en-us", "--stdout", text], check=True, capture_output=True).stdout
    else:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "sentence.wav")
            subprocess.run([CHORUS, "speak", "--engine", voice, text, "-o", path], check=True, capture_output=True)
            with open(path, "rb") as file:
                wav = file.read()
    with wave.open(io.BytesIO(wav)) as reader:
        assert reader.getsampwidth() == 2
        rate = reader.getframerate()
        samples = np.frombuffer(reader.readframes(reader.getnframes()), np.int16).astype(np.float64) / 32768
    divisor = np.gcd(RATE, rate)
    samples = resample_poly(samples, RATE // divisor, rate // divisor)
    audible = np.flatnonzero(np.abs(samples) > 0.01)
    return samples[audible[0]:audible[-1] + 1]


def lay_out(voice):
    """The sentences between the silences, and where each sentence is."""
    parts, truth, cursor = [], [], 0
    for gap, sentence in zip(GAPS, SENTENCES + [None]):
        silence = int(round(gap * RATE))
        parts.append(np.zeros(silence))
        cursor += silence
        if sentence is not None:
            speech = speak(sentence, voice)
            parts.append(speech)
            truth.append([cursor, cursor + len(speech)])
            cursor += len(speech)
    audio = np.concatenate(parts)
    # A faint noise floor (about -66 dBFS) so the silences are not digital zero.
    audio += np.random.default_rng(7).normal(0, 0.0005, len(audio))
    return audio * 0.5 / np.max(np.abs(audio)), truth


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

    golden = {"generator": "scripts/testdata/make_vad_testdata.py", "silero_vad": "6.2.3", "clips": {}}
    model = load_silero_vad(onnx=True)
    for voice, rates in [("espeak", [16000, 8000]), ("piper", [16000]), ("kokoro", [16000])]:
        audio, truth = lay_out(voice)
        for rate in rates:
            samples = audio if rate == RATE else resample_poly(audio, 1, RATE // rate)
            stem = "speech_pauses" if voice == "espeak" else f"speech_pauses_{voice}"
            name = f"{stem}_{rate // 1000}k.wav"
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
            clip = {
                "file": name,
                "sample_rate": rate,
                "samples": len(stored),
                "truth": [[int(round(s * scale)), int(round(e * scale))] for s, e in truth],
                "segments": [[d["start"], d["end"]] for d in segments],
                "probabilities": [round(p, 6) for p in probabilities],
            }
            golden["clips"][f"{voice}-{rate}"] = clip
            print(voice, rate, "truth", clip["truth"], "silero", clip["segments"])
    with open(os.path.join(OUT, "speech_pauses.json"), "w") as out:
        json.dump(golden, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
