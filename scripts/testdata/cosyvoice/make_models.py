#!/usr/bin/env python3
"""Writes small stand-ins for the CosyVoice 3 ONNX files (Tests/ChorusCosyVoiceTests/Resources/model).

Each file has the community export's exact file name, input and output names, element types
and ranks (see ../../../../shared/reference/cosyvoice3.md, "The 12 ONNX files"): 896-wide LLM
embeddings, the [48, 1, 2, L, 64] KV cache, 6761 logits, 80 mel bins, the batch-2 estimator,
480 samples per mel frame and the 18-channel n_fft 16 source STFT. Everything inside is tiny and
random (seeded): the 896-wide parts are thin projections through 8 or 16 dimensions, and the
`_fp16` files keep their weights as float16 behind a Cast, as the export keeps fp16 inside and
float32 at the boundary.

The LLM is a real (one-head, one-layer) causal attention that reads its keys from cache slot 0
head 0 and its values from slot 47 head 1, so a runtime that mangles the cache layout, its
element type or the feedback between steps produces different logits. The decoder's logits
favour a few dozen tokens (including the silent ones) and give EOS a little (LLM_SHARPNESS), so sampling,
the repetition rule, the stop rule and the silent-token filter all run on a short utterance.

backbone-fp16-io/ holds the two backbone files again with float16 inputs and outputs (the KV cache
included), as an export without keep_io_types declares them. estimator-chunk-mask/ holds an estimator
that also takes upstream's attention mask (`attn_mask`, see `flow_estimator_chunk_mask`), so streaming can
run upstream's chunk mask; estimator-unusable-mask/ two estimators whose mask input is not upstream's.

Deterministic: fixed seed, fixed ir_version and opset, no timestamps; running it again
reproduces the committed bytes. Needs PyPI `onnx` and numpy.

    python3 scripts/testdata/cosyvoice/make_models.py [OUT_DIR]
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "..", "..", "Tests", "ChorusCosyVoiceTests", "Resources", "model")

HIDDEN = 896          # Qwen2-0.5B width, as the export has it
LOGITS = 6761         # 6561 speech tokens + 200 stop ids
SPEECH_TOKENS = 6561
KV_SLOTS, KV_HEADS, HEAD = 48, 2, 64
MELS = 80
SILENT = [1, 2, 28, 29, 55, 248, 494, 2241, 2242, 2322, 2323]
F32, F16, I64, I32 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64, TensorProto.INT32

rng = np.random.default_rng(20251122)


class Graph:
    """A small helper that names intermediate values and collects nodes and initializers."""

    def __init__(self, name):
        self.name, self.nodes, self.inits, self.count = name, [], [], 0

    def tmp(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, array, hint="c"):
        name = self.tmp(hint)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def weight(self, array, fp16, hint="w"):
        """A float32 weight; stored as float16 behind a Cast when `fp16`."""
        if not fp16:
            return self.const(array.astype(np.float32), hint)
        stored = self.const(array.astype(np.float16), hint + "16")
        return self.op("Cast", [stored], to=F32)

    def op(self, kind, inputs, out=None, **attrs):
        out = out or self.tmp(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def ints(self, values):
        return self.const(np.array(values, np.int64), "i")

    def save(self, inputs, outputs, filename, folder=None):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs, self.inits)
        model = helper.make_model(graph, producer_name="chorus-testdata",
                                  opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 9
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(folder or OUT, filename))


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def normal(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def hashed_embedding(g, ids, rows, width, out_width, fp16, out):
    """ids -> table[ids mod rows] (width) -> projection to out_width: a thin stand-in for a big table."""
    row = g.op("Mod", [ids, g.const(np.array(rows, np.int64))])
    looked = g.op("Gather", [g.weight(normal(rows, width), fp16), row], axis=0)
    return g.op("MatMul", [looked, g.weight(normal(width, out_width, scale=1 / np.sqrt(width)), fp16)], out)


def text_embedding():
    g = Graph("text_embedding")
    hashed_embedding(g, "input_ids", 97, 16, HIDDEN, False, "embeddings")
    g.save([value("input_ids", I64, ["batch", "seq_len"])],
           [value("embeddings", F32, ["batch", "seq_len", HIDDEN])], "text_embedding_fp32.onnx")


def speech_embedding():
    g = Graph("llm_speech_embedding")
    hashed_embedding(g, "token", 509, 16, HIDDEN, True, "embedded")
    g.save([value("token", I64, ["batch", "seq_len"])],
           [value("embedded", F32, ["batch", "seq_len", HIDDEN])], "llm_speech_embedding_fp16.onnx")


# The backbone's weights are shared by the prefill and the decode files, so decoding one step
# after a prefill gives exactly what a longer prefill would.
Z = 8
W_DOWN = normal(HIDDEN, Z, scale=1 / np.sqrt(HIDDEN) * 3)
W_KV = normal(Z, KV_SLOTS * KV_HEADS * HEAD, scale=1 / np.sqrt(Z))
W_Q = normal(Z, HEAD, scale=1 / np.sqrt(Z))
W_OUT = normal(Z + HEAD, HIDDEN, scale=1 / np.sqrt(Z + HEAD) * 1.5)


def backbone_kv(g, z, steps):
    """z [1, S, Z] -> cache entries [48, 1, 2, S, 64]."""
    kv = g.op("MatMul", [z, g.weight(W_KV, True)])
    kv = g.op("Reshape", [kv, g.ints([1, steps, KV_SLOTS, KV_HEADS, HEAD])])
    return g.op("Transpose", [kv], perm=[2, 0, 3, 1, 4])


def backbone_attend(g, z, cache, mask, causal):
    """Keys from slot 0 head 0, values from slot 47 head 1 of `cache`; the hidden state from z and the context."""
    keys = g.op("Slice", [cache, g.ints([0, 0, 0]), g.ints([1, 1, 1]), g.ints([0, 1, 2])])
    keys = g.op("Reshape", [keys, g.ints([1, -1, HEAD])])
    values = g.op("Slice", [cache, g.ints([KV_SLOTS - 1, 0, 1]), g.ints([KV_SLOTS, 1, 2]), g.ints([0, 1, 2])])
    values = g.op("Reshape", [values, g.ints([1, -1, HEAD])])
    query = g.op("MatMul", [z, g.weight(W_Q, True)])
    scores = g.op("MatMul", [query, g.op("Transpose", [keys], perm=[0, 2, 1])])
    scores = g.op("Mul", [scores, g.const(np.array(1 / 8, np.float32))])
    # attention_mask [1, K] (1 keep, 0 drop) -> additive [1, 1, K]
    drop = g.op("Mul", [g.op("Sub", [mask, g.const(np.array(1, np.float32))]), g.const(np.array(1e4, np.float32))])
    scores = g.op("Add", [scores, g.op("Unsqueeze", [drop, g.ints([1])])])
    if causal:
        square = g.op("Concat", [g.op("Shape", [mask], start=1, end=2)] * 2, axis=0)
        ones = g.op("ConstantOfShape", [square], value=helper.make_tensor("one", F32, [1], [1.0]))
        future = g.op("Sub", [g.const(np.array(1, np.float32)), g.op("Trilu", [ones], upper=0)])
        scores = g.op("Sub", [scores, g.op("Mul", [future, g.const(np.array(1e4, np.float32))])])
    weights = g.op("Softmax", [scores], axis=-1)
    context = g.op("MatMul", [weights, values])
    joined = g.op("Concat", [z, context], axis=2)
    return g.op("Tanh", [g.op("MatMul", [joined, g.weight(W_OUT, True)])], "hidden_states")


def backbone_initial():
    g = Graph("llm_backbone_initial")
    z = g.op("MatMul", ["inputs_embeds", g.weight(W_DOWN, True)])
    steps = g.op("Shape", ["inputs_embeds"], start=1, end=2)
    kv = g.op("MatMul", [z, g.weight(W_KV, True)])
    shape = g.op("Concat", [g.ints([1]), steps, g.ints([KV_SLOTS, KV_HEADS, HEAD])], axis=0)
    kv = g.op("Reshape", [kv, shape])
    cache = g.op("Transpose", [kv], "past_key_values", perm=[2, 0, 3, 1, 4])
    backbone_attend(g, z, cache, "attention_mask", causal=True)
    g.save([value("inputs_embeds", F32, [1, "seq_len", HIDDEN]), value("attention_mask", F32, [1, "seq_len"])],
           [value("hidden_states", F32, [1, "seq_len", HIDDEN]),
            value("past_key_values", F32, [KV_SLOTS, 1, KV_HEADS, "seq_len", HEAD])],
           "llm_backbone_initial_fp16.onnx")


def backbone_decode():
    g = Graph("llm_backbone_decode")
    z = g.op("MatMul", ["inputs_embeds", g.weight(W_DOWN, True)])
    step = backbone_kv(g, z, 1)
    cache = g.op("Concat", ["past_key_values", step], "new_past_key_values", axis=3)
    backbone_attend(g, z, cache, "attention_mask", causal=False)
    g.save([value("inputs_embeds", F32, [1, 1, HIDDEN]), value("attention_mask", F32, [1, "total_len"]),
            value("past_key_values", F32, [KV_SLOTS, 1, KV_HEADS, "past_len", HEAD])],
           [value("hidden_states", F32, [1, 1, HIDDEN]),
            value("new_past_key_values", F32, [KV_SLOTS, 1, KV_HEADS, "total_len", HEAD])],
           "llm_backbone_decode_fp16.onnx")


# The decoder's logits times 2.5: at 1 about 28% of the probability lay in the ~6.5k tokens outside the favoured
# ones, and ras's redraw over the full softmax often picked one of them, a draw whose boundaries lie a few 1e-6 of a
# step's largest |logit| apart, so a sampled golden could not keep its margins (reference.py) for 160 tokens (about
# 9% of the draw margins of 1240 seeds' steps fell below 1e-5 at 1; about 2.4% over 25 seeds at 2.5, 2.8% at 4 and
# 3% at 2, where the growing largest logit eats what the peakier distribution gains). Applied as a Mul after the
# bias, so the random draws, and every other file, keep their bytes.
LLM_SHARPNESS = 2.5


def llm_decoder():
    # A fixed preference (a few dozen tokens, the silent ones a little higher, EOS a few per cent)
    # that the hidden state reshuffles step by step.
    bias = normal(LOGITS, scale=0.5)
    favoured = rng.choice(SPEECH_TOKENS, 40, replace=False)
    bias[favoured] += 6 + normal(40, scale=0.7)
    bias[SILENT] += 7.6
    bias[SPEECH_TOKENS:] -= 2           # the other stop ids: possible, rare
    bias[SPEECH_TOKENS + 1] = 6.3       # EOS
    g = Graph("llm_decoder")
    low = g.op("MatMul", ["hidden_state", g.weight(normal(HIDDEN, Z, scale=1 / np.sqrt(HIDDEN)), True)])
    scores = g.op("MatMul", [low, g.weight(normal(Z, LOGITS, scale=0.4), True)])
    scores = g.op("Add", [scores, g.weight(bias, True)])
    scores = g.op("Mul", [scores, g.const(np.array(LLM_SHARPNESS, np.float32))])
    g.op("Squeeze", [scores, g.ints([1])], "logits")
    g.save([value("hidden_state", F32, ["batch", 1, HIDDEN])], [value("logits", F32, ["batch", LOGITS])],
           "llm_decoder_fp16.onnx")


def flow_token_embedding():
    g = Graph("flow_token_embedding")
    clipped = g.op("Clip", ["token", g.const(np.array(0, np.int64)), g.const(np.array(SPEECH_TOKENS - 1, np.int64))])
    row = g.op("Mod", [clipped, g.const(np.array(251, np.int64))])
    g.op("Gather", [g.weight(normal(251, MELS), True), row], "embedded", axis=0)
    g.save([value("token", I64, ["batch", "seq_len"])], [value("embedded", F32, ["batch", "seq_len", MELS])],
           "flow_token_embedding_fp16.onnx")


def flow_pre_lookahead():
    # Upstream PreLookaheadLayer: conv k=4 looking 3 tokens ahead (zero right pad), leaky ReLU,
    # causal conv k=3, residual; the export appends the x2 repeat_interleave.
    g = Graph("flow_pre_lookahead")
    x = g.op("Transpose", ["token_embedded"], perm=[0, 2, 1])
    h = g.op("Pad", [x, g.ints([0, 0, 0, 0, 0, 3])])
    h = g.op("Conv", [h, g.weight(normal(MELS, MELS, 4, scale=1 / np.sqrt(MELS * 4)), True),
                      g.weight(normal(MELS, scale=0.1), True)])
    h = g.op("LeakyRelu", [h], alpha=0.01)
    h = g.op("Pad", [h, g.ints([0, 0, 2, 0, 0, 0])])
    h = g.op("Conv", [h, g.weight(normal(MELS, MELS, 3, scale=1 / np.sqrt(MELS * 3)), True),
                      g.weight(normal(MELS, scale=0.1), True)])
    h = g.op("Add", [g.op("Transpose", [h], perm=[0, 2, 1]), "token_embedded"])
    h = g.op("Unsqueeze", [h, g.ints([2])])
    h = g.op("Concat", [h, h], axis=2)
    g.op("Reshape", [h, g.ints([0, -1, MELS])], "h")
    g.save([value("token_embedded", F32, ["batch", "seq_len", MELS])],
           [value("h", F32, ["batch", "mel_len", MELS])], "flow_pre_lookahead_fp16.onnx")


def flow_speaker_projection():
    g = Graph("flow_speaker_projection")
    p = g.op("MatMul", ["embedding", g.weight(normal(192, MELS, scale=1.0), True)])
    g.op("Add", [p, g.weight(normal(MELS, scale=0.1), True)], "projected")
    g.save([value("embedding", F32, ["batch", 192])], [value("projected", F32, ["batch", MELS])],
           "flow_speaker_projection_fp16.onnx")


def estimator_inputs():
    """The six inputs of the export's estimator."""
    return [value("x", F32, [2, MELS, "mel_len"]), value("mask", F32, [2, 1, "mel_len"]),
            value("mu", F32, [2, MELS, "mel_len"]), value("t", F32, [2]), value("spks", F32, [2, MELS]),
            value("cond", F32, [2, MELS, "mel_len"])]


