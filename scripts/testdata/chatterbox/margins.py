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

# The least margin each kind of draw must keep, in the units above: 1.5e-5 of the step's largest |logit|, so that
# on ONNX Runtime's logits every draw keeps the 1e-5 the tests claim (GoldenRun.leastMargin: Chorus measures every
# draw's margin on its own logits and moves them by that much against the nearest boundary). A margin moves by at
# most the change of the logits, measured on the generated model by measure_bound.py (largest |difference| of a
# step's logits over its largest |logit|): PyTorch against ONNX Runtime 2.7e-6, ONNX Runtime at 1 against 2
# threads 0, with its graph optimisations off 7.5e-7, float32 against float64 2.8e-6. (Before draw_margins.py
# bounded a cumulative probability's move by 2 e M S (1 - S) rather than 2 e M, draws and top-p kept only 2e-6
# here: with the looser bound no case of 30 draws kept 1e-5.)
THRESHOLDS = {"draw": 1.5e-5, "top_p": 1.5e-5, "order": 1.5e-5, "top_k": 1.5e-5}


def first_seed(generations, start, shortest, tries=3000):
    """The first seed from `start` whose every draw, in every one of `generations` (functions of a seed that
    return the tokens), keeps THRESHOLDS, and that gives at least `shortest` tokens each (a short utterance
    keeps its few margins easily, but tests little)."""
    return draw_margins.first_seed(generations, start, shortest, THRESHOLDS, tries)
