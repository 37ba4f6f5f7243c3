#!/usr/bin/env python3
"""Writes float16 variants of the generated FastConformer test encoder
(Tests/ChorusRecognitionTests/Resources/fastconformer_fp16 and fastconformer_float64).

Exports for accelerators that run natively in half precision (the seed's Core ML package, ONNX models
converted with keep_io_types=False) take float16 features and give float16 log-probabilities. This
script turns the committed fastconformer/encoder_T800.onnx (written by make_fastconformer_testdata.py)
into such a model: every float weight and constant cast to float16, input and output float16, the
graph otherwise the same. It then runs the Python reference decode path on the committed features
of the test clip with the float16 model and checks that the token ids equal the float32 model's (the
golden ones in tone_sentence.json).

fastconformer_float64/encoder.onnx is the same graph behind a float64 input, which Chorus refuses with
a message naming the input; it exists only for that test.

Deterministic: a pure transformation of committed files. Needs numpy, onnx and onnxruntime.
"""
import json
import os
import shutil

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.join(HERE, "..", "..", "Tests", "ChorusRecognitionTests", "Resources")
SOURCE = os.path.join(RESOURCES, "fastconformer", "encoder_T800.onnx")
SUBSAMPLING = 8


def half_precision(model):
    """The model with float32 weights, constants, input and output as float16."""
    graph = model.graph
    for index, initializer in enumerate(graph.initializer):
        if initializer.data_type == TensorProto.FLOAT:
            values = numpy_helper.to_array(initializer).astype(np.float16)
            graph.initializer[index].CopyFrom(numpy_helper.from_array(values, initializer.name))
    for value in list(graph.input) + list(graph.output):
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.FLOAT16
    model.producer_name = "chorus-testdata-fp16"
    onnx.checker.check_model(model)
    return model


def float64_input(model):
    """The model behind a float64 input that is cast to float32 first."""
    graph = model.graph
    original = graph.input[0].name
    graph.input[0].name = original + "_f64"
    graph.input[0].type.tensor_type.elem_type = TensorProto.DOUBLE
    graph.node.insert(0, helper.make_node("Cast", [original + "_f64"], [original], to=TensorProto.FLOAT))
    onnx.checker.check_model(model)
    return model


def reference_ids(path, features, input_type):
    """Bucket padding, run, trim to ceil(frames / 8), argmax, CTC collapse with the blank last."""
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    frames = session.get_inputs()[0].shape[2]
    padded = np.zeros((1, features.shape[0], frames), input_type)
    padded[0, :, :features.shape[1]] = features
    logprobs = session.run(None, {session.get_inputs()[0].name: padded})[0][0].astype(np.float32)
    best = logprobs[:(features.shape[1] + SUBSAMPLING - 1) // SUBSAMPLING].argmax(axis=1)
    blank = logprobs.shape[1] - 1
    ids, previous = [], None
    for token in best.tolist():
        if token != previous and token != blank:
            ids.append(token)
        previous = token
    return ids


def main():
    features = np.load(os.path.join(RESOURCES, "tone_sentence_features.npy"))
    with open(os.path.join(RESOURCES, "tone_sentence.json"), encoding="utf-8") as file:
        golden = json.load(file)

    fp16_dir = os.path.join(RESOURCES, "fastconformer_fp16")
    os.makedirs(fp16_dir, exist_ok=True)
    fp16_path = os.path.join(fp16_dir, "encoder_T800.onnx")
    onnx.save(half_precision(onnx.load(SOURCE)), fp16_path)
    shutil.copy(os.path.join(RESOURCES, "fastconformer", "tokens.txt"), fp16_dir)
    ids = reference_ids(fp16_path, features, np.float16)
    print("float16 token ids:", ids)
    assert ids == golden["token_ids"], "the float16 encoder no longer hears the sentence"

    f64_dir = os.path.join(RESOURCES, "fastconformer_float64")
    os.makedirs(f64_dir, exist_ok=True)
    onnx.save(float64_input(onnx.load(SOURCE)), os.path.join(f64_dir, "encoder_T800.onnx"))
    shutil.copy(os.path.join(RESOURCES, "fastconformer", "tokens.txt"), f64_dir)


if __name__ == "__main__":
    main()
