#!/usr/bin/env python3
"""A reference CosyVoice 3 pipeline in numpy + onnxruntime, written from upstream FunAudioLLM/CosyVoice
(cosyvoice/llm/llm.py CosyVoice3LM, cosyvoice/utils/common.py ras_sampling, cosyvoice/flow/flow.py
CausalMaskedDiffWithDiT, cosyvoice/flow/flow_matching.py CausalConditionalCFM, cosyvoice/hifigan/
generator.py CausalHiFTGenerator, cosyvoice/cli/model.py CosyVoice3Model) and run on the community
export's 12 ONNX files.

Run as a script it synthesises a fixed input with the generated test models and writes the golden
files the Swift tests compare against (Tests/ChorusCosyVoiceTests/Resources/{voice,golden}):

    python3 scripts/testdata/cosyvoice/make_models.py
    python3 scripts/testdata/cosyvoice/reference.py

The golden/chunk-mask* files are the zero-shot case again with estimator-chunk-mask/'s estimator, which takes
upstream's attention mask: streamed chunks before the last run under upstream's chunk mask (`attention_mask`).

Randomness is drawn from `SplitMix64` (scripts/testdata/seeded_random.py), which Chorus implements identically
(Sources/ChorusDSP/SeededRandom.swift), so both sides make the same draws:
  * uniform(): the top 53 bits of the next 64-bit output, times 2**-53, in [0, 1);
  * categorical(weights): r = uniform() * sum(weights) (summed in index order, float64), the first
    index whose running sum exceeds r;
  * gaussians: Box-Muller on pairs, u1 = 1 - uniform() in (0, 1], u2 = uniform(),
    z0 = sqrt(-2 ln u1) cos(2 pi u2), z1 = sqrt(-2 ln u1) sin(2 pi u2), in that order.
Upstream draws the flow noise once ([1, 80, 15000] from a fixed seed) and slices it to the
utterance length, so frame n always starts from the same noise; here the noise is drawn frame by
frame (80 values each) from SplitMix64(noise_seed), which keeps that property and draws only what is used.

The sampling seeds: each case's is the first from a fixed start whose every draw keeps margins.THRESHOLD (1e-5) of
each kind (note_margins, in ../draw_margins.py's units: the least relative change of the step's raw logits that
could change the draw), and each golden records its margins. Why 1e-5: Chorus and this script both run ONNX
Runtime, so what can differ is the kernels' sums (another instruction set, another thread count). On these models
1 and 2 intra-op threads give identical logits (all three cases, every step); the largest difference measured
anywhere on CosyVoice's LLM is 7.7e-7 of a step's largest |logit|, between upstream's PyTorch and ONNX Runtime
(margins.py), a bigger change than a kernel's. 1e-5 is thirteen times that, and it is what ParityTests perturbs
the logits by (GoldenRun), which proves the margins on every run. Such seeds exist only because make_models.py
sharpens the LLM decoder (LLM_SHARPNESS): on the flat random distribution a 160-token case never kept them all.
"""
import json
import math
import os
import struct
import sys

import numpy as np
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.join(HERE, "..", "..", "..", "Tests", "ChorusCosyVoiceTests", "Resources")
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import torch  # noqa: E402  (draw_margins measures with it)
import draw_margins  # noqa: E402
from margins import KINDS, THRESHOLD  # noqa: E402
from seeded_random import SplitMix64  # noqa: E402

SPEECH_TOKENS = 6561
SOS, EOS, TASK = 6561, 6562, 6563
STOP_IDS = range(6561, 6761)
SILENT_TOKENS = {1, 2, 28, 29, 55, 248, 494, 2241, 2242, 2322, 2323}
MAX_SILENT_RUN = 5
N_FFT, HOP = 16, 4
LOOKAHEAD = 3
HOLDBACK_FRAMES = 8           # f0 predictor look-right 3 + conv_pre look-right 4 + 480 samples
# upstream cosyvoice3.yaml: DiT static_chunk_size = chunk_size 25 tokens x token_mel_ratio 2, and
# num_decoding_left_chunks -1 (every chunk to the left).
CHUNK_FRAMES = 50
# "You are a helpful assistant. 请用广东话表达。<|endofprompt|>": upstream's Cantonese instruct2 prompt
# (its README), as `chorus tokenize --cosyvoice3` encodes it with the Qwen2 vocabulary.
INSTRUCTION_IDS = [2610, 525, 264, 10950, 17847, 13, 220, 14880, 11622, 102053, 57443, 102124, 1773, 151646]
# "You are a helpful assistant.<|endofprompt|>": what upstream's cross-lingual examples put before the text.
CROSS_LINGUAL_PREFIX_IDS = [2610, 525, 264, 10950, 17847, 13, 151646]


