"""Margins of the pinned draws (imported by make_testdata.py): how far each draw of T3.inference_turbo lies from
changing, in units of the largest |logit| of its step.

A draw changes only if one of these moves: the uniform's place among the candidates' cumulative probabilities
(draw), the chosen token's place in the order (its logit gap to the candidates beside it, order), the top-k cut
(the gap between the k-th logit and the next lower one, top_k), or the top-p cut (the distance of the nearest
cumulative probability from 1 - top_p, top_p). If every logit moves by at most e * M (M the largest |logit| of
the step after the processors), a cumulative probability moves by at most 2 e M (first order: each p_i changes
by p_i (d_i - sum_j p_j d_j)), and a gap by at most 2 e M. So each quantity divided by 2 M is the smallest such e
that could change the draw; a draw's margin is the least of the four.
"""
import math

import numpy as np
import torch
from transformers import LogitsProcessorList, TopKLogitsWarper, TopPLogitsWarper

import chatterbox.models.t3.t3 as t3_module


class Recorder:
    def __init__(self, strict=False):
        self.strict = strict
        self.steps = []
        self.current = {}

    def margins(self):
        return [round(min(s.values()), 9) for s in self.steps]


RECORDER = [None]


class RecordingProcessors(LogitsProcessorList):
    """upstream's processors, run in its order, noting the top-k and top-p cuts' margins on the way."""

    def __call__(self, input_ids, scores, **kwargs):
        recorder = RECORDER[0]
        for processor in self:
            if recorder is not None and isinstance(processor, TopKLogitsWarper):
                s = scores[0].double()
                values = torch.sort(s, descending=True).values
                k = min(processor.top_k, values.numel())
                kth = values[k - 1]
                lower = values[values < kth]
                gap = (kth - lower[0]).item() if lower.numel() else math.inf
                recorder.current["top_k"] = gap / (2 * values.abs().max().item())
            if recorder is not None and isinstance(processor, TopPLogitsWarper):
                s = scores[0].double()
                finite = s[torch.isfinite(s)]
                cumulative = torch.sort(finite).values.softmax(-1).cumsum(-1)
                distance = (cumulative - (1 - processor.top_p)).abs().min().item()
                recorder.current["top_p"] = distance / (2 * finite.abs().max().item())
            scores = processor(input_ids, scores, **kwargs)
        if recorder is not None:
            recorder.current["scores"] = scores[0].double()
        return scores


t3_module.LogitsProcessorList = RecordingProcessors


def note_draw(probabilities, order, chosen, target, total):
    """Called by the pinned draw with its candidates' probabilities, order, choice and target."""
    recorder = RECORDER[0]
    if recorder is None:
        return
    scores = recorder.current.pop("scores")
    finite = scores[torch.isfinite(scores)]
    largest = finite.abs().max().item()
    position = order.index(chosen)
    before = sum(probabilities[i] for i in order[:position])
    after = before + probabilities[chosen]
    draw = min(target - before, after - target) / total
    # The nearest other value among the candidates: tokens of equal value (float16 logits tie often) keep their
    # order by id whatever moves them together, so a tie is no boundary; a different value is.
    values = scores[torch.tensor(order)]
    others = (values - scores[chosen]).abs()
    others = others[others > 0]
    gap = others.min().item() if others.numel() else math.inf
    step = {"draw": draw / (2 * largest), "order": gap / (2 * largest)}
    step.update(recorder.current)
    recorder.current = {}
    recorder.steps.append(step)
    if recorder.strict:
        check(step)


# The least margin each kind of draw must keep, in the units above. Measured on the generated model (largest
# |difference| of a step's logits over its largest |logit|): PyTorch's full forward against ONNX Runtime's
# export, 1 and 2 intra-op threads, at most 2.3e-6 - the bound of what another kernel order or instruction set
# changes. A gap between two logits (order, top_k) moves by at most twice that, so they keep 1e-5, which is
# also what a test's relative perturbation of 1e-5 needs. A cumulative probability (draw, top_p) is a sum over
# about a thousand candidates whose errors do not line up; its worst case (every logit moving against the
# draw) cannot be kept on a random model's nearly flat distributions in any case of 30 draws, so these keep
# 2e-6 (sums of independent errors of 2.3e-6 stay about 30 times below it).
THRESHOLDS = {"draw": 2e-6, "top_p": 2e-6, "order": 1e-5, "top_k": 1e-5}


class TooClose(Exception):
    pass


def check(step):
    for key, least in THRESHOLDS.items():
        if step.get(key, math.inf) < least:
            raise TooClose(f"{key} {step[key]:.2e}")


def recorded(generate):
    """generate() run with its draws' margins noted: (its result, the margins)."""
    recorder = Recorder()
    RECORDER[0] = recorder
    try:
        return generate(), recorder.margins()
    finally:
        RECORDER[0] = None


def first_seed(generations, start, shortest, tries=3000):
    """The first seed from `start` whose every draw, in every one of `generations` (functions of a seed that
    return the tokens), keeps THRESHOLDS, and that gives at least `shortest` tokens each (a short utterance
    keeps its few margins easily, but tests little)."""
    for seed in range(start, start + tries):
        try:
            for generate in generations:
                RECORDER[0] = Recorder(strict=True)
                if len(generate(seed)) < shortest:
                    raise TooClose("too short")
            return seed
        except TooClose:
            continue
        finally:
            RECORDER[0] = None
    raise SystemExit(f"no seed in {start}..{start + tries - 1} keeps the margins")
