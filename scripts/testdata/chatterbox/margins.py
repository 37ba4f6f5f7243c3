"""Margins of the pinned draws (imported by make_testdata.py and make_fp16.py): ../draw_margins.py's record of
how far each draw of T3.inference_turbo lies from changing, in units of the largest |logit| of its step (the
draw, order, top-k and top-p margins; that file says how each is bounded), with the least each kind must keep
here.
"""
import os
import sys

import chatterbox.models.t3.t3 as t3_module

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import draw_margins  # noqa: E402
from draw_margins import TooClose, note_draw, recorded  # noqa: E402,F401  (the generators' names)

# T3 makes its processors as a LogitsProcessorList of its own module; the recording list notes the top-k and
# top-p cuts' margins and the scores each draw sees.
t3_module.LogitsProcessorList = draw_margins.RecordingProcessors

# The least margin each kind of draw must keep, in the units above. Measured on the generated model (largest
# |difference| of a step's logits over its largest |logit|): PyTorch's full forward against ONNX Runtime's
# export, 1 and 2 intra-op threads, at most 2.3e-6 - the bound of what another kernel order or instruction set
# changes. A gap between two logits (order, top_k) moves by at most twice that, so they keep 1e-5, which is
# also what a test's relative perturbation of 1e-5 needs. A cumulative probability (draw, top_p) is a sum over
# about a thousand candidates whose errors do not line up; its worst case (every logit moving against the
# draw) cannot be kept on a random model's nearly flat distributions in any case of 30 draws, so these keep
# 2e-6 (sums of independent errors of 2.3e-6 stay about 30 times below it).
THRESHOLDS = {"draw": 2e-6, "top_p": 2e-6, "order": 1e-5, "top_k": 1e-5}


def first_seed(generations, start, shortest, tries=3000):
    """The first seed from `start` whose every draw, in every one of `generations` (functions of a seed that
    return the tokens), keeps THRESHOLDS, and that gives at least `shortest` tokens each (a short utterance
    keeps its few margins easily, but tests little)."""
    return draw_margins.first_seed(generations, start, shortest, THRESHOLDS, tries)
