"""The speech_encoder graph of the Chatterbox Turbo export, rebuilt from upstream's classes at small widths, and
goldens of upstream's own ChatterboxTurboTTS.prepare_conditionals for a fixed clip. Used by make_testdata.py.

What the graph computes from `audio_values` (the clip at 24 kHz after upstream's loudness normalisation), in
prepare_conditionals' order (tts_turbo.py:217-246):
  speaker_features   S3Gen.embed_ref's prompt mel of the first 10 s (Matcha mel, n_fft 1920, hop 480, fmax 8000)
  speaker_embeddings embed_ref's x-vector: the 10 s crop resampled to 16 kHz (torchaudio, as get_resampler),
                     Kaldi fbank, per-bin mean removed, CAMPPlus (upstream's class: growth 8, init channels 32)
  audio_tokens       embed_ref's S3 tokens of that 16 kHz crop (S3TokenizerV2, upstream's class at width 128, one
                     block), cut to mel frames / 2 as embed_ref cuts them
  audio_features     T3.prepare_conditioning(T3Cond(VoiceEncoder embedding, S3 tokens of the first 15 s of the
                     16 kHz copy, at most 375)): the VoiceEncoder is upstream's class with a 32-wide LSTM, fed as
                     embeds_from_wavs feeds it (librosa trim at 20 dB, 40-bin power mel, 160-frame windows every 77)

Where the graph cannot be upstream's code, it computes the same thing another way, each checked here against
upstream's function on the clip:
  - every STFT (torch.stft, librosa.stft, torch.fft.rfft inside Kaldi fbank) is a product with the DFT basis,
    since the exporter has no complex tensors; the rotary table of S3TokenizerV2 is kept as its real view;
  - librosa.effects.trim and the VoiceEncoder's numpy mel and windowing are written with tensor ops;
  - the 16 kHz copy of the whole clip: upstream resamples it with librosa (soxr_hq), which is no graph op; the
    graph uses the resampler embed_ref already uses (torchaudio's sinc). Only the VoiceEncoder embedding and the
    T3 prompt tokens see this copy; the goldens are upstream's, so the difference shows in what the test allows.
"""
import math
import os

import librosa
import numpy as np
import scipy.io.wavfile
import torch
import torchaudio
import torchaudio.compliance.kaldi as kaldi

from chatterbox.models.s3gen.utils.mel import mel_spectrogram
from chatterbox.models.s3gen.xvector import CAMPPlus, DenseLayer
from chatterbox.models.s3tokenizer.s3tokenizer import S3Tokenizer
from chatterbox.models.t3.modules.cond_enc import T3Cond
from chatterbox.models.voice_encoder.config import VoiceEncConfig
from chatterbox.models.voice_encoder.voice_encoder import VoiceEncoder
from chatterbox.tts_turbo import ChatterboxTurboTTS, Conditionals
from s3tokenizer.model_v2 import ModelConfig, S3TokenizerV2

SAMPLE_RATE = 24000
CLIP_SECONDS = 5.4
TOKENIZER = ModelConfig(n_mels=128, n_audio_state=128, n_audio_head=2, n_audio_layer=1)


class SmallVoiceEncoderConfig(VoiceEncConfig):
    ve_hidden_size = 32


def make_parts():
    """Upstream's VoiceEncoder, CAMPPlus and S3 tokenizer at small widths, weights float16-exact."""
    torch.manual_seed(18)
    ve = VoiceEncoder(SmallVoiceEncoderConfig())
    campplus = CAMPPlus(growth_rate=8, bn_size=2, init_channels=32, memory_efficient=False)
    # S3Tokenizer passes no config to S3TokenizerV2; the small one goes in for this construction only.
    original = S3TokenizerV2.__init__
    S3TokenizerV2.__init__ = lambda self, name, config=None: original(self, name, TOKENIZER)
    try:
        tokenizer = S3Tokenizer(config=TOKENIZER)
    finally:
        S3TokenizerV2.__init__ = original
    with torch.no_grad():
        for module in (ve, campplus, tokenizer):
            for name, p in module.named_parameters():
                if "bn" in name or "norm" in name:
                    continue
                if p.dim() >= 2:
                    p.normal_(0, 1.0 / math.sqrt(p[0].numel()))
            # Batch norms with statistics of a scale the random convolutions produce.
            for m in module.modules():
                if isinstance(m, torch.nn.BatchNorm1d) or isinstance(m, torch.nn.BatchNorm2d):
                    m.running_mean.normal_(0, 0.1)
                    m.running_var.uniform_(0.5, 2.0)
            for p in module.parameters():
                p.copy_(p.half().float())
            for name, b in module.named_buffers():
                if b.dtype == torch.float32 and "mel_filters" not in name and name != "window":
                    b.copy_(b.half().float())
    return ve.eval(), campplus.eval(), tokenizer.eval()


