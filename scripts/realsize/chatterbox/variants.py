"""The lower-precision variants of the real-size Chatterbox stand-in, made from its fp32 folder by the tools the
ONNX community's exports are quantised with (build.py --variants runs this):

  fp16     onnxconverter-common's float16 conversion (make_fp16.py's settings and Cast repair: the language model's
           inputs_embeds, logits and KV cache float16, the other graphs float32 at their inputs and outputs)
  q8       onnxruntime's quantize_dynamic: MatMul and Gather weights as uint8 (the export's `_quantized`)
  q4       onnxruntime's MatMulNBitsQuantizer: MatMul weights as 4-bit blocks of 32 (MatMulNBits), the
           embedding table as GatherBlockQuantized; everything else float32
  q4f16    the fp16 graphs, then the same 4-bit quantisation

Each graph is stored as the pull stores it: `<graph>.onnx`, the export's `<graph><suffix>.onnx` (whose weights
name `<graph><suffix>.onnx_data` as their location), and that data file beside it under its own name.
Not reproduced: the q4f16 language model of the real export fuses attention into GroupQueryAttention, which
these tools do not do for a GPT-2 graph.
"""
import os
import shutil
import time

import onnx

GRAPHS = ["speech_encoder", "embed_tokens", "language_model", "conditional_decoder"]


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def to_float16(model, graph):
    import make_fp16
    from onnxconverter_common import float16
    keep_io = graph != "language_model" and graph != "embed_tokens"
    model = make_fp16.with_float32_tables(model)  # (only the generated test graphs have such tables)
    half = float16.convert_float_to_float16(model, keep_io_types=keep_io, max_finite_val=make_fp16.MAX_FINITE)
    make_fp16.repair_casts(half)
    return half


def to_4bit(model, graph):
    """MatMul weights as MatMulNBits; embed_tokens' table as GatherBlockQuantized. Only there: quantising a Gather
    makes the tool raise the graph to opset 21 without rewriting its nodes, which breaks the opset-17 Reduce
    nodes of the other graphs (embed_tokens is one Gather)."""
    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer
    from onnxruntime.quantization.onnx_model import ONNXModel
    # GPT-2's Conv1D layers export as Gemm, which the quantizer leaves alone: as MatMul and Add they are quantised
    # (first run without this: language_model_q4.onnx_data 1,245,793,804 bytes, nearly fp32's).
    wrapped = ONNXModel(model)
    wrapped.replace_gemm_with_matmul()
    model = wrapped.model
    types = ("Gather",) if graph == "embed_tokens" else ("MatMul",)
    config = DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=True, op_types_to_quantize=types,
                                          quant_axes=(("MatMul", 0), ("Gather", 1)))
    quantizer = MatMulNBitsQuantizer(model, algo_config=config)
    quantizer.process()
    quantized = ONNXModel(quantizer.model.model)
    quantized.remove_unused_constant()  # the float weights the quantised nodes replaced
    return quantized.model


def to_8bit(source, target):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(source, target, weight_type=QuantType.QUInt8, op_types_to_quantize=["MatMul", "Gather"],
                     use_external_data_format=True, extra_options={"MatMulConstBOnly": True})


def save(model, folder, graph, suffix):
    """`<graph>.onnx` naming `<graph><suffix>.onnx_data`, as the pull stores the export's files."""
    data = f"{graph}{suffix}.onnx_data"
    path = os.path.join(folder, f"{graph}.onnx")
    if os.path.exists(os.path.join(folder, data)):
        os.remove(os.path.join(folder, data))
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=data,
                    size_threshold=0)
    log(f"{graph}.onnx {os.path.getsize(path):,} bytes, {data} {os.path.getsize(os.path.join(folder, data)):,} bytes")


def make(fp32, target, variant, suffix):
    staging = target + ".partial"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    for graph in GRAPHS:
        log(f"{variant}: {graph}")
        source = os.path.join(fp32, f"{graph}.onnx")
        if variant == "q8":
            scratch = os.path.join(staging, "scratch")
            os.makedirs(scratch, exist_ok=True)
            to_8bit(source, os.path.join(scratch, f"{graph}.onnx"))
            model = onnx.load(os.path.join(scratch, f"{graph}.onnx"))
            save(model, staging, graph, suffix)
            shutil.rmtree(scratch)
            continue
        model = onnx.load(source)
        if variant in ("fp16", "q4f16"):
            model = to_float16(model, graph)
        if variant in ("q4", "q4f16"):
            model = to_4bit(model, graph)
        save(model, staging, graph, suffix)
        del model
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(fp32, name), os.path.join(staging, name))
    open(os.path.join(staging, ".complete"), "w").close()
    shutil.rmtree(target, ignore_errors=True)
    os.rename(staging, target)
    log(f"{target}: done")