class Models:
    """The 12 sessions; `estimator` names another estimator file (one with `attn_mask`) in place of the folder's."""

    def __init__(self, folder, threads=1, estimator=None):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")   # as Chorus's default

        def load(name, path=None):
            return ort.InferenceSession(path or os.path.join(folder, name + ".onnx"), options,
                                        providers=["CPUExecutionProvider"])
        self.text_embedding = load("text_embedding_fp32")
        self.speech_embedding = load("llm_speech_embedding_fp16")
        self.backbone_initial = load("llm_backbone_initial_fp16")
        self.backbone_decode = load("llm_backbone_decode_fp16")
        self.llm_decoder = load("llm_decoder_fp16")
        self.flow_token_embedding = load("flow_token_embedding_fp16")
        self.flow_pre_lookahead = load("flow_pre_lookahead_fp16")
        self.flow_speaker_projection = load("flow_speaker_projection_fp16")
        self.estimator = load("flow.decoder.estimator.fp16", estimator)
        self.estimator_takes_attention_mask = any(i.name == "attn_mask" for i in self.estimator.get_inputs())
        self.f0_predictor = load("hift_f0_predictor_fp32")
        self.source_generator = load("hift_source_generator_fp32")
        self.hift_decoder = load("hift_decoder_fp32")


# ---- stage 1: LLM ---------------------------------------------------------------------------

def softmax(logits):
    """float64 softmax in index order, as Chorus computes it (upstream softmaxes log_softmax(logits), the same distribution)."""
    values = [float(x) for x in logits]
    top = max(values)
    exps = [math.exp(x - top) for x in values]
    total = 0.0
    for e in exps:
        total += e
    return [e / total for e in exps]


def nucleus(probs, rng, top_p=0.8, top_k=25):
    """upstream nucleus_sampling: sort descending (stable), keep while cum < top_p and count < top_k, draw.
    Returns the token and the draw's place (SplitMix64.placed) in the candidates' order, for its margins."""
    order = sorted(range(len(probs)), key=lambda i: -probs[i])
    kept, cum = [], 0.0
    for i in order:
        if cum < top_p and len(kept) < top_k:
            cum += probs[i]
            kept.append(i)
        else:
            break
    place = rng.placed([probs[i] for i in kept])
    return kept[place[0]], order, len(kept), place


def ras(probs, decoded, rng, win_size=10, tau_r=0.1):
    """upstream ras_sampling (after "fix ras", February 2026): nucleus draw; if it repeats >= win_size * tau_r
    times in the last win_size tokens, its score is set to -inf and the token is drawn again from the softmax
    of all scores, so the repeated token cannot come back (its probability is zero, the rest renormalised).

    Upstream writes the -inf into the step's scores in place; the step draws once, so a copy is the same.
    Returns the token and the nucleus draw's candidates and place, and the redraw's place (or None)."""
    top, order, count, place = nucleus(probs, rng)
    redraw = None
    repeats = sum(1 for t in decoded[-win_size:] if t == top)
    if repeats >= win_size * tau_r:
        masked = list(probs)
        masked[top] = 0.0
        redraw = rng.placed(masked)
        top = redraw[0]
    return top, order, count, place, redraw


def sample(logits, probs, decoded, rng, ignore_eos):
    """upstream sampling_ids (ace7c47, as make_upstream.py runs it): before min_len the score of id 6561 is -inf
    (its probability zero, the rest renormalised); any other stop id drawn ends the utterance, however short.
    Within draw_margins.recorded or first_seed, notes the draw's margins (note_margins)."""
    if ignore_eos:
        probs = list(probs)
        probs[SOS] = 0.0
        total = 0.0
        for p in probs:
            total += p
        probs = [p / total for p in probs]
    top, order, count, place, redraw = ras(probs, decoded, rng)
    if draw_margins.RECORDER[0] is not None:
        note_margins(draw_margins.RECORDER[0], logits, probs, order, count, place, redraw, ignore_eos)
    return top


