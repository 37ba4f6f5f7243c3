#!/usr/bin/env python3
"""States the generated Chatterbox graphs' capacity in their ONNX metadata (metadata_props), where the engine reads
it (ChatterboxCapacity): language_model.onnx holds 2,048 positions (the test GPT-2's n_positions), and
conditional_decoder.onnx decodes at most 160 speech tokens in one call, the voice's prompt and the three of silence
included (its noise tables and relative positions cover make_testdata.py's FRAME_CAP of 320 mel frames, two a
token). Only the metadata changes: the graphs, their weights and every golden stay as they were.

Run by make_testdata.py and make_fp16.py after they write the graphs; alone, it stamps the committed ones:
  /work/team/venv-goldens/bin/python scripts/testdata/chatterbox/stamp_capacity.py
"""
import os
import sys

import onnx

RESOURCES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Tests", "ChorusChatterboxTests", "Resources")
POSITIONS = 2048
FRAME_CAP = 320
LIMITS = {"language_model.onnx": ("chorus.max_positions", POSITIONS),
          "conditional_decoder.onnx": ("chorus.max_speech_tokens", FRAME_CAP // 2)}


def stamp(folder):
    for name, (key, value) in LIMITS.items():
        path = os.path.join(folder, name)
        model = onnx.load(path)
        kept = [entry for entry in model.metadata_props if entry.key != key]
        del model.metadata_props[:]
        model.metadata_props.extend(kept)
        model.metadata_props.add(key=key, value=str(value))
        onnx.save(model, path)
        print(f"{path}: {key} = {value}")


if __name__ == "__main__":
    for folder in sys.argv[1:] or [os.path.join(RESOURCES, "model"), os.path.join(RESOURCES, "model-fp16")]:
        stamp(folder)
