#!/usr/bin/env python3
"""Feature extractors and the resampler against their Python references, side by side in one run.

Builds the Swift side (swift build -c release --product DSPBench), then on 60 s of deterministic audio:
  * times every extractor in Swift and in each Python reference (numpy/librosa re-implementations of the
    upstream code, kaldi-native-fbank, the onnx-asr 0.12.0 preprocessor graphs in onnxruntime) and
    prints the ratio reference time / Swift time (> 1: Swift is faster);
  * compares the full 60 s feature matrices (max |error|);
  * measures resampler quality (sweep SNR, passband ripple, aliasing, band-limited noise SNR) and time for
    Chorus and soxr at 'HQ'.
Needs: numpy scipy librosa soxr kaldi-native-fbank onnx-asr==0.12.0 onnxruntime soundfile (PyPI).

    python3 bench/dsp_bench.py [--quick] [--resampler]   (--resampler: only the resampler section)
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort
import scipy.signal
import soundfile as sf
import soxr

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "testdata"))
import make_dsp_goldens as ref  # noqa: E402

QUICK = "--quick" in sys.argv
RESAMPLER_ONLY = "--resampler" in sys.argv
SECONDS = 10 if QUICK else 60
REPEATS = 3
# The resampler runs take 5-30 ms each, so a few more tries (the same number on both sides) keep a busy
# machine's scheduling out of the best time.
RESAMPLER_REPEATS = 10
TMP = tempfile.mkdtemp(prefix="chorus-dsp-bench-")


def swift_bench(*args):
    binary = os.path.join(ROOT, ".build", "release", "DSPBench")
    out = subprocess.run([binary, *map(str, args)], check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), int(out[1])


def best(fn, repeats=REPEATS):
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def speechlike(rate, seconds, seed):
    """Seeded noise shaped into formant-like bands plus a gliding harmonic tone, with a syllable envelope."""
    rng = np.random.default_rng(seed)
    n = rate * seconds
    t = np.arange(n) / rate
    f0 = 140 + 40 * np.sin(2 * np.pi * 0.3 * t)
    phase = 2 * np.pi * np.cumsum(f0) / rate
    voiced = sum(np.sin(k * phase) / k for k in range(1, 30) if k * 180 < rate / 2)
    noise = rng.standard_normal(n)
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t) ** 2
    x = 0.15 * voiced * envelope + 0.02 * noise
    return (x / np.abs(x).max() * 0.8).astype(np.float32)


def onnx_graph(name):
    from importlib.resources import files
    path = files("onnx_asr.preprocessors").joinpath("data").joinpath(name + ".onnx")
    options = ort.SessionOptions()
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def run(waveform):
        features, lens = session.run(None, {"waveforms": waveform[None, :],
                                            "waveforms_lens": np.array([len(waveform)], dtype=np.int64)})
        return features[0], int(lens[0])
    return run


def features_section():
    print(f"\n== Feature extractors on {SECONDS} s of audio (best of {REPEATS}) ==")
    x16 = speechlike(16000, SECONDS, 1)
    x24 = speechlike(24000, SECONDS, 1)
    wav16 = os.path.join(TMP, "x16.wav")
    wav24 = os.path.join(TMP, "x24.wav")
    sf.write(wav16, x16, 16000, subtype="FLOAT")
    sf.write(wav24, x24, 24000, subtype="FLOAT")
    rows = []

    def swift(kind, wav):
        out = os.path.join(TMP, kind + ".npy")
        seconds, _ = swift_bench("features", kind, wav, REPEATS, out)
        return seconds, np.load(out)

    def report(kind, swift_time, swift_features, name, fn, compare=None):
        seconds, features = best(fn)
        error = ""
        if compare is not None:
            a, b = compare(swift_features, features)
            error = f"{np.abs(a - b).max():.2e}"
        rows.append((kind, name, swift_time, seconds, error))

    # Kaldi fbank, CAMPPlus settings (snip_edges, high 0; the mean subtraction is not part of the references).
    t, f = swift("kaldi", wav16)
    report("kaldi", t, f, "kaldi-native-fbank", lambda: ref.kaldi_native(x16, True),
           lambda s, r: (s, r - r.mean(axis=0, keepdims=True)))
    graph = onnx_graph("kaldi")
    report("kaldi", t, f, "onnx-asr kaldi graph (k2 settings, time only)", lambda: graph(x16))

    for mels in (80, 128):
        t, f = swift(f"whisper{mels}", wav16)
        report(f"whisper{mels}", t, f, "numpy+librosa (whisper audio.py)", lambda: ref.whisper_numpy(x16, mels),
               lambda s, r: (s, r))
        graph = onnx_graph(f"whisper{mels}")
        # The graph takes 30 s windows: run it on each and time the lot.
        windows = [np.pad(x16[i:i + 480000], (0, max(0, i + 480000 - len(x16)))) for i in range(0, len(x16), 480000)]
        report(f"whisper{mels}", t, f, f"onnx-asr whisper{mels} graph ({len(windows)} x 30 s)",
               lambda: [graph(w) for w in windows])

        t, f = swift(f"nemo{mels}", wav16)
        report(f"nemo{mels}", t, f, "numpy+librosa (NeMo FilterbankFeatures)", lambda: ref.nemo_numpy(x16, mels),
               lambda s, r: (s, r))
        graph = onnx_graph(f"nemo{mels}")
        report(f"nemo{mels}", t, f, f"onnx-asr nemo{mels} graph", lambda: graph(x16)[0].T, lambda s, r: (s, r))

    t, f = swift("matcha", wav24)
    report("matcha", t, f, "numpy+librosa (Matcha mel_spectrogram)", lambda: ref.matcha_numpy(x24),
           lambda s, r: (s, r))

    print(f"{'kind':<11} {'reference':<46} {'swift s':>8} {'ref s':>8} {'ref/swift':>9} {'max|err|':>9}")
    for kind, name, swift_time, ref_time, error in rows:
        print(f"{kind:<11} {name:<46} {swift_time:8.4f} {ref_time:8.4f} {ref_time / swift_time:9.2f} {error:>9}")


def resampler_quality(resample, fs_in, fs_out):
    """Sweep SNR, passband ripple, worst alias and band-limited noise SNR (dB) of one resampler."""
    nyq = min(fs_in, fs_out) / 2
    seconds = 4
    t_in = np.arange(fs_in * seconds) / fs_in
    t_out = np.arange(fs_out * seconds) / fs_out
    edge = fs_out // 10

    # Log sweep 50 Hz -> 0.9 Nyquist against the analytic sweep at the output rate.
    f0, f1 = 50.0, 0.9 * nyq
    k = np.log(f1 / f0) / seconds

    def sweep(t):
        return 0.5 * np.sin(2 * np.pi * f0 * (np.exp(k * t) - 1) / k)
    y = resample(sweep(t_in).astype(np.float32))
    e = y[edge:len(t_out) - edge] - sweep(t_out)[edge:len(t_out) - edge]
    sweep_snr = 10 * np.log10(np.sum(sweep(t_out)[edge:-edge] ** 2) / np.sum(e ** 2))

    # Passband: amplitude of sines up to 0.9 Nyquist.
    ripple = 0.0
    for f in np.linspace(100, 0.9 * nyq, 12):
        y = resample((0.5 * np.sin(2 * np.pi * f * t_in)).astype(np.float32))[edge:-edge]
        tt = t_out[edge:edge + len(y)]
        basis = np.stack([np.sin(2 * np.pi * f * tt), np.cos(2 * np.pi * f * tt)], axis=1)
        coef, *_ = np.linalg.lstsq(basis, y[:len(tt)], rcond=None)
        ripple = max(ripple, abs(20 * np.log10(np.hypot(*coef) / 0.5)))

    # Aliasing (downsampling): sines between the output Nyquist and the input Nyquist fold to fs_out - f.
    alias = None
    if fs_out < fs_in:
        alias = -np.inf
        for f in np.linspace(fs_out / 2 * 1.01, min(fs_in / 2 * 0.99, fs_out * 0.99), 16):
            y = resample((0.5 * np.sin(2 * np.pi * f * t_in)).astype(np.float32))[edge:-edge]
            folded = fs_out - f
            tt = t_out[edge:edge + len(y)]
            basis = np.stack([np.sin(2 * np.pi * folded * tt), np.cos(2 * np.pi * folded * tt)], axis=1)
            coef, *_ = np.linalg.lstsq(basis, y[:len(tt)], rcond=None)
            alias = max(alias, 20 * np.log10(np.hypot(*coef) / 0.5 + 1e-30))

    # White noise band-limited to 0.9 Nyquist (periodic), against exact FFT resampling.
    rng = np.random.default_rng(5)
    n_in = fs_in * seconds
    spectrum = np.fft.rfft(rng.standard_normal(n_in))
    freqs = np.fft.rfftfreq(n_in, 1 / fs_in)
    spectrum[freqs > 0.9 * nyq] = 0
    noise = np.fft.irfft(spectrum, n_in)
    noise *= 0.25 / noise.std()
    ideal = scipy.signal.resample(noise, fs_out * seconds)
    y = resample(noise.astype(np.float32))[:len(ideal)]
    e = (y - ideal)[edge:-edge]
    noise_snr = 10 * np.log10(np.sum(ideal[edge:-edge] ** 2) / np.sum(e ** 2))
    return sweep_snr, ripple, alias, noise_snr


def resampler_section():
    print(f"\n== Resampler vs soxr HQ: quality on 4 s signals, time on {SECONDS} s of noise (best of {RESAMPLER_REPEATS}) ==")
    print(f"{'rates':<14} {'who':<7} {'sweepSNR':>8} {'ripple':>8} {'alias':>8} {'noiseSNR':>8} {'time s':>8} {'soxr/ours':>9}")
    for fs_in, fs_out in [(44100, 16000), (48000, 16000), (22050, 48000), (24000, 48000), (48000, 24000)]:
        def ours(x, fs_in=fs_in, fs_out=fs_out):
            src = os.path.join(TMP, "rs_in.wav")
            dst = os.path.join(TMP, "rs_out.wav")
            sf.write(src, x, fs_in, subtype="FLOAT")
            swift_bench("resample", src, fs_out, dst, 1)
            return sf.read(dst, dtype="float32")[0].astype(np.float64)

        def theirs(x, fs_in=fs_in, fs_out=fs_out):
            return soxr.resample(x, fs_in, fs_out, "HQ").astype(np.float64)

        long = np.random.default_rng(0).standard_normal(fs_in * SECONDS).astype(np.float32) * 0.25
        src = os.path.join(TMP, "rs_long.wav")
        sf.write(src, long, fs_in, subtype="FLOAT")
        our_time, _ = swift_bench("resample", src, fs_out, os.path.join(TMP, "rs_long_out.wav"), RESAMPLER_REPEATS)
        soxr_time, _ = best(lambda: soxr.resample(long, fs_in, fs_out, "HQ"), RESAMPLER_REPEATS)
        for who, fn, seconds in [("chorus", ours, our_time), ("soxr", theirs, soxr_time)]:
            sweep_snr, ripple, alias, noise_snr = resampler_quality(fn, fs_in, fs_out)
            alias_text = f"{alias:8.1f}" if alias is not None else f"{'-':>8}"
            ratio = f"{soxr_time / our_time:9.2f}" if who == "chorus" else ""
            print(f"{fs_in}->{fs_out:<7} {who:<7} {sweep_snr:8.1f} {ripple:8.4f} {alias_text} {noise_snr:8.1f} "
                  f"{seconds:8.4f} {ratio}")


if __name__ == "__main__":
    subprocess.run(["swift", "build", "-c", "release", "--product", "DSPBench"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    print(f"onnxruntime {ort.__version__}, soxr {soxr.__version__}, intra-op threads: onnxruntime default")
    if not RESAMPLER_ONLY:
        features_section()
    resampler_section()