def note_margins(recorder, logits, probs, order, count, place, redraw, ignore_eos):
    """One step's margins in draw_margins' units (margins.py's kinds, as make_upstream.py records upstream's
    draws): each the least relative change of the step's raw logits that could change the draw, i.e. a distance
    over 2 M, M the largest |logit| of the step.
      draw    the uniform's distance from the candidates' cumulative probabilities beside the chosen one;
      order   the chosen logit's gap to the nearest other candidate and to the first one left out;
      top_k   with 25 candidates: the gap between the 25th and 26th logits;
      top_p   the distance from 0.8 of the nearest cumulative probability the cut tested;
      redraw  ras's redraw over every token: the uniform's distance from the chosen token's boundaries.
    A strict recorder (first_seed's) raises draw_margins.TooClose at the first step below its thresholds."""
    raw = np.asarray(logits, np.float64)
    largest = draw_margins.largest(torch.from_numpy(raw))
    ranked = np.array([-math.inf if ignore_eos and i == SOS else raw[i] for i in order[:count + 1]])
    chosen, target, before, after, total = place
    gaps = np.abs(ranked - ranked[chosen])
    gaps = gaps[(gaps > 0) & np.isfinite(gaps)]
    step = {"draw": draw_margins.draw_margin(target, before, after, total) / (2 * largest),
            "order": (gaps.min() if gaps.size else math.inf) / (2 * largest)}
    if count == 25:
        step["top_k"] = (ranked[24] - ranked[25]) / (2 * largest)
    cumulative = np.concatenate([[0.0], np.cumsum([probs[i] for i in order[:count]])])
    step["top_p"] = np.abs(cumulative[:min(count + 1, 25)] - 0.8).min() / (2 * largest)
    if redraw is not None:
        step["redraw"] = draw_margins.draw_margin(*redraw[1:]) / (2 * largest)
    step = {kind: float(value) for kind, value in step.items()}
    recorder.steps.append(step)
    if recorder.thresholds is not None:
        draw_margins.check(step, recorder.thresholds)


def llm_tokens(models, prompt_text_ids, text_ids, prompt_speech_tokens, rng, on_token=None):
    def embed_speech(tokens):
        return models.speech_embedding.run(None, {"token": np.array([tokens], np.int64)})[0]

    text = models.text_embedding.run(None, {"input_ids": np.array([prompt_text_ids + text_ids], np.int64)})[0]
    parts = [embed_speech([SOS]), text, embed_speech([TASK])]
    if prompt_speech_tokens:
        parts.append(embed_speech(prompt_speech_tokens))
    lm_input = np.concatenate(parts, axis=1).astype(np.float32)
    min_len = int(len(text_ids) * 2)
    max_len = int(len(text_ids) * 20)

    length = lm_input.shape[1]
    hidden, cache = models.backbone_initial.run(None, {
        "inputs_embeds": lm_input, "attention_mask": np.ones((1, length), np.float32)})
    hidden = hidden[:, -1:, :]
    out = []
    for i in range(max_len):
        logits = models.llm_decoder.run(None, {"hidden_state": hidden})[0][0]
        top = sample(logits, softmax(logits), out, rng, ignore_eos=i < min_len)
        if top in STOP_IDS:
            break
        out.append(top)
        if on_token:
            on_token(top)
        length += 1
        hidden, cache = models.backbone_decode.run(None, {
            "inputs_embeds": embed_speech([top]), "attention_mask": np.ones((1, length), np.float32),
            "past_key_values": cache})
    return out


def drop_long_silences(tokens):
    """upstream CosyVoice3Model.llm_job: after 5 silent tokens in a row, further silent ones are dropped."""
    kept, run = [], 0
    for t in tokens:
        if t in SILENT_TOKENS:
            run += 1
            if run > MAX_SILENT_RUN:
                continue
        else:
            run = 0
        kept.append(t)
    return kept


# ---- stage 2: flow matching ------------------------------------------------------------------

def cosine_schedule(steps=10):
    return [np.float32(1.0 - math.cos(i / steps * math.pi / 2)) for i in range(steps + 1)]


def flow_noise(seed, frames):
    """[80, frames]: frame by frame, 80 gaussians each."""
    return SplitMix64(seed).gaussians(80 * frames).astype(np.float32).reshape(frames, 80).T