def make_clip(path):
    """A fixed speech-like clip at 24 kHz: voiced stretches (a gliding pitch with 12 harmonics under a syllable
    envelope) and noise bursts, with quiet lead-in and tail for the VoiceEncoder's trim; float32 WAV, so
    librosa.load and Chorus read the same numbers."""
    rng = np.random.default_rng(5)
    n = int(CLIP_SECONDS * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    f0 = 120 + 30 * np.sin(2 * np.pi * 0.7 * t) + 15 * np.sin(2 * np.pi * 2.3 * t)
    phase = 2 * np.pi * np.cumsum(f0) / SAMPLE_RATE
    voiced = sum(np.sin(k * phase) / k for k in range(1, 13))
    syllables = np.clip(np.sin(2 * np.pi * 3.1 * t), 0, None) ** 0.5
    noise = rng.standard_normal(n) * (np.sin(2 * np.pi * 1.3 * t + 1) > 0.6)
    clip = 0.25 * voiced * syllables + 0.05 * noise
    quiet = (t < 0.3) | (t > CLIP_SECONDS - 0.4)
    clip[quiet] *= 0.003
    clip = clip.astype(np.float32)
    # scipy's writer, not soundfile's: libsndfile puts the time of writing in a float WAV's PEAK chunk, so the
    # file would change with every run while its samples do not.
    scipy.io.wavfile.write(path, SAMPLE_RATE, clip)
    return clip


# ---------------------------------------------------------------------------------------------- graph pieces

def dft_basis(n_fft, window, like):
    """Rows cos and -sin of the one-sided DFT, times `window`: float64 angles from k n mod N (exact integers),
    kept as float32. Computed in the graph from `like`'s length times zero, so the exporter stores no table
    (the 1920-point one alone is 15 MB) and ONNX Runtime makes it when it runs."""
    zero = torch._shape_as_tensor(like)[-1] * 0
    n = torch.arange(n_fft, dtype=torch.int64) + zero
    k = torch.arange(n_fft // 2 + 1, dtype=torch.int64)[:, None]
    angle = torch.remainder(k * n, n_fft).double() * (2 * math.pi / n_fft)
    w = window.double()
    return (torch.cos(angle) * w).float(), (-torch.sin(angle) * w).float()


class FrameSpectrum(torch.nn.Module):
    """Real and imaginary parts of windowed frames of `hop` (no padding), as a strided convolution."""

    def __init__(self, n_fft, hop, window):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", window.clone())
        self.bins = n_fft // 2 + 1

    def forward(self, x):                       # [1, S] -> ([1, bins, T], [1, bins, T])
        cos, sin = dft_basis(self.n_fft, self.window, x)
        basis = torch.cat([cos, sin])[:, None, :]
        spec = torch.nn.functional.conv1d(x[:, None, :], basis, stride=self.hop)
        return spec[:, : self.bins], spec[:, self.bins:]


class MatchaMel(torch.nn.Module):
    """s3gen.utils.mel.mel_spectrogram: reflect pad 720, STFT 1920/480 uncentred, sqrt(|S|^2 + 1e-9), Slaney mel
    0-8000 Hz, ln(max(x, 1e-5))."""

    def __init__(self):
        super().__init__()
        self.spectrum = FrameSpectrum(1920, 480, torch.hann_window(1920))
        mel = librosa.filters.mel(sr=24000, n_fft=1920, n_mels=80, fmin=0, fmax=8000)
        self.register_buffer("mel", torch.from_numpy(mel).float())

    def forward(self, y):                       # [1, S] -> [1, 80, T]
        y = torch.nn.functional.pad(y[:, None, :], (720, 720), mode="reflect")[:, 0]
        re, im = self.spectrum(y)
        spec = torch.sqrt(re * re + im * im + 1e-9)
        return torch.log(torch.clamp(torch.matmul(self.mel, spec), min=1e-5))


class S3LogMel(torch.nn.Module):
    """S3Tokenizer.log_mel_spectrogram: centred reflect STFT 400/160, last frame dropped, power, 128 mel bins,
    log10(max(x, 1e-10)), floored at max - 8, (x + 4) / 4."""

    def __init__(self, tokenizer):
        super().__init__()
        self.spectrum = FrameSpectrum(400, 160, tokenizer.window)
        self.register_buffer("mel", tokenizer._mel_filters.clone())

    def forward(self, audio):                   # [1, S] -> [1, 128, T]
        audio = torch.nn.functional.pad(audio[:, None, :], (200, 200), mode="reflect")[:, 0]
        re, im = self.spectrum(audio)
        power = (re * re + im * im)[..., :-1]
        log_spec = torch.clamp(torch.matmul(self.mel, power), min=1e-10).log10()
        log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
        return (log_spec + 4.0) / 4.0


class RealFFTMagnitude:
    """What torch.fft.rfft(x).abs() gives, for Kaldi fbank in the graph: |DFT| by a product with the basis."""

    def __init__(self, re, im):
        self.re, self.im = re, im

    def abs(self):
        return torch.sqrt(self.re * self.re + self.im * self.im)


def rfft_by_basis(x, n=None, dim=-1, norm=None):
    size = x.shape[-1]
    cos, sin = dft_basis(size, torch.ones(size), x)
    return RealFFTMagnitude(x @ cos.T, x @ sin.T)


class VoiceEncoderInput(torch.nn.Module):
    """VoiceEncoder.embeds_from_wavs before the LSTM, on one 16 kHz wav: librosa.effects.trim (top_db 20, frames of
    2048 every 512, zero-padded, power relative to the loudest frame), melspectrogram (centred reflect STFT
    400/160, power, 40 Slaney bands to 8000 Hz, no log), stride_as_partials (windows of 160 frames every 77, a
    last partial kept when it covers >= 80 %, zeros past the end)."""

    def __init__(self, hp):
        super().__init__()
        self.spectrum = FrameSpectrum(hp.n_fft, hp.hop_size, torch.hann_window(hp.win_size))
        mel = librosa.filters.mel(sr=hp.sample_rate, n_fft=hp.n_fft, n_mels=hp.num_mels, fmin=hp.fmin, fmax=hp.fmax)
        self.register_buffer("mel", torch.from_numpy(mel).float())
        self.window = hp.ve_partial_frames
        self.step = int(np.round((hp.sample_rate / 1.3) / hp.ve_partial_frames))

    def trimmed(self, wav):                     # [S] -> [S']
        squares = torch.nn.functional.pad((wav * wav)[None, None, :], (1024, 1024))
        mse = torch.nn.functional.avg_pool1d(squares, 2048, 512)[0, 0]
        db = 10 * torch.log10(torch.clamp(mse, min=1e-10)) - 10 * torch.log10(torch.clamp(mse.max(), min=1e-10))
        loud = db > -20
        index = torch.arange(mse.shape[0])
        first = torch.where(loud, index, 2**40).min()
        last = torch.where(loud, index, -1).max()
        start = first * 512
        end = torch.minimum(torch._shape_as_tensor(wav)[0], (last + 1) * 512)
        return wav[torch.arange(start, end)]

    def forward(self, wav):                     # [S] -> [partials, 160, 40]
        wav = self.trimmed(wav)
        padded = torch.nn.functional.pad(wav[None, None, :], (200, 200), mode="reflect")[:, 0]
        re, im = self.spectrum(padded)
        mel = torch.matmul(self.mel, re * re + im * im)[0].T        # [T, 40]
        frames = torch._shape_as_tensor(mel)[0]
        covered = torch.clamp(frames - self.window + self.step, min=0)
        count = covered // self.step
        remainder = covered - count * self.step
        count = count + ((count == 0) | (remainder + (self.window - self.step) >= 0.8 * self.window)).long()
        mel = torch.nn.functional.pad(mel, (0, 0, 0, self.window + self.step))
        index = torch.arange(self.window)[None, :] + self.step * torch.arange(count)[:, None]
        return mel[index]


class SpeechEncoderGraph(torch.nn.Module):
    """audio_values [1, S] at 24 kHz -> audio_features, audio_tokens, speaker_embeddings, speaker_features."""

    def __init__(self, t3, ve, campplus, tokenizer):
        super().__init__()
        self.t3, self.ve, self.campplus, self.tokenizer = t3, ve, campplus, tokenizer
        self.resample = torchaudio.transforms.Resample(24000, 16000)
        self.matcha = MatchaMel()
        self.s3_mel = S3LogMel(tokenizer)
        self.ve_input = VoiceEncoderInput(ve.hp)

    def tokens(self, wav16, max_frames=None):
        mel = self.s3_mel(wav16)
        if max_frames is not None:
            mel = mel[..., :max_frames]
        lengths = torch._shape_as_tensor(mel)[2:3]
        return self.tokenizer.quantize(mel, lengths)[0].long()

    def forward(self, audio_values):
        # embed_ref on the first 10 s (ChatterboxTurboTTS.DEC_COND_LEN).
        crop = audio_values[:, : 10 * 24000]
        speaker_features = self.matcha(crop).transpose(1, 2)
        crop16 = self.resample(crop)
        fbank = kaldi.fbank(crop16, num_mel_bins=80)
        fbank = fbank - fbank.mean(dim=0, keepdim=True)
        speaker_embeddings = self.campplus(fbank[None])
        audio_tokens = self.tokens(crop16)[:, : speaker_features.shape[1] // 2]
        # T3's conditioning from the 16 kHz copy of the whole clip.
        wav16 = self.resample(audio_values)
        prompt = self.tokens(wav16[:, : 15 * 16000], max_frames=4 * 375)
        partials = self.ve_input(wav16[0])
        embeds = self.ve(partials)
        speaker = embeds.mean(dim=0, keepdim=True)
        speaker = speaker / torch.linalg.norm(speaker, dim=1, keepdim=True)
        features = self.t3.prepare_conditioning(T3Cond(speaker_emb=speaker, cond_prompt_speech_tokens=prompt))
        return features, audio_tokens, speaker_embeddings, speaker_features


class RealRotaryTable:
    """S3TokenizerV2's complex rotary table seen through its real view ([positions, 64, 2]) while exporting, so
    torch.view_as_real in apply_rotary_emb reads it unchanged; its first 512 positions, as stored in the graph."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.complex_table = tokenizer.encoder.freqs_cis
        self.view_as_real = torch.view_as_real

    def __enter__(self):
        # 512 positions of the 2048: the graph never feeds the encoder more than 375 tokens' worth of frames.
        self.tokenizer.encoder.freqs_cis = torch.view_as_real(self.complex_table[:512]).contiguous()
        original = self.view_as_real
        torch.view_as_real = lambda x: x if not x.is_complex() else original(x)
        return self

    def __exit__(self, *_):
        self.tokenizer.encoder.freqs_cis = self.complex_table
        torch.view_as_real = self.view_as_real


def dense_layer_forward(self, x):
    """xvector.DenseLayer.forward with a reshape to [B, C] for squeeze(dim=-1) on the pooled input: the same
    values, but the exporter cannot tell the traced last axis is 1, and the batch norm after needs C known."""
    if len(x.shape) == 2:
        x = self.linear(x.unsqueeze(dim=-1)).reshape(-1, self.linear.out_channels)
    else:
        x = self.linear(x)
    return self.nonlinear(x)


class ExportPatches:
    """torch.fft.rfft by the DFT basis, the real rotary table and DenseLayer's squeeze, while the graph is traced
    (and while it is checked in torch, so the check runs the traced code)."""

    def __init__(self, tokenizer):
        self.rotary = RealRotaryTable(tokenizer)

    def __enter__(self):
        self.rfft = torch.fft.rfft
        torch.fft.rfft = rfft_by_basis
        self.dense = DenseLayer.forward
        DenseLayer.forward = dense_layer_forward
        self.rotary.__enter__()
        return self

    def __exit__(self, *args):
        torch.fft.rfft = self.rfft
        DenseLayer.forward = self.dense
        self.rotary.__exit__(*args)


def export(graph, clip, path, store_large_tables_as_float16):
    # CAMPPlus's last batch norm has no affine weights, and the exporter then wants its channel count from shapes
    # it cannot infer; weights of one and biases of zero compute the same.
    for m in graph.campplus.modules():
        if isinstance(m, torch.nn.BatchNorm1d) and m.weight is None:
            m.weight = torch.nn.Parameter(torch.ones(m.num_features))
            m.bias = torch.nn.Parameter(torch.zeros(m.num_features))
            m.affine = True
    with ExportPatches(graph.tokenizer), torch.no_grad():
        torch.onnx.export(graph, (torch.from_numpy(clip)[None],), path, input_names=["audio_values"],
                          output_names=["audio_features", "audio_tokens", "speaker_embeddings", "speaker_features"],
                          opset_version=17, dynamo=False,
                          dynamic_axes={"audio_values": {0: "batch", 1: "samples"},
                                        "audio_features": {0: "batch", 1: "conditioning"},
                                        "audio_tokens": {0: "batch", 1: "tokens"},
                                        "speaker_features": {0: "batch", 1: "frames"}})
    store_large_tables_as_float16(path, minimum=20_000)


# ---------------------------------------------------------------------------------------------- upstream

def sinc_resample(y, orig_sr, target_sr, **_):
    """librosa.resample's stand-in for prepare_conditionals' 16 kHz copy: the resampler embed_ref uses."""
    assert (orig_sr, target_sr) == (24000, 16000)
    return torchaudio.transforms.Resample(orig_sr, target_sr)(torch.from_numpy(y)[None])[0].numpy()


def upstream_conditionals(t3, s3gen, ve, campplus, tokenizer, clip_path, resample=None):
    """ChatterboxTurboTTS.prepare_conditionals as upstream runs it, on a model object holding the small parts;
    with `resample`, its one librosa.resample call (the 16 kHz copy) is that function instead."""
    tts = ChatterboxTurboTTS.__new__(ChatterboxTurboTTS)
    tts.t3, tts.ve, tts.device = t3, ve, "cpu"
    saved = (s3gen.speaker_encoder, s3gen.tokenizer, librosa.resample)
    s3gen.speaker_encoder, s3gen.tokenizer = campplus, tokenizer
    if resample is not None:
        librosa.resample = resample
    tts.s3gen = s3gen
    try:
        with torch.no_grad():
            tts.prepare_conditionals(clip_path, norm_loudness=True)
    finally:
        s3gen.speaker_encoder, s3gen.tokenizer, librosa.resample = saved
    conds = tts.conds
    with torch.no_grad():
        features = t3.prepare_conditioning(T3Cond(speaker_emb=conds.t3.speaker_emb,
                                                  cond_prompt_speech_tokens=conds.t3.cond_prompt_speech_tokens))
    # prompt_feat is a transposed view; .npy files are written in C order.
    voice = {"audio_features": features.numpy().astype(np.float32),
             "audio_tokens": conds.gen["prompt_token"].numpy().astype(np.int64),
             "speaker_embeddings": conds.gen["embedding"].numpy().astype(np.float32),
             "speaker_features": np.ascontiguousarray(conds.gen["prompt_feat"].numpy(), dtype=np.float32)}
    # What the graph is given: librosa's load and upstream's norm_loudness, as prepare_conditionals does.
    wav, _ = librosa.load(clip_path, sr=SAMPLE_RATE)
    normalised = tts.norm_loudness(wav, SAMPLE_RATE).astype(np.float32)
    return voice, conds, normalised


def check_pieces(graph, normalised):
    """Each re-expressed piece against upstream's own function on the clip; returns the largest differences."""
    x = torch.from_numpy(normalised)[None]
    crop = x[:, : 10 * 24000]
    report = {}
    with torch.no_grad():
        report["matcha_mel"] = (graph.matcha(crop) - mel_spectrogram(crop)).abs().max().item()
        crop16 = graph.resample(crop)
        report["s3_log_mel"] = (graph.s3_mel(crop16) - graph.tokenizer.log_mel_spectrogram(crop16)).abs().max().item()
        with ExportPatches(graph.tokenizer):
            ours = kaldi.fbank(crop16, num_mel_bins=80)
        report["kaldi_fbank"] = (ours - kaldi.fbank(crop16, num_mel_bins=80)).abs().max().item()
        soxr = librosa.resample(normalised, orig_sr=24000, target_sr=16000)
        sinc = graph.resample(x)[0].numpy()
        report["soxr_vs_sinc_16k"] = float(np.abs(soxr[: sinc.size] - sinc[: soxr.size]).max())
        trimmed = librosa.effects.trim(soxr, top_db=20)[0]
        ours_trim = graph.ve_input.trimmed(torch.from_numpy(soxr)).numpy()
        report["trim_samples"] = [int(trimmed.size), int(ours_trim.size)]
        from chatterbox.models.voice_encoder.melspec import melspectrogram
        from chatterbox.models.voice_encoder.voice_encoder import stride_as_partials
        upstream_mel = melspectrogram(trimmed, graph.ve.hp).T
        partials = stride_as_partials(upstream_mel, graph.ve.hp, rate=1.3)
        ours_partials = graph.ve_input(torch.from_numpy(soxr)).numpy()
        report["ve_partials_shape"] = [list(partials.shape), list(ours_partials.shape)]
        report["ve_partials"] = float(np.abs(partials - ours_partials).max() / max(np.abs(partials).max(), 1e-9))
    return report


def committed_conditionals(t3, s3gen, folder):
    """The committed clip's conditionals: the committed *.npy (the graph's four outputs, what the decoder is given)
    and upstream's Conditionals of the clip made again from the same small parts (what T3 is given), the two
    checked against each other (tokens equal; the prompt mel within 2e-3, its bins near the ln(1e-5) floor
    magnifying another CPU's FFT rounding; the rest within 1e-5); nothing is written."""
    ve, campplus, tokenizer = make_parts()
    voice, conds, _ = upstream_conditionals(t3, s3gen, ve, campplus, tokenizer, os.path.join(folder, "clip.wav"),
                                            sinc_resample)
    committed = {}
    for name, value in voice.items():
        committed[name] = np.load(os.path.join(folder, f"{name}.npy"))
        difference = (np.abs(committed[name].astype(np.float64) - value).max()
                      if committed[name].shape == value.shape else math.inf)
        print(f"  upstream's {name} of the committed clip vs the committed file: {difference:.2e}")
        bound = 0 if value.dtype == np.int64 else 2e-3 if name == "speaker_features" else 1e-5
        if difference > bound:
            raise SystemExit(f"upstream's {name} of the committed clip is not the committed {name}.npy (another "
                             f"torch or chatterbox-tts?); make the test data again without --sampled-only")
    return committed, conds


def make(t3, s3gen, folder, store_large_tables_as_float16):
    """Writes `folder`/speech_encoder.onnx, clip.wav and upstream's conditionals of the clip as the graph's four
    outputs (*.npy); returns them, upstream's Conditionals and what was measured."""
    import onnxruntime as ort
    os.makedirs(folder, exist_ok=True)
    clip_path = os.path.join(folder, "clip.wav")
    make_clip(clip_path)
    ve, campplus, tokenizer = make_parts()
    voice, conds, normalised = upstream_conditionals(t3, s3gen, ve, campplus, tokenizer, clip_path, sinc_resample)
    _, soxr, _ = upstream_conditionals(t3, s3gen, ve, campplus, tokenizer, clip_path)
    differing = int((soxr.t3.cond_prompt_speech_tokens != conds.t3.cond_prompt_speech_tokens).sum())
    speaker = (soxr.t3.speaker_emb - conds.t3.speaker_emb).abs().max().item()
    print(f"  upstream's soxr 16 kHz copy against the sinc one: {differing} of "
          f"{conds.t3.cond_prompt_speech_tokens.numel()} T3 prompt tokens and the speaker embedding by {speaker:.2e}")
    for name, value in voice.items():
        np.save(os.path.join(folder, f"{name}.npy"), value)
    graph = SpeechEncoderGraph(t3, ve, campplus, tokenizer).eval()
    pieces = check_pieces(graph, normalised)
    print("  speech encoder pieces vs upstream:", pieces)
    path = os.path.join(folder, "speech_encoder.onnx")
    export(graph, normalised, path, store_large_tables_as_float16)
    session = ort.InferenceSession(path)
    outputs = session.run(None, {"audio_values": normalised[None]})
    differences = {}
    for (name, expected), got in zip(voice.items(), outputs):
        if expected.shape != got.shape:
            differences[name] = f"shape {got.shape} vs upstream {expected.shape}"
        elif expected.dtype == np.int64:
            differences[name] = f"{int((expected != got).sum())} of {expected.size} differ"
        else:
            differences[name] = f"{np.abs(expected - got).max():.2e}"
    print(f"  speech_encoder.onnx ({os.path.getsize(path)} bytes) vs upstream prepare_conditionals: {differences}")
    return voice, conds, {"clip_seconds": CLIP_SECONDS, "graph_vs_upstream": differences, "pieces": pieces,
                          "soxr_copy_t3_prompt_tokens_differing": differing, "soxr_copy_speaker_embedding": speaker}