def estimator_hidden(g):
    """x, mu, cond and spks (broadcast over time) through a convolution, plus an embedding of t: [2, 32, M]."""
    spks = g.op("Expand", [g.op("Unsqueeze", ["spks", g.ints([2])]), g.op("Shape", ["x"])])
    joined = g.op("Concat", ["x", "mu", "cond", spks], axis=1)
    h = g.op("Conv", [joined, g.weight(normal(32, 4 * MELS, 3, scale=1 / np.sqrt(4 * MELS * 3) * 1.5), True),
                      g.weight(normal(32, scale=0.1), True)], pads=[1, 1])
    angle = g.op("Mul", [g.op("Unsqueeze", ["t", g.ints([1])]),
                         g.const(np.array([[1, 2, 4, 8, 16, 32, 64, 128]], np.float32) * np.float32(np.pi))])
    time = g.op("Concat", [g.op("Sin", [angle]), g.op("Cos", [angle])], axis=1)
    time = g.op("MatMul", [time, g.weight(normal(16, 32, scale=0.5), True)])
    return g.op("Tanh", [g.op("Add", [h, g.op("Unsqueeze", [time, g.ints([2])])])])


def estimator_velocity(g, h):
    """[2, 32, M] -> the velocity [2, 80, M], times mask."""
    v = g.op("Conv", [h, g.weight(normal(MELS, 32, 3, scale=1 / np.sqrt(32 * 3) * 2), True),
                      g.weight(normal(MELS, scale=0.1), True)], pads=[1, 1])
    g.op("Mul", [v, "mask"], "estimator_out")


