#!/usr/bin/env python3
"""Writes the small ONNX models the OnnxRuntime tests run (Tests/ChorusONNXTests/Models), and the
stand-ins for Kokoro and Piper models the engine tests load (Tests/EngineTests/Models).

Deterministic: fixed weights, fixed ir_version and opset, no timestamps, so running it
again reproduces the committed files byte for byte. Needs PyPI `onnx`.
"""
import io
import json
import os
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "Tests", "ChorusONNXTests", "Models")
ENGINE_OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(__file__), "..", "..", "Tests", "EngineTests", "Models")


def save(graph, name, folder=OUT):
    model = helper.make_model(graph, producer_name="chorus-testdata", opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, name))


def float32_affine():
    # y = x * 2 + 1, x float [1, N] with a symbolic N.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "N"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "N"])
    two = numpy_helper.from_array(np.array(2, np.float32), "two")
    one = numpy_helper.from_array(np.array(1, np.float32), "one")
    nodes = [helper.make_node("Mul", ["x", "two"], ["t"]), helper.make_node("Add", ["t", "one"], ["y"])]
    save(helper.make_graph(nodes, "float32_affine", [x], [y], [two, one]), "float32_affine.onnx")


def float16_scale():
    # h float16 [2, 3] -> out float16 = h * 0.5, and out32 float = cast(h).
    h = helper.make_tensor_value_info("h", TensorProto.FLOAT16, [2, 3])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT16, [2, 3])
    out32 = helper.make_tensor_value_info("out32", TensorProto.FLOAT, [2, 3])
    half = numpy_helper.from_array(np.array(0.5, np.float16), "half")
    nodes = [helper.make_node("Mul", ["h", "half"], ["out"]),
             helper.make_node("Cast", ["h"], ["out32"], to=TensorProto.FLOAT)]
    save(helper.make_graph(nodes, "float16_scale", [h], [out, out32], [half]), "float16_scale.onnx")


def int64_gather():
    # An embedding table lookup: ids int64 [1, T] -> emb float [1, T, 4], row r = [r, r+0.25, r+0.5, r+0.75].
    table = (np.arange(10, dtype=np.float32)[:, None] + np.array([0, 0.25, 0.5, 0.75], np.float32)).astype(np.float32)
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "T"])
    emb = helper.make_tensor_value_info("emb", TensorProto.FLOAT, [1, "T", 4])
    node = helper.make_node("Gather", ["table", "ids"], ["emb"], axis=0)
    save(helper.make_graph([node], "int64_gather", [ids], [emb], [numpy_helper.from_array(table, "table")]),
         "int64_gather.onnx")


def kv_feedback():
    # A cache that grows by one step per call, like an LLM KV cache:
    #   past float16 [2, 1, P, 4], step float16 [1, 1, 1, 4] -> present float16 [2, 1, P+1, 4] = concat(past, [step, step*2]) on axis 2
    #   total float [1] = sum of present as float32.
    past = helper.make_tensor_value_info("past", TensorProto.FLOAT16, [2, 1, "past_len", 4])
    step = helper.make_tensor_value_info("step", TensorProto.FLOAT16, [1, 1, 1, 4])
    present = helper.make_tensor_value_info("present", TensorProto.FLOAT16, [2, 1, "present_len", 4])
    total = helper.make_tensor_value_info("total", TensorProto.FLOAT, [1])
    two = numpy_helper.from_array(np.array(2, np.float16), "two")
    shape = numpy_helper.from_array(np.array([1], np.int64), "shape1")
    nodes = [
        helper.make_node("Mul", ["step", "two"], ["step2"]),
        helper.make_node("Concat", ["step", "step2"], ["both"], axis=0),
        helper.make_node("Concat", ["past", "both"], ["present"], axis=2),
        helper.make_node("Cast", ["present"], ["present32"], to=TensorProto.FLOAT),
        # ReduceSum over every axis gives a scalar; reshape it to [1].
        helper.make_node("ReduceSum", ["present32"], ["sum"], keepdims=0),
        helper.make_node("Reshape", ["sum", "shape1"], ["total"]),
    ]
    save(helper.make_graph(nodes, "kv_feedback", [past, step], [present, total], [two, shape]), "kv_feedback.onnx")


def slow_chain():
    # y = x @ W @ W ... (48 times), x float [N, 256], W = 1/256 everywhere (made at run time, so the file
    # stays small). Each MatMul is one operator, so a terminate flag is seen within one of them; N sets
    # how long a run takes (N = 4096 is 25.8 GFLOP, tens of milliseconds here), for tests of cancellation and of the executor.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 256])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 256])
    shape = numpy_helper.from_array(np.array([256, 256], np.int64), "shape")
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["w"],
                              value=numpy_helper.from_array(np.array([1 / 256], np.float32)))]
    previous = "x"
    for index in range(48):
        output = "y" if index == 47 else f"h{index}"
        nodes.append(helper.make_node("MatMul", [previous, "w"], [output]))
        previous = output
    save(helper.make_graph(nodes, "slow_chain", [x], [y], [shape]), "slow_chain.onnx")


