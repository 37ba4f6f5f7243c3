"""Margins of pinned draws, for the generators whose goldens hold sampled tokens (chatterbox/margins.py, neutts):
how far each draw lies from changing, in units of the largest |logit| of its step.

A draw changes only if one of these moves: the uniform's place among the candidates' cumulative probabilities
(draw), the chosen token's place in the order (its logit gap to the candidates beside it, order), the top-k cut
(the gap between the k-th logit and the next lower one, top_k), or the top-p cut (the distance of the nearest
cumulative probability from 1 - top_p, top_p). If every logit moves by at most e * M (M the largest finite |logit|
of the scores the quantity is computed on), a gap moves by at most 2 e M, and a cumulative probability S by at
most 2 e M S (1 - S) (first order: each p_i changes by p_i (d_i - sum_j p_j d_j), at most when the logits inside
the sum move one way and the rest the other). So a gap over 2 M, and a cumulative probability's distance over
2 M S (1 - S), is the smallest such e that could change the draw; a draw's margin is the least of the four.
Chorus measures the same on its own logits at test time (Sources/ChorusGeneration/DrawMargin.swift) and moves
the logits by e M against the nearest boundary (LogitPerturbation.aimed); the goldens' margins are this record.
(Goldens made before December 2026 record a cumulative probability's distance over 2 M, a lower bound of this.)

A generator puts RecordingProcessors where upstream makes its LogitsProcessorList, calls note_draw from its
pinned torch.multinomial, and chooses seeds with first_seed and the least margin of each kind its model needs
(measured there); each golden keeps recorded()'s margins.
"""
import math

import torch
from transformers import LogitsProcessorList, TopKLogitsWarper, TopPLogitsWarper

class TooClose(Exception):
    pass


class Recorder:
    """One generation's steps, each a dict of its margins by kind; with `thresholds`, a step that keeps less of a
    kind raises TooClose."""

    def __init__(self, thresholds=None):
        self.thresholds = thresholds
        self.steps = []
        self.current = {}

    def margins(self):
        return [round(min(s.values()), 9) for s in self.steps]


RECORDER = [None]


def largest(scores):
    finite = scores[torch.isfinite(scores)]
    return finite.abs().max().item()


def cumulative_margin(distance, share, m):
    """The margin of a cumulative probability `share` lying `distance` from what it is compared with, for logits
    whose largest |value| is m: infinite at 0 and 1, which no change of the logits moves."""
    spread = 2 * m * share * (1 - share)
    return max(distance, 0.0) / spread if spread > 0 else math.inf


def draw_share(target, before, after, total):
    """The uniform's distance from the cumulative probabilities on either side of the chosen token, as a share of
    the whole (cosyvoice/margins.py divides it by 2 M, its looser record)."""
    return min(target - before, after - target) / total


def draw_margin(target, before, after, total, m):
    """The draw margin: the uniform's distance from the cumulative probabilities on either side of the chosen
    token (`before` and `after`, of `total`)."""
    u, lower, upper = target / total, before / total, after / total
    return min(cumulative_margin(u - lower, lower, m), cumulative_margin(upper - u, upper, m))


def top_k_margin(scores, k):
    """The gap between the k-th value and the next lower one (ties with the k-th stay, as Hugging Face's
    TopKLogitsWarper keeps them), over 2 M."""
    s = scores.double()
    values = torch.sort(s, descending=True).values
    kth = values[min(k, values.numel()) - 1]
    lower = values[values < kth]
    gap = (kth - lower[0]).item() if lower.numel() else math.inf
    return gap / (2 * largest(s))


def top_p_margin(scores, top_p):
    """The cumulative probabilities (least likely first, as TopPLogitsWarper sums them) on either side of
    1 - top_p, each's distance from it as a margin."""
    s = scores.double()
    finite = s[torch.isfinite(s)]
    m = finite.abs().max().item()
    cumulative = torch.sort(finite).values.softmax(-1).cumsum(-1).tolist()
    cut = 1 - top_p
    below = [c for c in cumulative if c <= cut]
    above = [c for c in cumulative if c > cut]
    margins = [cumulative_margin(cut - below[-1], below[-1], m)] if below else []
    margins += [cumulative_margin(above[0] - cut, above[0], m)] if above else []
    return min(margins, default=math.inf)


class RecordingProcessors(LogitsProcessorList):
    """upstream's processors, run in its order, noting the top-k and top-p cuts' margins on the way and the
    scores the draw sees."""

    def __call__(self, input_ids, scores, **kwargs):
        recorder = RECORDER[0]
        if recorder is not None:
            recorder.current["raw"] = scores[0].double()
        for processor in self:
            if recorder is not None and isinstance(processor, TopKLogitsWarper):
                recorder.current["top_k"] = top_k_margin(scores[0], processor.top_k)
            if recorder is not None and isinstance(processor, TopPLogitsWarper):
                recorder.current["top_p"] = top_p_margin(scores[0], processor.top_p)
            scores = processor(input_ids, scores, **kwargs)
        if recorder is not None:
            recorder.current["scores"] = scores[0].double()
        return scores


def note_draw(probabilities, order, chosen, target, total):
    """Called by the pinned draw with its candidates' probabilities, order, choice and target."""
    recorder = RECORDER[0]
    if recorder is None:
        return
    scores = recorder.current.pop("scores")
    raw = recorder.current.pop("raw", None)
    m = largest(scores)
    position = order.index(chosen)
    before = sum(probabilities[i] for i in order[:position])
    after = before + probabilities[chosen]
    draw = draw_margin(target, before, after, total, m)
    # The nearest other value among the candidates: tokens of equal value (float16 logits tie often) keep their
    # order by id whatever moves them together, so a tie is no boundary; a different value is.
    values = scores[torch.tensor(order)]
    others = (values - scores[chosen]).abs()
    others = others[others > 0]
    gap = others.min().item() if others.numel() else math.inf
    # A tie the steps made (the repetition penalty brings a penalised logit down onto another's) from two
    # different raw logits is a boundary: any change of the raw logits can part the two, and which comes first
    # then moves the chosen token's cumulative probability by the other's whole share.
    if raw is not None and any(scores[i] == scores[chosen] and raw[i] != raw[chosen] for i in order if i != chosen):
        gap = 0.0
    step = {"draw": draw, "order": gap / (2 * m)}
    step.update(recorder.current)
    recorder.current = {}
    recorder.steps.append(step)
    if recorder.thresholds is not None:
        check(step, recorder.thresholds)


def check(step, thresholds):
    for key, least in thresholds.items():
        if step.get(key, math.inf) < least:
            raise TooClose(f"{key} {step[key]:.2e}")


def recorded(generate):
    """generate() run with its draws' margins noted: (its result, the margins)."""
    RECORDER[0] = Recorder()
    try:
        return generate(), RECORDER[0].margins()
    finally:
        RECORDER[0] = None


def first_seed(generations, start, shortest, thresholds, tries=3000):
    """The first seed from `start` whose every draw, in every one of `generations` (functions of a seed that
    return the tokens), keeps `thresholds`, and that gives at least `shortest` tokens each (a short utterance
    keeps its few margins easily, but tests little)."""
    for seed in range(start, start + tries):
        try:
            for generate in generations:
                RECORDER[0] = Recorder(thresholds)
                if len(generate(seed)) < shortest:
                    raise TooClose("too short")
            return seed
        except TooClose:
            continue
        finally:
            RECORDER[0] = None
    raise SystemExit(f"no seed in {start}..{start + tries - 1} keeps the margins")