def flow_estimator():
    # A velocity field that depends on every input: x, mu, cond, spks (broadcast over time), t and mask.
    g = Graph("flow_decoder_estimator")
    estimator_velocity(g, estimator_hidden(g))
    g.save(estimator_inputs(), [value("estimator_out", F32, [2, MELS, "mel_len"])], "flow.decoder.estimator.fp16.onnx")


def flow_estimator_chunk_mask(folder):
    """An estimator that also takes the attention mask, as an export able to stream the way upstream does needs.

    Upstream's estimator is `DiT.forward(x, mask, mu, t, spks, cond, streaming=False)` (cosyvoice/flow/DiT/
    dit.py). `streaming` is a Python bool, which tracing freezes into the graph (upstream's export_onnx.py
    passes none, so its estimator always attends fully); from it and `mask` the forward builds `attn_mask` with
    `add_optional_chunk_mask` (cosyvoice/utils/mask.py), a bool (B, 1, L, L), true where frame i may attend to
    frame j, and hands that to the attention of every DiTBlock (`F.scaled_dot_product_attention(attn_mask=)`).
    This file takes that tensor as an input of the same name, type and shape, so the caller decides between
    the chunk mask and full attention. Inside: the same kind of velocity field as `flow_estimator`, with one
    single-head self-attention over time (masked where `attn_mask` is false, as SDPA does) added to its hidden
    state, so every frame's velocity depends on the frames it may attend to and on no others through it."""
    g = Graph("flow_decoder_estimator_chunk_mask")
    h = estimator_hidden(g)                                                             # [2, 32, M]
    frames = g.op("Transpose", [h], perm=[0, 2, 1])                                     # [2, M, 32]
    query = g.op("MatMul", [frames, g.weight(normal(32, 16, scale=1 / np.sqrt(32) * 2), True)])
    key = g.op("MatMul", [frames, g.weight(normal(32, 16, scale=1 / np.sqrt(32) * 2), True)])
    values = g.op("MatMul", [frames, g.weight(normal(32, 32, scale=1 / np.sqrt(32)), True)])
    scores = g.op("MatMul", [query, g.op("Transpose", [key], perm=[0, 2, 1])])
    scores = g.op("Unsqueeze", [g.op("Mul", [scores, g.const(np.array(1 / 4, np.float32))]), g.ints([1])])
    scores = g.op("Where", ["attn_mask", scores, g.const(np.array(-np.inf, np.float32))])   # [2, 1, M, M]
    weights = g.op("Squeeze", [g.op("Softmax", [scores], axis=-1), g.ints([1])])
    context = g.op("MatMul", [g.op("MatMul", [weights, values]), g.weight(normal(32, 32, scale=1 / np.sqrt(32) * 2), True)])
    estimator_velocity(g, g.op("Add", [h, g.op("Transpose", [context], perm=[0, 2, 1])]))
    os.makedirs(folder, exist_ok=True)
    g.save(estimator_inputs() + [value("attn_mask", TensorProto.BOOL, [2, 1, "mel_len", "mel_len"])],
           [value("estimator_out", F32, [2, MELS, "mel_len"])], "flow.decoder.estimator.fp16.onnx", folder)