def attention_mask(frames, streaming):
    """upstream DiT.forward's `attn_mask` for a batch of 2 with every frame valid (mask all ones), bool
    [2, 1, frames, frames], true where frame i may attend to frame j.

    streaming: add_optional_chunk_mask(x, mask, False, False, 0, static_chunk_size, -1), i.e. mask &
    subsequent_chunk_mask(frames, 50): j < (i // 50 + 1) * 50, frame i sees its own 50-frame chunk and all
    chunks to its left (chunks counted from the first prompt frame). Otherwise add_optional_chunk_mask(..., 0,
    0, -1).repeat(1, frames, 1): the padding mask alone, all true here (full attention)."""
    if not streaming:
        return np.ones((2, 1, frames, frames), bool)
    position = np.arange(frames)
    allowed = position[None, :] < ((position // CHUNK_FRAMES + 1) * CHUNK_FRAMES)[:, None]
    return np.ascontiguousarray(np.broadcast_to(allowed, (2, 1, frames, frames)))


def flow_mel(models, tokens, prompt_tokens, prompt_mel, embedding, noise_seed, cfg_rate=0.7, steps=10, finalize=True,
             streaming=False):
    """prompt_mel [frames, 80], aligned to 2 x prompt tokens; returns the generated mel [80, 2 * len(tokens)].

    With finalize False the last 3 tokens are lookahead only (upstream inference(finalize=False)):
    the pre-lookahead output is cut before their frames. `streaming` is upstream inference(streaming=):
    an estimator that takes `attn_mask` gets the chunk mask, else full attention; the community export's
    estimator has no such input and attends fully either way (as upstream's export does)."""
    all_tokens = np.array([prompt_tokens + tokens], np.int64)
    embedded = models.flow_token_embedding.run(None, {"token": all_tokens})[0]
    h = models.flow_pre_lookahead.run(None, {"token_embedded": embedded})[0]       # [1, 2T, 80]
    mel_len1 = prompt_mel.shape[0]
    total = h.shape[1] if finalize else max(h.shape[1] - 2 * LOOKAHEAD, mel_len1)
    h = h[:, :total]
    mu = np.ascontiguousarray(h[0].T)                                               # [80, 2T]

    e = embedding.astype(np.float32)
    norm = max(float(np.sqrt(np.sum(e.astype(np.float64) ** 2))), 1e-12)
    spks = models.flow_speaker_projection.run(None, {"embedding": (e / np.float32(norm))[None, :]})[0][0]

    cond = np.zeros((80, total), np.float32)
    cond[:, :mel_len1] = prompt_mel.T
    x = np.ascontiguousarray(flow_noise(noise_seed, total))
    t_span = cosine_schedule(steps)
    t, dt = t_span[0], np.float32(t_span[1] - t_span[0])
    zeros = np.zeros_like(mu)
    extra = {"attn_mask": attention_mask(total, streaming)} if models.estimator_takes_attention_mask else {}
    for step in range(1, steps + 1):
        v = models.estimator.run(None, {
            "x": np.stack([x, x]), "mask": np.ones((2, 1, total), np.float32),
            "mu": np.stack([mu, zeros]), "t": np.array([t, t], np.float32),
            "spks": np.stack([spks, np.zeros_like(spks)]), "cond": np.stack([cond, zeros]), **extra})[0]
        guided = np.float32(1.0 + cfg_rate) * v[0] - np.float32(cfg_rate) * v[1]
        x = (x + dt * guided).astype(np.float32)
        t = np.float32(t + dt)
        if step < steps:
            dt = np.float32(t_span[step + 1] - t)
    return x[:, mel_len1:]


# ---- stage 3: HiFT vocoder -------------------------------------------------------------------

def hann(n):
    return np.array([0.5 - 0.5 * math.cos(2 * math.pi * i / n) for i in range(n)], np.float64)


def stft(signal):
    """n_fft 16, hop 4, periodic Hann, center with reflect padding -> [18, frames] (9 real, 9 imaginary)."""
    padded = np.pad(signal.astype(np.float64), (N_FFT // 2, N_FFT // 2), mode="reflect")
    frames = 1 + (len(padded) - N_FFT) // HOP
    window = hann(N_FFT)
    k = np.arange(N_FFT // 2 + 1)[:, None]
    n = np.arange(N_FFT)[None, :]
    cos, sin = np.cos(2 * np.pi * k * n / N_FFT), np.sin(2 * np.pi * k * n / N_FFT)
    out = np.empty((18, frames), np.float64)
    for f in range(frames):
        chunk = padded[f * HOP: f * HOP + N_FFT] * window
        out[:9, f] = cos @ chunk
        out[9:, f] = -(sin @ chunk)
    return out


def istft(magnitude, phase):
    """torch.istft(n_fft 16, hop 4, periodic Hann, center=True): inverse real DFT per frame, windowed
    overlap-add, divided by the summed squared window, n_fft/2 trimmed at both ends."""
    magnitude = np.minimum(magnitude.astype(np.float64), 100.0)
    real, imag = magnitude * np.cos(phase), magnitude * np.sin(phase)
    frames = magnitude.shape[1]
    window = hann(N_FFT)
    length = N_FFT + HOP * (frames - 1)
    out = np.zeros(length, np.float64)
    envelope = np.zeros(length, np.float64)
    n = np.arange(N_FFT)
    for f in range(frames):
        frame = real[0, f] + real[8, f] * np.cos(np.pi * n)
        for k in range(1, 8):
            angle = 2 * np.pi * k * n / N_FFT
            frame = frame + 2 * (real[k, f] * np.cos(angle) - imag[k, f] * np.sin(angle))
        frame /= N_FFT
        out[f * HOP: f * HOP + N_FFT] += frame * window
        envelope[f * HOP: f * HOP + N_FFT] += window * window
    out, envelope = out[N_FFT // 2: length - N_FFT // 2], envelope[N_FFT // 2: length - N_FFT // 2]
    return out / np.where(envelope > 1e-11, envelope, 1.0)


def vocode(models, mel):
    """mel [80, M] -> audio [480 M], clipped to +-0.99."""
    mel = mel[None].astype(np.float32)
    f0 = models.f0_predictor.run(None, {"mel": mel})[0]                                # [1, M]
    source = models.source_generator.run(None, {"f0": f0[:, None, :]})[0]              # [1, 1, 480 M]
    source_stft = stft(source[0, 0]).astype(np.float32)[None]
    magnitude, phase = models.hift_decoder.run(None, {"mel": mel, "source_stft": source_stft})
    audio = istft(magnitude[0], phase[0])
    return np.clip(audio, -0.99, 0.99).astype(np.float32)


# ---- whole pipeline --------------------------------------------------------------------------

def align_prompt(prompt_tokens, prompt_mel):
    """upstream frontend: token_len = min(mel frames / 2, tokens); both truncated to agree."""
    count = min(prompt_mel.shape[0] // 2, len(prompt_tokens))
    return prompt_tokens[:count], prompt_mel[:2 * count]


def synthesize(models, prompt_text_ids, text_ids, voice, sampling_seed, noise_seed, llm_prompt_speech=True):
    """llm_prompt_speech=False is upstream inference_instruct2 (frontend_instruct2 deletes the LLM's prompt
    speech tokens; the prompt text is the instruction; the flow keeps the voice's tokens, mel and embedding)."""
    prompt_tokens, prompt_mel = align_prompt(voice["tokens"], voice["mel"])
    raw = llm_tokens(models, prompt_text_ids, text_ids, prompt_tokens if llm_prompt_speech else [],
                     SplitMix64(sampling_seed))
    tokens = drop_long_silences(raw)
    mel = flow_mel(models, tokens, prompt_tokens, prompt_mel, voice["embedding"], noise_seed)
    audio = vocode(models, mel)
    return raw, tokens, mel, audio


def synthesize_streaming(models, prompt_text_ids, text_ids, voice, sampling_seed, noise_seed, on_chunk=None,
                         llm_prompt_speech=True):
    """upstream CosyVoice2Model.tts(stream=True) with CosyVoice3Model.token2wav: hop 25 (+ prompt
    padding to a multiple of 25) doubling to 100, 3 lookahead tokens, the flow over all tokens so far,
    the vocoder over all mel so far, only new samples emitted (the last 8 mel frames held back).
    Chunks are made as the LLM draws tokens (upstream runs the LLM in a thread beside them).
    As CosyVoice3Model.tts: the chunks before the last run the flow with streaming=True (the chunk mask,
    when the estimator takes one), the last with token2wav's default stream=False (full attention)."""
    prompt_tokens, prompt_mel = align_prompt(voice["tokens"], voice["mel"])
    state = {"hop": 25, "offset": 0, "emitted": 0, "mel": None, "silent_run": 0}
    tokens, chunks = [], []
    padding = -(-len(prompt_tokens) // 25) * 25 - len(prompt_tokens)

    def chunk(upto, finalize):
        generated = flow_mel(models, tokens[:upto], prompt_tokens, prompt_mel, voice["embedding"], noise_seed,
                             finalize=finalize, streaming=not finalize)
        fresh = generated[:, min(2 * state["offset"], generated.shape[1]):]
        mel = fresh if state["mel"] is None else np.concatenate([state["mel"], fresh], axis=1)
        state["mel"] = mel
        audio = vocode(models, mel)
        end = len(audio) if finalize else max(0, (mel.shape[1] - HOLDBACK_FRAMES) * 480)
        if end > state["emitted"]:
            chunks.append(audio[state["emitted"]:end])
            state["emitted"] = end
            if on_chunk:
                on_chunk(chunks[-1])

    def on_token(token):
        # the silence filter of llm_job, applied as tokens arrive
        if token in SILENT_TOKENS:
            state["silent_run"] += 1
            if state["silent_run"] > MAX_SILENT_RUN:
                return
        else:
            state["silent_run"] = 0
        tokens.append(token)
        while True:
            this_hop = state["hop"] + padding if state["offset"] == 0 else state["hop"]
            if len(tokens) < state["offset"] + this_hop + LOOKAHEAD:
                break
            chunk(state["offset"] + this_hop + LOOKAHEAD, False)
            state["offset"] += this_hop
            state["hop"] = min(100, state["hop"] * 2)

    llm_tokens(models, prompt_text_ids, text_ids, prompt_tokens if llm_prompt_speech else [], SplitMix64(sampling_seed),
               on_token=on_token)
    chunk(len(tokens), True)
    return tokens, chunks


# ---- golden files ----------------------------------------------------------------------------

def write_voice(folder, voice):
    """The seed app's voice folder: speaker_embedding.bin, prompt_tokens.bin, prompt_mel.bin, prompt_text.txt."""
    os.makedirs(folder, exist_ok=True)
    voice["embedding"].astype("<f4").tofile(os.path.join(folder, "speaker_embedding.bin"))
    np.array(voice["tokens"], "<i8").tofile(os.path.join(folder, "prompt_tokens.bin"))
    with open(os.path.join(folder, "prompt_mel.bin"), "wb") as f:
        f.write(struct.pack("<i", voice["mel"].shape[0]))
        f.write(voice["mel"].astype("<f4").tobytes())
    with open(os.path.join(folder, "prompt_text.txt"), "w", encoding="utf-8") as f:
        f.write(voice["text"])


def test_voice():
    rng = np.random.default_rng(7)
    # 41 mel frames for 20 tokens: the odd frame is cut when the prompt is aligned.
    return {
        "embedding": (rng.standard_normal(192) * 3).astype(np.float32),
        "tokens": [int(t) for t in rng.integers(0, SPEECH_TOKENS, 20)],
        "mel": (rng.standard_normal((41, 80)) * 1.5 - 5).astype(np.float32),
        "text": "希望你以后能够做的比我还好呦。",
    }


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else RESOURCES
    models = Models(os.path.join(out, "model"))
    voice = test_voice()
    write_voice(os.path.join(out, "voice"), voice)
    # "You are a helpful assistant.<|endofprompt|>希望你以后能够做的比我还好呦。" as upstream's tokenizer
    # encodes it (cosyvoice3.md), then a target of eight ids.
    prompt_text_ids = [2610, 525, 264, 10950, 17847, 13, 151646, 99880, 56568, 103934, 100006, 100854, 56006,
                       107228, 52801, 119024, 1773]
    text_ids = [108386, 3837, 99489, 100678, 104811, 102513, 104130, 1773]
    # Each case's sampling seed: the first from the old one whose every draw keeps THRESHOLD of each kind
    # (note_margins), so another CPU or a relative 1e-5 change of the logits draws the same tokens.
    thresholds = {kind: THRESHOLD for kind in KINDS}
    zero_shot_tokens = []

    def drawing(prompt_ids, ids, prompt_speech, needs=None):
        def generate(seed):
            raw = llm_tokens(models, prompt_ids, ids, prompt_speech, SplitMix64(seed))
            if needs is not None and not needs(raw):
                raise draw_margins.TooClose("not what the tests need")
            return raw
        return generate

    prompt_speech = align_prompt(voice["tokens"], voice["mel"])[0]
    # ParityTests: the silence filter drops something; 120 tokens or more, so the hop doubles twice (25, 50, the rest).
    zero_shot_seed = draw_margins.first_seed(
        [drawing(prompt_text_ids, text_ids, prompt_speech,
                 lambda raw: len(drop_long_silences(raw)) < len(raw))],
        1234, 120, thresholds)
    case = {"promptTextTokens": prompt_text_ids, "textTokens": text_ids, "samplingSeed": zero_shot_seed,
            "noiseSeed": 0}
    (raw, tokens, mel, audio), case_margins = draw_margins.recorded(
        lambda: synthesize(models, prompt_text_ids, text_ids, voice, case["samplingSeed"], case["noiseSeed"]))
    zero_shot_tokens.extend(raw)
    golden = os.path.join(out, "golden")
    os.makedirs(golden, exist_ok=True)
    case.update({"sampledTokens": raw, "tokens": tokens, "melShape": list(mel.shape), "audioSamples": len(audio),
                 "threshold": THRESHOLD, "margins": case_margins})
    with open(os.path.join(golden, "case.json"), "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")
    mel.astype("<f4").tofile(os.path.join(golden, "mel.f32"))
    audio.astype("<f4").tofile(os.path.join(golden, "audio.f32"))
    stream_tokens, chunks = synthesize_streaming(models, prompt_text_ids, text_ids, voice, case["samplingSeed"],
                                                 case["noiseSeed"])
    assert stream_tokens == tokens
    with open(os.path.join(golden, "stream.json"), "w") as f:
        json.dump({"chunkSamples": [len(c) for c in chunks]}, f)
        f.write("\n")
    np.concatenate(chunks).astype("<f4").tofile(os.path.join(golden, "stream.f32"))
    # The instruct2 case: upstream's Cantonese instruction as the LLM prompt, no prompt speech in the LLM.
    # ParityTests: the instruction changes what the LLM draws.
    instruct_seed = draw_margins.first_seed(
        [drawing(INSTRUCTION_IDS, text_ids, [], lambda raw: raw != zero_shot_tokens)], 99, 20, thresholds)
    instruct = {"promptTextTokens": INSTRUCTION_IDS, "textTokens": text_ids, "samplingSeed": instruct_seed,
                "noiseSeed": 0}
    (raw2, tokens2, mel2, audio2), instruct_margins = draw_margins.recorded(
        lambda: synthesize(models, INSTRUCTION_IDS, text_ids, voice, instruct["samplingSeed"], instruct["noiseSeed"],
                           llm_prompt_speech=False))
    stream_tokens2, chunks2 = synthesize_streaming(models, INSTRUCTION_IDS, text_ids, voice, instruct["samplingSeed"],
                                                   instruct["noiseSeed"], llm_prompt_speech=False)
    assert stream_tokens2 == tokens2
    instruct.update({"sampledTokens": raw2, "tokens": tokens2, "melShape": list(mel2.shape),
                     "audioSamples": len(audio2), "chunkSamples": [len(c) for c in chunks2],
                     "threshold": THRESHOLD, "margins": instruct_margins})
    with open(os.path.join(golden, "instruct.json"), "w") as f:
        json.dump(instruct, f, indent=1)
        f.write("\n")
    audio2.astype("<f4").tofile(os.path.join(golden, "instruct-audio.f32"))
    np.concatenate(chunks2).astype("<f4").tofile(os.path.join(golden, "instruct-stream.f32"))
    print(f"instruct2: sampled {len(raw2)} tokens, audio {len(audio2)} samples, streamed {[len(c) for c in chunks2]}")
    # The cross-lingual case (upstream inference_cross_lingual): no prompt text and no prompt speech in the
    # LLM; the text it reads is "You are a helpful assistant.<|endofprompt|>" + the target, whole, and the
    # length limits count all of it; the flow keeps the voice's tokens, mel and embedding.
    cross_text_ids = CROSS_LINGUAL_PREFIX_IDS + text_ids
    cross_seed = draw_margins.first_seed(
        [drawing([], cross_text_ids, [], lambda raw: raw != zero_shot_tokens)], 7, 20, thresholds)
    cross = {"promptTextTokens": [], "textTokens": cross_text_ids, "samplingSeed": cross_seed, "noiseSeed": 0}
    (raw3, tokens3, mel3, audio3), cross_margins = draw_margins.recorded(
        lambda: synthesize(models, [], cross_text_ids, voice, cross["samplingSeed"], cross["noiseSeed"],
                           llm_prompt_speech=False))
    stream_tokens3, chunks3 = synthesize_streaming(models, [], cross_text_ids, voice, cross["samplingSeed"],
                                                   cross["noiseSeed"], llm_prompt_speech=False)
    assert stream_tokens3 == tokens3
    cross.update({"sampledTokens": raw3, "tokens": tokens3, "melShape": list(mel3.shape),
                  "audioSamples": len(audio3), "chunkSamples": [len(c) for c in chunks3],
                  "threshold": THRESHOLD, "margins": cross_margins})
    with open(os.path.join(golden, "crosslingual.json"), "w") as f:
        json.dump(cross, f, indent=1)
        f.write("\n")
    audio3.astype("<f4").tofile(os.path.join(golden, "crosslingual-audio.f32"))
    np.concatenate(chunks3).astype("<f4").tofile(os.path.join(golden, "crosslingual-stream.f32"))
    print(f"cross-lingual: sampled {len(raw3)} tokens, audio {len(audio3)} samples, streamed {[len(c) for c in chunks3]}")
    # The zero-shot case again with the estimator that takes upstream's attention mask (estimator-chunk-mask/,
    # see make_models.py): the same LLM draws the same tokens; streamed, the chunks before the last run the flow
    # under the chunk mask, the last one (and the whole utterance) with full attention.
    masked = Models(os.path.join(out, "model"),
                    estimator=os.path.join(out, "estimator-chunk-mask", "flow.decoder.estimator.fp16.onnx"))
    raw4, tokens4, mel4, audio4 = synthesize(masked, prompt_text_ids, text_ids, voice, case["samplingSeed"],
                                             case["noiseSeed"])
    stream_tokens4, chunks4 = synthesize_streaming(masked, prompt_text_ids, text_ids, voice, case["samplingSeed"],
                                                   case["noiseSeed"])
    assert raw4 == raw and tokens4 == tokens and stream_tokens4 == tokens
    # The first chunk's flow (upstream's first hop: 25 tokens, plus the prompt rounded up to 25, plus the
    # lookahead) under the chunk mask, as streamed, and with full attention, for comparison.
    prompt_tokens, prompt_mel = align_prompt(voice["tokens"], voice["mel"])
    first = 25 + (-(-len(prompt_tokens) // 25) * 25 - len(prompt_tokens)) + LOOKAHEAD
    first_masked = flow_mel(masked, tokens[:first], prompt_tokens, prompt_mel, voice["embedding"], case["noiseSeed"],
                            finalize=False, streaming=True)
    first_full = flow_mel(masked, tokens[:first], prompt_tokens, prompt_mel, voice["embedding"], case["noiseSeed"],
                          finalize=False, streaming=False)
    chunk_case = dict(case, sampledTokens=raw4, tokens=tokens4, melShape=list(mel4.shape), audioSamples=len(audio4),
                      chunkSamples=[len(c) for c in chunks4], firstChunkTokens=first,
                      firstChunkMelShape=list(first_masked.shape))
    with open(os.path.join(golden, "chunk-mask.json"), "w") as f:
        json.dump(chunk_case, f, indent=1)
        f.write("\n")
    mel4.astype("<f4").tofile(os.path.join(golden, "chunk-mask-mel.f32"))
    audio4.astype("<f4").tofile(os.path.join(golden, "chunk-mask-audio.f32"))
    np.concatenate(chunks4).astype("<f4").tofile(os.path.join(golden, "chunk-mask-stream.f32"))
    first_masked.astype("<f4").tofile(os.path.join(golden, "chunk-mask-first-mel.f32"))
    first_full.astype("<f4").tofile(os.path.join(golden, "chunk-mask-first-mel-full.f32"))
    print(f"chunk mask: streamed {[len(c) for c in chunks4]}, first chunk ({first} tokens) max |masked - full| "
          f"{np.abs(first_masked - first_full).max():.4f}, max |stream - whole| "
          f"{np.abs(np.concatenate(chunks4) - audio4).max():.4f}")
    for name, seed, kept in (("zero-shot", zero_shot_seed, case_margins), ("instruct2", instruct_seed, instruct_margins),
                             ("cross-lingual", cross_seed, cross_margins)):
        print(f"{name}: seed {seed}, {len(kept)} draws, least margin {min(kept):.3e} (threshold {THRESHOLD:g})")
    silent = sum(1 for t in raw if t in SILENT_TOKENS)
    print(f"sampled {len(raw)} tokens ({silent} silent, {len(raw) - len(tokens)} dropped by the silence filter), "
          f"mel {mel.shape}, audio {len(audio)} samples, peak {np.abs(audio).max():.3f}; "
          f"streamed {[len(c) for c in chunks]}, max |stream - whole| {np.abs(np.concatenate(chunks) - audio).max():.4f}")
