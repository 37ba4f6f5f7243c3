#!/usr/bin/env python3
"""Golden feature values for Tests/ChorusDSPTests, computed by the reference implementations themselves.

Deterministic: the input signal is built from integer arithmetic only (Tests/ChorusDSPTests/TestSignal.swift
builds the same int16 samples), and every reference is deterministic. Requires (PyPI):
    numpy librosa kaldi-native-fbank onnx-asr==0.12.0 onnxruntime
Writes Tests/ChorusDSPTests/Golden/*.npy: float32 [k, 1 + F], column 0 the frame index, the rest that frame's
features, for a handful of frames (edges, middle, end) so the files stay small.

    python3 scripts/testdata/make_dsp_goldens.py
"""
import os
from importlib.resources import files

import kaldi_native_fbank as knf
import librosa
import numpy as np
import onnxruntime as ort

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "ChorusDSPTests", "Golden")


def test_signal(count, rate):
    """int16 samples: three integer triangle oscillators (one sweeping), an LCG noise floor, a 4 Hz
    amplitude envelope and 50 ms of digital silence at 0.2 s. Mirrors TestSignal.swift exactly."""
    out = np.zeros(count, dtype=np.int16)
    state = 12345
    phases = [0, 0, 0]
    for n in range(count):
        incs = [
            (220 * 2**32) // rate + n * ((2**32 // rate) * 3000 // count),  # 220 Hz sweeping up 3 kHz
            (1375 * 2**32) // rate,
            (3125 * 2**32) // rate,
        ]
        value = 0
        for k in range(3):
            phases[k] = (phases[k] + incs[k]) % 2**32
            tri = abs((phases[k] >> 16) - 32768) - 16384  # -16384 ... 16384
            value += tri >> k
        state = (state * 1103515245 + 12345) % 2**31
        noise = ((state >> 16) % 2001) - 1000
        envelope = 64 + abs((n * 4 * 128 // rate) % 256 - 128)  # 64 ... 192, 4 Hz
        sample = ((value * envelope) >> 9) + noise
        if rate // 5 <= n < rate // 5 + rate // 20:
            sample = 0
        out[n] = max(-32768, min(32767, sample))
    return out.astype(np.float32) / 32768.0


def pick(features, count=12, extra=()):
    """Rows 0, 1, 2, the last two, evenly spaced middles and `extra`, with their index in column 0."""
    frames = features.shape[0]
    rows = [0, 1, 2, frames - 2, frames - 1] + list(np.linspace(3, frames - 3, count - 5).astype(int))
    rows = sorted(set(rows + list(extra)))
    rows = [r for r in rows if 0 <= r < frames]
    return np.concatenate([np.array(rows, dtype=np.float32)[:, None], features[rows].astype(np.float32)], axis=1)


def save(name, features, extra=()):
    np.save(os.path.join(OUT, name + ".npy"), pick(np.asarray(features, dtype=np.float32), extra=extra))
    print(f"{name}: {features.shape}")


def onnx_asr_graph(name, waveform):
    path = files("onnx_asr.preprocessors").joinpath("data").joinpath(name + ".onnx")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    features, lens = session.run(None, {"waveforms": waveform[None, :].astype(np.float32),
                                        "waveforms_lens": np.array([len(waveform)], dtype=np.int64)})
    return features[0], int(lens[0])


def kaldi_native(waveform, snip_edges, high_freq=0.0):
    opts = knf.FbankOptions()
    opts.mel_opts.high_freq = high_freq
    opts.frame_opts.dither = 0
    opts.frame_opts.samp_freq = 16000
    opts.frame_opts.snip_edges = snip_edges
    opts.mel_opts.num_bins = 80
    fbank = knf.OnlineFbank(opts)
    fbank.accept_waveform(16000, waveform.tolist())
    fbank.input_finished()
    return np.stack([fbank.get_frame(i) for i in range(fbank.num_frames_ready)])


def whisper_numpy(waveform, n_mels):
    """openai/whisper audio.log_mel_spectrogram, with librosa's STFT standing in for torch.stft (both center=True,
    reflect, periodic Hann)."""
    stft = librosa.stft(waveform, n_fft=400, hop_length=160, window="hann", center=True, pad_mode="reflect")
    magnitudes = np.abs(stft[:, :-1]) ** 2
    filters = librosa.filters.mel(sr=16000, n_fft=400, n_mels=n_mels)
    log_spec = np.log10(np.clip(filters @ magnitudes, 1e-10, None))
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    return ((log_spec + 4.0) / 4.0).T


def nemo_numpy(waveform, n_mels):
    """NeMo FilterbankFeatures (FastConformer settings) in numpy + librosa."""
    x = np.concatenate([waveform[:1], waveform[1:] - 0.97 * waveform[:-1]])
    window = np.hanning(400)
    stft = librosa.stft(x, n_fft=512, hop_length=160, win_length=400, window=window, center=True,
                        pad_mode="constant")
    power = np.abs(stft) ** 2
    filters = librosa.filters.mel(sr=16000, n_fft=512, n_mels=n_mels, fmin=0, fmax=8000, norm="slaney")
    log_mel = np.log(filters @ power + 2**-24)
    valid = len(waveform) // 160
    mean = log_mel[:, :valid].mean(axis=1, keepdims=True)
    std = log_mel[:, :valid].std(axis=1, ddof=1, keepdims=True) + 1e-5
    features = (log_mel - mean) / std
    features[:, valid:] = 0
    return features.T


def matcha_numpy(waveform):
    """Matcha-TTS mel_spectrogram with CosyVoice 3's settings, in numpy + librosa."""
    pad = (1920 - 480) // 2
    padded = np.pad(waveform, (pad, pad), mode="reflect")
    stft = librosa.stft(padded, n_fft=1920, hop_length=480, win_length=1920, window="hann", center=False)
    magnitude = np.sqrt(stft.real**2 + stft.imag**2 + 1e-9)
    filters = librosa.filters.mel(sr=24000, n_fft=1920, n_mels=80, fmin=0, fmax=12000)
    return np.log(np.clip(filters @ magnitude, 1e-5, None)).T


def main():
    os.makedirs(OUT, exist_ok=True)
    x16 = test_signal(16000, 16000)
    x24 = test_signal(24000, 24000)
    np.save(os.path.join(OUT, "signal_checksum.npy"),
            np.array([x16.sum(), np.abs(x16).sum(), x24.sum(), np.abs(x24).sum()], dtype=np.float64))

    save("kaldi_knf_snip", kaldi_native(x16, True))
    # onnx-asr's kaldi graph is the icefall/k2 configuration: snip_edges=False and high_freq=-400.
    save("kaldi_knf_nosnip", kaldi_native(x16, False, -400.0))
    features, lens = onnx_asr_graph("kaldi", x16)
    save("kaldi_onnx_asr", features[:lens])
    diff = np.abs(kaldi_native(x16, False, -400.0) - features[:lens]).max()
    print(f"  kaldi-native-fbank vs onnx-asr, max |diff| {diff:.2e}")

    for mels in (80, 128):
        whisper = whisper_numpy(x16, mels)
        save(f"whisper{mels}_numpy", whisper)
        padded = np.pad(x16, (0, 480000 - len(x16)))
        features, _ = onnx_asr_graph(f"whisper{mels}", padded)
        save(f"whisper{mels}_onnx_asr_30s", features.T, extra=(20, 40, 60, 80, 97, 98, 99, 100, 101, 102))
        print(f"  numpy vs onnx-asr (30 s padded), max |diff| {np.abs(whisper_numpy(padded, mels) - features.T).max():.2e}")
        nemo = nemo_numpy(x16, mels)
        save(f"nemo{mels}_numpy", nemo)
        features, lens = onnx_asr_graph(f"nemo{mels}", x16)
        assert lens == len(x16) // 160
        save(f"nemo{mels}_onnx_asr", features.T)
        print(f"  numpy vs onnx-asr, max |diff| {np.abs(nemo - features.T).max():.2e}")

    save("matcha_numpy", matcha_numpy(x24))

    # Mel filters themselves, small sizes: librosa Slaney/HTK, with and without Slaney norm.
    for name, kwargs in [("mel_slaney_norm", {}), ("mel_htk_nonorm", {"htk": True, "norm": None}),
                         ("mel_htk_norm", {"htk": True}), ("mel_slaney_nonorm", {"norm": None})]:
        filters = librosa.filters.mel(sr=16000, n_fft=128, n_mels=12, fmin=50, fmax=7000, **kwargs)
        np.save(os.path.join(OUT, name + ".npy"), filters.astype(np.float32))
        print(f"{name}: {filters.shape}")


if __name__ == "__main__":
    main()