def estimator_with_unusable_mask(folder, filename, mask):
    """A weightless estimator with the six inputs and `mask` as its attention-mask input (which it never
    reads): enough for a runtime to check the input on load and refuse it."""
    g = Graph("flow_decoder_estimator_unusable_mask")
    g.op("Mul", ["x", "mask"], "estimator_out")
    os.makedirs(folder, exist_ok=True)
    g.save(estimator_inputs() + [mask], [value("estimator_out", F32, [2, MELS, "mel_len"])], filename, folder)


def hift_f0_predictor():
    g = Graph("hift_f0_predictor")
    h = g.op("Conv", ["mel", g.weight(normal(16, MELS, 3, scale=1 / np.sqrt(MELS * 3)), False),
                      g.weight(normal(16, scale=0.1), False)], pads=[1, 1])
    h = g.op("Conv", [g.op("Tanh", [h]), g.weight(normal(1, 16, 1, scale=0.5), False)])
    h = g.op("Squeeze", [h, g.ints([1])])
    f0 = g.op("Mul", [g.op("Tanh", [h]), g.const(np.array(60, np.float32))])
    g.op("Add", [f0, g.const(np.array(150, np.float32))], "f0")
    g.save([value("mel", F32, ["batch", MELS, "mel_len"])], [value("f0", F32, ["batch", "mel_len"])],
           "hift_f0_predictor_fp32.onnx")


