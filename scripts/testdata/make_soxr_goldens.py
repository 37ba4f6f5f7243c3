#!/usr/bin/env python3
"""soxr's output on real clips, for SoxrAgreementTests (Tests/ChorusAudioTests/Resources/soxr/).

Upstream Chatterbox (chatterbox-tts 0.1.7, ChatterboxTurboTTS.prepare_conditionals) reads a voice clip with
`librosa.load(path, sr=24000)`: librosa 0.11's soundfile read as float32, channels averaged (`to_mono`), then
`librosa.resample` at its default `res_type="soxr_hq"`, which is `soxr.resample(y, rate, 24000, quality="soxr_hq")`
cut or padded to ceil(n * 24000 / rate) samples. Chorus's clip path makes the same conversion with its own
`Resampler` (SpeechEncoder.preparedClip) before the speech encoder graph; the cases below are that conversion, made by
upstream's call itself, plus soxr at 'VHQ' (`res_type="soxr_vhq"`) as the scale of what a resampler's settings change:

  speech-16k-to-24k  one second of real speech at 16 kHz (16-bit; seconds 1 to 2 of BAC009S0764W0121.wav, the
                     AISHELL-1 recording s3tokenizer 0.3.0 ships, written to speech-16k.wav), read as upstream reads
                     a clip: librosa.load(sr=24000), the whole output kept
  clip-44k-to-24k    Tests/ChorusNeuTTSTests/Resources/golden/encoder-44k.wav (44.1 kHz, 16-bit stereo whose channels
                     differ in level, neutts/make_encoder_testdata.py), librosa.load(sr=24000), one second of the
                     output kept from sample 12000
  clip-24k-to-16k    one second (24000 samples from sample 48000) of the Chatterbox tests' clip (24 kHz) through
                     soxr.resample at 'HQ' and 'VHQ': the 16 kHz copy upstream's prepare_conditionals makes with
                     librosa.resample, which Chorus never makes (the speech encoder graph resamples inside, as the
                     export does); kept as a check of the resampler at that ratio

Outputs: <case>-hq.f32 and <case>-vhq.f32 (little-endian float32; clip-16k-hq/vhq.f32 for the last case, the names
it had) and soxr.json (each case's input, the exact output length and upstream's, the part of the output kept, the
versions). Deterministic.
Environment: scripts/testdata/chatterbox/requirements.lock (librosa 0.11.0, soxr 1.1.0, soundfile, numpy,
s3tokenizer 0.3.0 for the recording).
"""
import importlib.metadata
import json
import os

import librosa
import numpy as np
import soundfile
import soxr

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "Tests")
OUT = os.path.join(ROOT, "ChorusAudioTests", "Resources", "soxr")
CHATTERBOX_CLIP = "ChorusChatterboxTests/Resources/encoder/clip.wav"
NEUTTS_CLIP = "ChorusNeuTTSTests/Resources/golden/encoder-44k.wav"
SPEECH = "ChorusAudioTests/Resources/soxr/speech-16k.wav"
UPSTREAM_RATE = 24000  # chatterbox's S3GEN_SR, the rate librosa.load reads a clip at


def write(name, samples):
    np.asarray(samples, dtype="<f4").tofile(os.path.join(OUT, name))


def speech_excerpt():
    """Seconds 1 to 2 of s3tokenizer's first AISHELL-1 recording, as 16-bit PCM at 16 kHz (its own format)."""
    import s3tokenizer
    source = os.path.join(os.path.dirname(s3tokenizer.__file__), "assets", "BAC009S0764W0121.wav")
    audio, rate = soundfile.read(source, dtype="int16")
    assert rate == 16000 and audio.ndim == 1
    soundfile.write(os.path.join(ROOT, SPEECH), audio[16000:32000], 16000, subtype="PCM_16")


def loaded(case, clip, start, count):
    """upstream's read of `clip` at 24 kHz ('HQ', librosa's default) and at 'VHQ', `count` samples from `start`."""
    path = os.path.join(ROOT, clip)
    info = soundfile.info(path)
    for quality in ("hq", "vhq"):
        audio, rate = librosa.load(path, sr=UPSTREAM_RATE, res_type=f"soxr_{quality}")
        assert rate == UPSTREAM_RATE and audio.dtype == np.float32
        write(f"{case}-{quality}.f32", audio[start:start + count])
    # librosa cuts or pads soxr's output to ceil(n * (24000 / rate)) with the ratio in floating point, which can
    # pass the exact ceil(n * 24000 / rate) (soxr's own length) by one: a zero at the end.
    exact = -(-info.frames * UPSTREAM_RATE // info.samplerate)
    mono = np.mean(soundfile.read(path, dtype="float32", always_2d=True)[0], axis=1)
    assert len(soxr.resample(mono, info.samplerate, UPSTREAM_RATE, "HQ")) == exact
    return {"name": case, "clip": clip, "inputRate": info.samplerate, "channels": info.channels,
            "outputRate": UPSTREAM_RATE, "outputSamples": exact, "upstreamSamples": len(audio),
            "keptFrom": start, "kept": count,
            "files": [f"{case}-hq.f32", f"{case}-vhq.f32"], "made": "librosa.load(sr=24000, res_type=soxr_hq|soxr_vhq)"}


def excerpt_to_16k():
    """The 16 kHz copy of one second of the Chatterbox clip, soxr at 'HQ' and 'VHQ'."""
    audio, rate = soundfile.read(os.path.join(ROOT, CHATTERBOX_CLIP), dtype="float32")
    assert rate == 24000 and audio.ndim == 1
    start, count = 48000, 24000
    for quality in ("HQ", "VHQ"):
        write(f"clip-16k-{quality.lower()}.f32", soxr.resample(audio[start:start + count], 24000, 16000, quality))
    return {"name": "clip-24k-to-16k", "clip": CHATTERBOX_CLIP, "inputRate": 24000, "channels": 1, "start": start,
            "count": count, "outputRate": 16000, "outputSamples": 16000, "keptFrom": 0, "kept": 16000,
            "files": ["clip-16k-hq.f32", "clip-16k-vhq.f32"], "made": "soxr.resample(excerpt, 24000, 16000, HQ|VHQ)"}


def main():
    os.makedirs(OUT, exist_ok=True)
    speech_excerpt()
    cases = [loaded("speech-16k-to-24k", SPEECH, 0, 24000),
             loaded("clip-44k-to-24k", NEUTTS_CLIP, 12000, 24000),
             excerpt_to_16k()]
    versions = {name: importlib.metadata.version(name) for name in ("librosa", "soxr", "soundfile", "numpy",
                                                                    "s3tokenizer", "chatterbox-tts")}
    with open(os.path.join(OUT, "soxr.json"), "w") as f:
        json.dump({"cases": cases, "versions": versions}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
