#!/usr/bin/env python3
"""The float16 language model of the generated Chatterbox graphs with its weights in an external file, named as
the export names a variant's (Tests/ChorusChatterboxTests/Resources/model-fp16-external/): `language_model.onnx`,
whose initializers all point at `language_model_fp16.onnx_data`, the location the export's
`onnx/language_model_fp16.onnx` holds. ONNX Runtime finds external data by that location, beside the graph, so an
install must keep the data file under the export's own name (issue 39: the pull stored it as
language_model.onnx_data, which no variant graph names). Made from model-fp16/language_model.onnx (make_fp16.py);
the same values, only stored elsewhere. Deterministic.

Usage: python3 scripts/testdata/chatterbox/make_external.py   (onnx)
"""
import os

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.join(HERE, "..", "..", "..", "Tests", "ChorusChatterboxTests", "Resources")


def main():
    source = os.path.join(RESOURCES, "model-fp16", "language_model.onnx")
    target = os.path.join(RESOURCES, "model-fp16-external")
    os.makedirs(target, exist_ok=True)
    data = "language_model_fp16.onnx_data"
    if os.path.exists(os.path.join(target, data)):
        os.remove(os.path.join(target, data))
    model = onnx.load(source)
    onnx.save_model(model, os.path.join(target, "language_model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location=data, size_threshold=0)
    for name in sorted(os.listdir(target)):
        print(name, os.path.getsize(os.path.join(target, name)))


if __name__ == "__main__":
    main()