def hift_source_generator():
    # f0 held for 480 samples per frame, integrated to a phase, a fundamental and a weaker second harmonic.
    g = Graph("hift_source_generator")
    held = g.op("Expand", [g.op("Unsqueeze", ["f0", g.ints([3])]),
                           g.op("Concat", [g.op("Shape", ["f0"]), g.ints([480])], axis=0)])
    held = g.op("Reshape", [held, g.ints([0, 0, -1])])
    step = g.op("Mul", [held, g.const(np.array(2 * np.pi / 24000, np.float32))])
    phase = g.op("CumSum", [step, g.const(np.array(2, np.int64))])
    first = g.op("Mul", [g.op("Sin", [phase]), g.const(np.array(0.1, np.float32))])
    second = g.op("Mul", [g.op("Sin", [g.op("Mul", [phase, g.const(np.array(2, np.float32))])]),
                          g.const(np.array(0.04, np.float32))])
    g.op("Add", [first, second], "source")
    g.save([value("f0", F32, ["batch", 1, "mel_len"])], [value("source", F32, ["batch", 1, "samples"])],
           "hift_source_generator_fp32.onnx")


def hift_decoder():
    # mel (held for 120 frames, one reflected frame in front as upstream's reflection_pad((1, 0)))
    # plus the source STFT -> 9 log-magnitudes (exp) and 9 phases (sin), as the export returns them.
    g = Graph("hift_decoder")
    m = g.op("Conv", ["mel", g.weight(normal(16, MELS, 1, scale=1 / np.sqrt(MELS)), False)])
    held = g.op("Expand", [g.op("Unsqueeze", [m, g.ints([3])]),
                           g.op("Concat", [g.op("Shape", [m]), g.ints([120])], axis=0)])
    held = g.op("Reshape", [held, g.ints([0, 0, -1])])
    held = g.op("Pad", [held, g.ints([0, 0, 1, 0, 0, 0])], mode="reflect")
    s = g.op("Conv", ["source_stft", g.weight(normal(16, 18, 1, scale=0.8), False)])
    h = g.op("Tanh", [g.op("Add", [held, s])])
    out = g.op("Conv", [h, g.weight(normal(18, 16, 7, scale=1 / np.sqrt(16 * 7) * 1.5), False),
                        g.weight(np.concatenate([np.full(9, -2.0), np.zeros(9)]).astype(np.float32), False)],
               pads=[3, 3])
    log_magnitude = g.op("Slice", [out, g.ints([0]), g.ints([9]), g.ints([1])])
    g.op("Exp", [log_magnitude], "magnitude")
    g.op("Sin", [g.op("Slice", [out, g.ints([9]), g.ints([18]), g.ints([1])])], "phase")
    g.save([value("mel", F32, ["batch", MELS, "mel_len"]), value("source_stft", F32, ["batch", 18, "frames"])],
           [value("magnitude", F32, ["batch", 9, "frames"]), value("phase", F32, ["batch", 9, "frames"])],
           "hift_decoder_fp32.onnx")