def mixed_types():
    # The other element types the binding supports, each through a simple op:
    #   i32 int32 [3], i8 int8 [3], u8 uint8 [3], flag bool [3] -> i32_out = i32 + 1, i8_out = -i8, u8_out = u8, flag_out = not flag
    ins = [helper.make_tensor_value_info(n, t, [3]) for n, t in
           [("i32", TensorProto.INT32), ("i8", TensorProto.INT8), ("u8", TensorProto.UINT8), ("flag", TensorProto.BOOL)]]
    outs = [helper.make_tensor_value_info(n, t, [3]) for n, t in
            [("i32_out", TensorProto.INT32), ("i8_out", TensorProto.INT8), ("u8_out", TensorProto.UINT8),
             ("flag_out", TensorProto.BOOL)]]
    one = numpy_helper.from_array(np.array(1, np.int32), "one")
    nodes = [helper.make_node("Add", ["i32", "one"], ["i32_out"]),
             helper.make_node("Neg", ["i8"], ["i8_out"]),
             helper.make_node("Identity", ["u8"], ["u8_out"]),
             helper.make_node("Not", ["flag"], ["flag_out"])]
    save(helper.make_graph(nodes, "mixed_types", ins, outs, [one]), "mixed_types.onnx")


# Phoneme symbols the engine stand-ins know, each mapped to its position + 1 (0 is Kokoro's frame id
# and Piper's pad): enough of espeak-ng's English IPA that short English text keeps most phonemes.
PHONEMES = "abdefhijklmnoprstuvwxzæðŋɐɑɔəɚɛɜɡɪɹɾʃʊʌʒʔθᵻˈˌːAIOWY .,!?"


def write_text(name, text):
    with open(os.path.join(ENGINE_OUT, name), "w", encoding="utf-8") as f:
        f.write(text)


def kokoro_stand_ins():
    # Kokoro's inputs (tokens int64 [1, T], style float [1, 256], speed float [1]); the "audio" is the
    # tokens as floats, so a test can tell what the engine fed. One file names its output "audio" as
    # Kokoro does; the other "waveform", which the engine must refuse rather than return silence. The
    # floats pass through the value Kokoro's export holds its token durations in, which the engine caps.
    for name, output in [("kokoro_stand_in.onnx", "audio"), ("kokoro_renamed_output.onnx", "waveform")]:
        tokens = helper.make_tensor_value_info("tokens", TensorProto.INT64, [1, "T"])
        style = helper.make_tensor_value_info("style", TensorProto.FLOAT, [1, 256])
        speed = helper.make_tensor_value_info("speed", TensorProto.FLOAT, [1])
        audio = helper.make_tensor_value_info(output, TensorProto.FLOAT, [1, "T"])
        nodes = [helper.make_node("Cast", ["tokens"], ["/encoder/Clip_output_0"], to=TensorProto.FLOAT),
                 helper.make_node("Identity", ["/encoder/Clip_output_0"], [output])]
        save(helper.make_graph(nodes, "kokoro_stand_in", [tokens, style, speed], [audio]), name, ENGINE_OUT)
    vocab = {symbol: index + 1 for index, symbol in enumerate(PHONEMES)}
    write_text("kokoro_vocab.json", json.dumps({"vocab": vocab}, ensure_ascii=False, sort_keys=True))
    # One voice of one style row (the engine clamps the row to the table), stored uncompressed with a
    # fixed date, so the archive is the same bytes every run.
    npy = io.BytesIO()
    np.save(npy, np.zeros((1, 1, 256), np.float32))
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
        z.writestr(zipfile.ZipInfo("af_test.npy", date_time=(1980, 1, 1, 0, 0, 0)), npy.getvalue())
    with open(os.path.join(ENGINE_OUT, "kokoro_voices.npz"), "wb") as f:
        f.write(archive.getvalue())


def piper_stand_ins():
    # Piper's inputs (input int64 [1, T], input_lengths int64 [1], scales float [3]); the audio is the
    # ids as floats. "output" is Piper's name; "wav" is one the engine must refuse.
    config = {
        "audio": {"sample_rate": 16000},
        "espeak": {"voice": "en-us"},
        "language": {"code": "en_US"},
        "dataset": "stand-in",
        "inference": {"noise_scale": 0.667, "length_scale": 1, "noise_w": 0.8},
        "phoneme_id_map": {symbol: [index] for index, symbol in enumerate("_^$" + PHONEMES)},
    }
    for name, output in [("piper_stand_in.onnx", "output"), ("piper_renamed_output.onnx", "wav")]:
        ids = helper.make_tensor_value_info("input", TensorProto.INT64, [1, "T"])
        lengths = helper.make_tensor_value_info("input_lengths", TensorProto.INT64, [1])
        scales = helper.make_tensor_value_info("scales", TensorProto.FLOAT, [3])
        audio = helper.make_tensor_value_info(output, TensorProto.FLOAT, [1, "T"])
        node = helper.make_node("Cast", ["input"], [output], to=TensorProto.FLOAT)
        save(helper.make_graph([node], "piper_stand_in", [ids, lengths, scales], [audio]), name, ENGINE_OUT)
        write_text(name + ".json", json.dumps(config, ensure_ascii=False, indent=1, sort_keys=True))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    float32_affine()
    float16_scale()
    int64_gather()
    kv_feedback()
    mixed_types()
    slow_chain()
    with open(os.path.join(OUT, "corrupt.onnx"), "wb") as f:
        # Not a protobuf: what a truncated download or a wrong file looks like to the runtime.
        f.write(b"this is not an onnx model\x00\x01\x02" * 4)
    print("wrote test models to", os.path.abspath(OUT))
    os.makedirs(ENGINE_OUT, exist_ok=True)
    kokoro_stand_ins()
    piper_stand_ins()
    print("wrote engine stand-ins to", os.path.abspath(ENGINE_OUT))
