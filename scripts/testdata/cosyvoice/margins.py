"""The pinned draws of upstream CosyVoice's sampling, and how far each lies from changing (imported by
make_upstream.py).

Upstream draws with `Tensor.multinomial` in two places (cosyvoice/utils/common.py): `nucleus_sampling` over the
candidates' probabilities in their sorted order, and `random_sampling` (ras_sampling's redraw) over the softmax of
every score in index order. `pinned()` replaces `Tensor.multinomial` with Chorus's draw (Sources/ChorusDSP/
SeededRandom.swift `categorical`): one uniform from SplitMix64 (the top 53 bits of the next output times 2**-53),
scaled by the weights' float64 sum in index order, and the first index whose running sum exceeds it. Nothing else
of upstream's sampling changes.

A draw changes only if one of these moves (all measured in units of the largest |logit| M of the step, since a
test perturbs each logit by a relative e: every logit moves by at most e M, every gap between two logits by at most
2 e M and, to first order, every cumulative probability by at most 2 e M):
  draw   the uniform's distance from the cumulative probabilities on either side of the chosen token, / 2M;
  order  the chosen token's logit gap to the nearest other candidate (and to the first token left out), / 2M;
  top_k  when 25 candidates were kept by the count: the gap between the 25th and 26th logits, / 2M;
  top_p  the distance of the nearest cumulative probability tested against 0.8 from 0.8, / 2M.
A draw's margin is the least of these: the smallest relative change of the logits that could change it.
"""
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import draw_margins  # noqa: E402
from draw_margins import TooClose  # noqa: E402,F401  (make_upstream.py catches margins.TooClose)
from seeded_random import SplitMix64  # noqa: E402


def noise_table(seed, frames):
    """[1, 80, frames]: the flow's starting noise as Chorus draws it, frame by frame, 80 gaussians each."""
    values = SplitMix64(seed).gaussians(80 * frames).astype(np.float32).reshape(frames, 80).T
    return torch.from_numpy(np.ascontiguousarray(values))[None]


# The least margin every draw of a golden keeps, in the units above. Measured by make_upstream.py (the bound it
# records): upstream's PyTorch LLM against the ONNX export under ONNX Runtime at 1 and 2 intra-op threads differ
# by at most 7.7e-7 of a step's largest |logit|. A test perturbs every logit by a relative 1e-5, so a gap
# (order, top_k) needs more than 1e-5 to survive it whatever the pattern; a cumulative probability (draw,
# top_p) moves by 2 e M only if every logit moves against it, so it keeps 1e-5 as well: every margin at least
# 1e-5, thirteen times the measured difference.
THRESHOLD = 1e-5


def perturbation(size, pattern):
    """A forward hook on the LLM's decoder that changes every logit by a relative `size` as Chorus's
    LogitPerturbation does (Sources/ChorusGeneration/LogitPerturbation.swift): up or down by the lowest bit of a
    SplitMix64 finaliser of the logit's float32 bits plus `pattern` times the golden ratio constant."""
    def hook(module, inputs, output):
        bits = output.detach().to(torch.float32).contiguous().view(torch.int32).numpy().astype(np.uint32).astype(np.uint64)
        with np.errstate(over="ignore"):
            z = bits + np.uint64(pattern) * np.uint64(0x9E3779B97F4A7C15)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z ^= z >> np.uint64(31)
        sign = torch.from_numpy(np.where(z & np.uint64(1) == 0, size, -size).astype(np.float32)).reshape(output.shape)
        return output + output * sign
    return hook


class Recorder(draw_margins.Recorder):
    """One generation's draws: the step's raw logits (from a hook on the LLM's decoder), the scores upstream's
    sampling got, and each drawn token's margins (steps; a redraw's go with its token's). Strict: a draw that
    keeps less than THRESHOLD of any kind raises TooClose."""

    def __init__(self, seed, strict=False):
        super().__init__({kind: THRESHOLD for kind in KINDS} if strict else None)
        self.random = SplitMix64(seed)
        self.logits = None
        self.scores = None


KINDS = ("draw", "order", "top_k", "top_p", "redraw")


RECORDER = [None]


def note_logits(module, inputs, output):
    """A forward hook on `llm.llm_decoder`: the raw logits of the step (what Chorus's ONNX decoder returns)."""
    if RECORDER[0] is not None:
        RECORDER[0].logits = output.detach().reshape(-1).double()


def noting_scores(sampling):
    """upstream's `sampling` function (ras_sampling), noting the scores it is called with (after sampling_ids'
    masking) and starting a new token's record; the call itself is upstream's, unchanged."""
    def sample(weighted_scores, decoded_tokens, *args, **kwargs):
        recorder = RECORDER[0]
        if recorder is not None:
            recorder.scores = weighted_scores.detach().clone().double()
            recorder.steps.append({})
        return sampling(weighted_scores, decoded_tokens, *args, **kwargs)
    return sample


def pinned_multinomial(self, num_samples, replacement=False, *, generator=None, out=None):
    recorder = RECORDER[0]
    assert recorder is not None and num_samples == 1, "a pinned draw outside a recorded generation"
    weights = self.detach().double().reshape(-1).tolist()
    total = 0.0
    for w in weights:
        total += w
    target = recorder.random.uniform() * total
    running, chosen = 0.0, len(weights) - 1
    for index, w in enumerate(weights):
        before = running
        running += w
        if target < running:
            chosen = index
            break
    draw = draw_margins.draw_share(target, before, running, total)
    note(recorder, len(weights), chosen, draw)
    return torch.tensor([chosen], dtype=torch.long)


def note(recorder, count, chosen, draw):
    raw = recorder.logits
    largest = draw_margins.largest(raw)
    margins = recorder.steps[-1]
    scores = recorder.scores
    if count == scores.numel():
        # random_sampling's redraw over every token in index order: only the uniform's place matters.
        margins["redraw"] = draw / (2 * largest)
    else:
        # nucleus_sampling: the candidates are the `count` most likely in the stable descending order.
        probabilities = scores.softmax(0)
        values, order = probabilities.sort(descending=True, stable=True)
        logits = raw.clone()
        logits[~torch.isfinite(scores)] = -math.inf      # sampling_ids' mask
        ranked = logits[order]
        chosen_logit = ranked[chosen]
        neighbours = torch.cat([ranked[:count], ranked[count:count + 1]])
        gaps = (neighbours - chosen_logit).abs()
        gaps = gaps[(gaps > 0) & torch.isfinite(gaps)]
        margins["draw"] = draw / (2 * largest)
        margins["order"] = (gaps.min().item() if gaps.numel() else math.inf) / (2 * largest)
        if count == 25:
            margins["top_k"] = (ranked[24] - ranked[25]).item() / (2 * largest)
        cumulative = torch.cat([torch.zeros(1, dtype=values.dtype), values.cumsum(0)])
        tested = cumulative[:min(count + 1, 25)]
        margins["top_p"] = (tested - 0.8).abs().min().item() / (2 * largest)
    if recorder.thresholds is not None:
        draw_margins.check(margins, recorder.thresholds)


class pinned:
    """Within: `Tensor.multinomial` draws from SplitMix64(seed) and notes each draw's margins in `recorder`."""

    def __init__(self, seed, strict=False):
        self.recorder = Recorder(seed, strict)

    def __enter__(self):
        self.saved = torch.Tensor.multinomial
        torch.Tensor.multinomial = pinned_multinomial
        RECORDER[0] = self.recorder
        return self.recorder

    def __exit__(self, *exc):
        torch.Tensor.multinomial = self.saved
        RECORDER[0] = None
        return False