def campplus():
    # Voice extraction stand-in: Kaldi fbank [1, T, 80] -> a 192-dim embedding (mean over time, projected).
    g = Graph("campplus")
    mean = g.op("ReduceMean", ["input"], axes=[1], keepdims=0)
    g.op("MatMul", [mean, g.weight(normal(MELS, 192, scale=0.3), False)], "output")
    g.save([value("input", F32, [1, "frames", MELS])], [value("output", F32, [1, 192])], "campplus.onnx")


def speech_tokenizer():
    # Voice extraction stand-in: Whisper log-mel [1, 128, T] at 100 Hz -> 25 Hz token ids.
    # The real model's output name is not part of the interface Chorus relies on (it reads the first output).
    g = Graph("speech_tokenizer_v3")
    h = g.op("Conv", ["feats", g.weight(normal(16, 128, 4, scale=0.2), False)], strides=[4])
    best = g.op("ArgMax", [h], axis=1, keepdims=0)
    g.op("Mul", [best, g.const(np.array(409, np.int64))], "indices")
    g.save([value("feats", F32, [1, 128, "frames"]), value("feats_length", I32, [1])],
           [value("indices", I64, [1, "tokens"])], "speech_tokenizer_v3.onnx")


def float16_boundary(filename, names, folder):
    """A copy of `filename` whose float inputs and outputs in `names` are float16 at the boundary, as
    an export without keep_io_types has them (the KV cache included): the case where a runtime that
    re-reads fp16 bytes as fp32 corrupts every step."""
    model = onnx.load(os.path.join(OUT, filename))
    graph = model.graph
    casts = []
    for value in graph.input:
        if value.name in names:
            inner = value.name + "_f32"
            for node in graph.node:
                node.input[:] = [inner if i == value.name else i for i in node.input]
            casts.append(helper.make_node("Cast", [value.name], [inner], to=F32))
            value.type.tensor_type.elem_type = F16
    for value in graph.output:
        if value.name in names:
            inner = value.name + "_f32"
            for node in graph.node:
                node.output[:] = [inner if o == value.name else o for o in node.output]
                node.input[:] = [inner if i == value.name else i for i in node.input]
            casts.append(helper.make_node("Cast", [inner], [value.name], to=F16))
            value.type.tensor_type.elem_type = F16
    nodes = [n for n in casts if n.output[0].endswith("_f32")] + list(graph.node) + \
        [n for n in casts if not n.output[0].endswith("_f32")]
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(folder, filename))


def tokenizer_files():
    # A tiny Qwen2-style byte-level BPE: the 256 byte symbols, a few merges, and <|endofprompt|>
    # as an added token in tokenizer_config.json. Enough for the folder check, not for real text.
    def byte_symbols():
        keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
            list(range(ord("®"), ord("ÿ") + 1))
        chars, extra = {}, 0
        for b in range(256):
            if b in keep:
                chars[b] = chr(b)
            else:
                chars[b] = chr(256 + extra)
                extra += 1
        return [chars[b] for b in range(256)]
    symbols = byte_symbols()
    vocab = {s: i for i, s in enumerate(symbols)}
    merges = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    with open(os.path.join(OUT, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, sort_keys=False)
    with open(os.path.join(OUT, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    text_embedding()
    speech_embedding()
    backbone_initial()
    backbone_decode()
    llm_decoder()
    flow_token_embedding()
    flow_pre_lookahead()
    flow_speaker_projection()
    flow_estimator()
    hift_f0_predictor()
    hift_source_generator()
    hift_decoder()
    campplus()
    speech_tokenizer()
    tokenizer_files()
    fp16 = os.path.join(OUT, "..", "backbone-fp16-io")
    float16_boundary("llm_backbone_initial_fp16.onnx",
                     {"inputs_embeds", "attention_mask", "hidden_states", "past_key_values"}, fp16)
    float16_boundary("llm_backbone_decode_fp16.onnx",
                     {"inputs_embeds", "attention_mask", "past_key_values", "hidden_states", "new_past_key_values"}, fp16)
    # Drawn last, so the files above keep their bytes.
    flow_estimator_chunk_mask(os.path.join(OUT, "..", "estimator-chunk-mask"))
    unusable = os.path.join(OUT, "..", "estimator-unusable-mask")
    estimator_with_unusable_mask(unusable, "float-mask.onnx", value("attn_mask", F32, [2, 1, "mel_len", "mel_len"]))
    estimator_with_unusable_mask(unusable, "rank-3-mask.onnx", value("attn_mask", TensorProto.BOOL, [2, "mel_len", "mel_len"]))
    print("wrote CosyVoice test models to", os.path.abspath(OUT))
