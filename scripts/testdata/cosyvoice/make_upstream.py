#!/usr/bin/env python3
"""CosyVoice 3 goldens from upstream's own code (Tests/ChorusCosyVoiceTests/Resources/upstream/).

Small models are built from FunAudioLLM/CosyVoice's own classes at UPSTREAM_COMMIT with cosyvoice3.yaml's
settings at small sizes (CosyVoice3LM over its Qwen2Encoder with ras_sampling; CausalMaskedDiffWithDiT with
CausalConditionalCFM and the DiT estimator; CausalHiFTGenerator with its causal f0 predictor), given seeded
weights, and exported to the community export's file and tensor names (those Sources/ChorusCosyVoice loads, as
make_models.py writes them). Upstream's own CosyVoice3Model.tts (llm_job, token2wav, the flow's and the vocoder's
inference) then runs on them with only the randomness pinned: `Tensor.multinomial` draws from the SplitMix64
stream Chorus implements, and the flow's noise table (CausalConditionalCFM.rand_noise) is the one Chorus draws
(margins.py). Each drawn token's margin (the least relative change of the step's logits that could change the
draw) is recorded, and each case's sampling seed is the first whose every margin keeps margins.THRESHOLD; the
bound it must clear (PyTorch against ONNX Runtime at 1 and 2 threads) is measured here and recorded.

Outputs: model/ (the 12 files, plus make_models.py's tokenizer files so the folder loads), llm.json (the LLM's
drawn tokens and margins per case), speech.json with <case>-mel.f32 and <case>-audio.f32 (tts's tokens after the
silence filter, mel and audio), vocoder.json with vocoder-source.f32 and vocoder-audio.f32 (CausalHiFTGenerator.
decode from a given source). Each records the upstream commit and the package versions.

Upstream is imported from a checkout of UPSTREAM_COMMIT, its Matcha-TTS dependency from the PyPI sdist of
matcha-tts (only `BASECFM` is used, for the flow). Prepare them once, outside the repository:

    git -C <clone of FunAudioLLM/CosyVoice> archive ace7c47f41bbd303aa6bf1ea80e6f9fbd595cd40 | tar -x -C COSYVOICE
    pip download --no-deps matcha-tts==0.0.7.2 && tar xzf matcha-tts-0.0.7.2.tar.gz   # MATCHA=matcha-tts-0.0.7.2

then, in a venv with torch (CPU), upstream's transformers 4.51.3 (5.x's Qwen2 reads the one-element attention
mask upstream passes at each decode step differently, and its tokens then differ from a full prefill's), onnx,
onnxruntime, x-transformers, einops, omegaconf, scipy, torchaudio, and for matcha's imports lightning,
hydra-core, gdown and matplotlib:

    COSYVOICE=... MATCHA=... python3 scripts/testdata/cosyvoice/make_upstream.py

Deterministic: fixed weights and seed search; running it again reproduces the committed bytes. One process.
"""
import functools
import json
import os
import re
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
for variable in ("COSYVOICE", "MATCHA"):
    if variable not in os.environ:
        raise SystemExit(f"set {variable} (see this file's docstring)")
    sys.path.insert(0, os.environ[variable])

import margins  # noqa: E402
from margins import noise_table  # noqa: E402
from make_models import Graph, value  # noqa: E402
from transformers import Qwen2Config, Qwen2ForCausalLM  # noqa: E402
import transformers  # noqa: E402
transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()
from omegaconf import DictConfig  # noqa: E402
from cosyvoice.cli.model import CosyVoice3Model  # noqa: E402
from cosyvoice.flow.DiT.dit import DiT  # noqa: E402
from cosyvoice.flow.flow import CausalMaskedDiffWithDiT  # noqa: E402
from cosyvoice.flow.flow_matching import CausalConditionalCFM  # noqa: E402
from cosyvoice.hifigan.f0_predictor import CausalConvRNNF0Predictor  # noqa: E402
from cosyvoice.hifigan.generator import CausalHiFTGenerator  # noqa: E402
from cosyvoice.llm.llm import CosyVoice3LM, Qwen2Encoder  # noqa: E402
from cosyvoice.transformer.upsample_encoder import PreLookaheadLayer  # noqa: E402
from cosyvoice.utils.common import ras_sampling  # noqa: E402

UPSTREAM_COMMIT = "ace7c47f41bbd303aa6bf1ea80e6f9fbd595cd40"
OUT = os.path.join(HERE, "..", "..", "..", "Tests", "ChorusCosyVoiceTests", "Resources", "upstream")
MODEL = os.path.join(OUT, "model")

SPEECH_TOKENS = 6561
NOISE_SEED = 0
HIDDEN, LAYERS, HEADS, KV_HEADS, FFN = 32, 2, 4, 2, 64
HEAD = HIDDEN // HEADS
TEXT_ROWS, SPEECH_ROWS = 97, 509
QWEN2_VOCABULARY = 151936
F32, F16, I64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64

torch.set_num_threads(1)


def fp16(t):
    """Values a float16 file stores exactly, so PyTorch's float32 weights and the export's agree bit for bit."""
    return t.to(torch.float16).to(torch.float32)


# ---- the LLM from upstream's classes ---------------------------------------------------------------------

def qwen2_config(hidden, layers, heads, kv_heads, ffn):
    """A Qwen2 configuration of these sizes with Qwen2-0.5B's vocabulary, rope and norm settings."""
    return Qwen2Config(vocab_size=QWEN2_VOCABULARY, hidden_size=hidden, intermediate_size=ffn,
                       num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
                       rope_theta=1e6, rms_norm_eps=1e-6, tie_word_embeddings=True, max_position_embeddings=4096)


def make_llm(config):
    """Upstream's CosyVoice3LM over its Qwen2Encoder of `config` (which loads the Qwen2 from a folder, as from the
    hub), with cosyvoice3.yaml's sampling and settings; weights as Qwen2's initialisation leaves them."""
    with tempfile.TemporaryDirectory() as folder:
        Qwen2ForCausalLM(config).save_pretrained(folder)
        encoder = Qwen2Encoder(folder)
    sampling = functools.partial(ras_sampling, top_p=0.8, top_k=25, win_size=10, tau_r=0.1)   # cosyvoice3.yaml
    return CosyVoice3LM(llm_input_size=config.hidden_size, llm_output_size=config.hidden_size,
                        speech_token_size=SPEECH_TOKENS, llm=encoder, sampling=sampling, length_normalized_loss=True,
                        lsm_weight=0, mix_ratio=[5, 15])


def build_llm():
    """CosyVoice3LM over a 2-layer Qwen2 (make_llm).

    Qwen2's embedding keeps the full 151,936 rows, every row a copy of one of 97 (row i = row i mod 97), and the
    speech embedding every row a copy of one of 509, so the export holds only those rows behind a Mod: the same
    function in far fewer bytes. The decoder's rows are random, a few dozen of them (the silent tokens and end
    of speech among them) longer, so each step's distribution has a few likely tokens that change with the state."""
    g = torch.Generator().manual_seed(20260328)
    llm = make_llm(qwen2_config(HIDDEN, LAYERS, HEADS, KV_HEADS, FFN))
    with torch.no_grad():
        for name, p in sorted(llm.named_parameters()):
            if name.endswith("embed_tokens.weight"):
                rows = torch.randn(TEXT_ROWS, HIDDEN, generator=g)
                p.copy_(fp16(rows)[torch.arange(p.shape[0]) % TEXT_ROWS])
            elif name == "speech_embedding.weight":
                rows = torch.randn(SPEECH_ROWS, HIDDEN, generator=g)
                p.copy_(fp16(rows)[torch.arange(p.shape[0]) % SPEECH_ROWS])
            elif name == "llm_decoder.weight":
                w = torch.randn(p.shape, generator=g) * 0.02
                favoured = torch.randperm(SPEECH_TOKENS, generator=g)[:40].tolist()
                favoured += [1, 2, 28, 29, 55, 248, 494, 2241, 2242, 2322, 2323]
                w[favoured] = torch.randn(len(favoured), HIDDEN, generator=g) * 1.35
                w[SPEECH_TOKENS + 1] = torch.randn(HIDDEN, generator=g) * 1.35
                p.copy_(fp16(w))
            elif name.endswith("norm.weight"):
                p.copy_(fp16(1 + 0.1 * torch.randn(p.shape, generator=g)))
            elif name.endswith(".bias"):
                p.copy_(fp16(0.1 * torch.randn(p.shape, generator=g)))
            else:
                p.copy_(fp16(torch.randn(p.shape, generator=g) / p.shape[-1] ** 0.5))
    llm.eval()
    llm.llm_decoder.register_forward_hook(margins.note_logits)
    llm.sampling = margins.noting_scores(llm.sampling)
    return llm


def lookup(g, table, ids, rows, half, out):
    """`table`[ids] as a Gather; with `rows`, only the table's first `rows` rows are stored and ids are taken mod
    `rows` (the tiled tables of the small models), else the whole table."""
    if rows is not None:
        ids, table = g.op("Mod", [ids, g.const(np.array(rows, np.int64))]), table[:rows]
    return g.op("Gather", [g.weight(table.detach().numpy(), half), ids], out, axis=0)


def export_llm(llm, folder, text_rows=TEXT_ROWS, speech_rows=SPEECH_ROWS):
    """The LLM's five files; `text_rows`, `speech_rows` None for whole embedding tables (see `lookup`)."""
    qwen = llm.llm.model.model
    hidden = qwen.config.hidden_size
    text = Graph("text_embedding")
    lookup(text, qwen.embed_tokens.weight, "input_ids", text_rows, False, "embeddings")
    text.save([value("input_ids", I64, ["batch", "seq_len"])], [value("embeddings", F32, ["batch", "seq_len", hidden])],
              "text_embedding_fp32.onnx", folder)

    speech = Graph("llm_speech_embedding")
    lookup(speech, llm.speech_embedding.weight, "token", speech_rows, True, "embedded")
    speech.save([value("token", I64, ["batch", "seq_len"])], [value("embedded", F32, ["batch", "seq_len", hidden])],
                "llm_speech_embedding_fp16.onnx", folder)

    decoder = Graph("llm_decoder")
    scores = decoder.op("MatMul", ["hidden_state", decoder.weight(llm.llm_decoder.weight.detach().numpy().T, True)])
    decoder.op("Squeeze", [scores, decoder.ints([1])], "logits")
    decoder.save([value("hidden_state", F32, ["batch", 1, hidden])],
                 [value("logits", F32, ["batch", SPEECH_TOKENS + 200])], "llm_decoder_fp16.onnx", folder)

    export_backbone(qwen, folder, initial=True)
    export_backbone(qwen, folder, initial=False)


def export_backbone(qwen, folder, initial):
    """Qwen2Model's forward as ONNX operators (transformers' modeling_qwen2: RMSNorm in float32, rotary
    embedding of rotate_half form, grouped-query attention with q/k/v biases, SwiGLU MLP, final norm), with the
    community export's interface: the cache of every layer's key and value (after the rotation) stacked as
    [2 x layers, 1, kv heads, length, head size], index 2i layer i's key, 2i+1 its value."""
    g = Graph("llm_backbone_initial" if initial else "llm_backbone_decode")
    weight = lambda t: g.weight(t.detach().numpy(), True)  # noqa: E731
    config = qwen.config
    HIDDEN, LAYERS, HEADS, KV_HEADS = (config.hidden_size, config.num_hidden_layers, config.num_attention_heads,  # noqa: N806
                                       config.num_key_value_heads)
    HEAD = HIDDEN // HEADS  # noqa: N806

    def linear(x, layer, bias=True):
        y = g.op("MatMul", [x, weight(layer.weight.T)])
        return g.op("Add", [y, weight(layer.bias)]) if bias else y

    def rms_norm(x, norm):
        mean = g.op("ReduceMean", [g.op("Mul", [x, x])], axes=[-1], keepdims=1)
        scaled = g.op("Mul", [x, g.op("Reciprocal", [g.op("Sqrt", [g.op("Add", [mean, g.const(np.array(norm.variance_epsilon, np.float32))])])])])
        return g.op("Mul", [weight(norm.weight), scaled])

    steps = g.op("Shape", ["inputs_embeds"], start=1, end=2)
    if initial:
        past = g.ints([0])
        mask = "attention_mask"
    else:
        past = g.op("Shape", ["past_key_values"], start=3, end=4)
        mask = "attention_mask"
    positions = g.op("Cast", [g.op("Range", [g.op("Squeeze", [past]), g.op("Squeeze", [g.op("Add", [past, steps])]),
                                             g.const(np.array(1, np.int64))])], to=F32)
    theta = qwen.config.rope_theta
    inverse = (1.0 / (theta ** (np.arange(0, HEAD, 2, dtype=np.int64).astype(np.float32) / HEAD))).astype(np.float32)
    angles = g.op("Mul", [g.op("Unsqueeze", [positions, g.ints([1])]), g.const(inverse[None, :])])    # [L, HEAD/2]
    angles = g.op("Concat", [angles, angles], axis=1)
    cos, sin = g.op("Cos", [angles]), g.op("Sin", [angles])                                            # [L, HEAD]

    def rotate(x):
        first = g.op("Slice", [x, g.ints([0]), g.ints([HEAD // 2]), g.ints([3])])
        second = g.op("Slice", [x, g.ints([HEAD // 2]), g.ints([HEAD]), g.ints([3])])
        turned = g.op("Concat", [g.op("Neg", [second]), first], axis=3)
        return g.op("Add", [g.op("Mul", [x, cos]), g.op("Mul", [turned, sin])])

    def heads(x, count):                                                   # [1, L, count*HEAD] -> [1, count, L, HEAD]
        return g.op("Transpose", [g.op("Reshape", [x, g.ints([1, -1, count, HEAD])])], perm=[0, 2, 1, 3])

    # additive mask [1, 1, L, K]: the attention mask's zeros, and the future in a prefill
    keep = g.op("Unsqueeze", [mask, g.ints([1, 2])])
    additive = g.op("Mul", [g.op("Sub", [keep, g.const(np.array(1, np.float32))]), g.const(np.array(1e9, np.float32))])
    if initial:
        square = g.op("Concat", [steps, steps], axis=0)
        ones = g.op("ConstantOfShape", [square], value=helper.make_tensor("one", F32, [1], [1.0]))
        future = g.op("Sub", [g.const(np.array(1, np.float32)), g.op("Trilu", [ones], upper=0)])
        additive = g.op("Sub", [additive, g.op("Mul", [future, g.const(np.array(1e9, np.float32))])])

    h = "inputs_embeds"
    cache = []
    for i, layer in enumerate(qwen.layers):
        attention = layer.self_attn
        x = rms_norm(h, layer.input_layernorm)
        q = rotate(heads(linear(x, attention.q_proj), HEADS))
        k = rotate(heads(linear(x, attention.k_proj), KV_HEADS))
        v = heads(linear(x, attention.v_proj), KV_HEADS)
        if not initial:
            def earlier(slot):
                piece = g.op("Slice", ["past_key_values", g.ints([slot]), g.ints([slot + 1]), g.ints([0])])
                return g.op("Squeeze", [piece, g.ints([0])])
            k = g.op("Concat", [earlier(2 * i), k], axis=2)
            v = g.op("Concat", [earlier(2 * i + 1), v], axis=2)
        cache += [g.op("Unsqueeze", [k, g.ints([0])]), g.op("Unsqueeze", [v, g.ints([0])])]
        repeat = HEADS // KV_HEADS

        def grouped(t):                                                    # [1, KV, K, HEAD] -> [1, HEADS, K, HEAD]
            t = g.op("Unsqueeze", [t, g.ints([2])])
            t = g.op("Expand", [t, g.ints([1, KV_HEADS, repeat, 1, 1])])
            return g.op("Reshape", [t, g.ints([1, HEADS, -1, HEAD])])
        scores = g.op("MatMul", [q, g.op("Transpose", [grouped(k)], perm=[0, 1, 3, 2])])
        scores = g.op("Add", [g.op("Mul", [scores, g.const(np.array(HEAD ** -0.5, np.float32))]), additive])
        context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), grouped(v)])
        context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), g.ints([1, -1, HEADS * HEAD])])
        h = g.op("Add", [h, linear(context, attention.o_proj, bias=False)])
        x = rms_norm(h, layer.post_attention_layernorm)
        mlp = layer.mlp
        gate = linear(x, mlp.gate_proj, bias=False)
        gate = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
        h = g.op("Add", [h, linear(g.op("Mul", [gate, linear(x, mlp.up_proj, bias=False)]), mlp.down_proj, bias=False)])
    g.nodes.append(helper.make_node("Identity", [rms_norm(h, qwen.norm)], ["hidden_states"]))
    cache_name = "past_key_values" if initial else "new_past_key_values"
    g.op("Concat", cache, cache_name, axis=0)
    kv = [2 * LAYERS, 1, KV_HEADS]
    if initial:
        inputs = [value("inputs_embeds", F32, [1, "seq_len", HIDDEN]), value("attention_mask", F32, [1, "seq_len"])]
        outputs = [value("hidden_states", F32, [1, "seq_len", HIDDEN]), value(cache_name, F32, kv + ["seq_len", HEAD])]
    else:
        inputs = [value("inputs_embeds", F32, [1, 1, HIDDEN]), value("attention_mask", F32, [1, "total_len"]),
                  value("past_key_values", F32, kv + ["past_len", HEAD])]
        outputs = [value("hidden_states", F32, [1, 1, HIDDEN]), value(cache_name, F32, kv + ["total_len", HEAD])]
    g.save(inputs, outputs, "llm_backbone_initial_fp16.onnx" if initial else "llm_backbone_decode_fp16.onnx", folder)


# ---- the flow and the vocoder from upstream's classes ---------------------------------------------------

FLOW_ROWS = 251
NOISE_FRAMES = 50 * 300          # CausalConditionalCFM.rand_noise: [1, 80, 15000]
SOURCE_FRAMES = 400              # the longest mel the test vocoder's source generator covers (8 s)


def seeded(module, generator, half, tiled=None):
    """Every parameter of `module` from `generator` (scaled by its fan-in; norms near 1, biases small), float16
    values when `half` (the `_fp16` files store them so), `tiled` {name: rows} keeping only that many distinct rows."""
    tiled = tiled or {}
    with torch.no_grad():
        for name, p in sorted(module.named_parameters()):
            if name in tiled:
                rows = torch.randn(tiled[name], p.shape[1], generator=generator)
                value = rows[torch.arange(p.shape[0]) % tiled[name]]
            elif p.ndim == 1:
                value = (1 if "norm" in name or "alpha" in name else 0) + 0.1 * torch.randn(p.shape, generator=generator)
            else:
                value = torch.randn(p.shape, generator=generator) / (p[0].numel() ** 0.5)
            p.copy_(fp16(value) if half else value)


def without_weight_norm(module):
    """Weight-normalised layers as plain ones (what upstream's remove_weight_norm leaves), before any weights are set."""
    for m in module.modules():
        if torch.nn.utils.parametrize.is_parametrized(m, "weight"):
            torch.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=True)


def build_flow(dim=32, depth=2, heads=2, dim_head=16, lookahead_channels=64, rows=FLOW_ROWS, seed=20260329):
    """CausalMaskedDiffWithDiT with cosyvoice3.yaml's settings at a small size by default: a 64-channel
    pre-lookahead layer and a 2-block DiT of width 32 (2 heads of 16); `rows` distinct rows of the token embedding
    (None: all random). The flow's noise is the table Chorus draws (margins.noise_table)."""
    g = torch.Generator().manual_seed(seed)
    estimator = DiT(dim=dim, depth=depth, heads=heads, dim_head=dim_head, ff_mult=2, mel_dim=80, mu_dim=80, spk_dim=80,
                    out_channels=80, static_chunk_size=25 * 2, num_decoding_left_chunks=-1)
    cfm_params = DictConfig({"sigma_min": 1e-06, "solver": "euler", "t_scheduler": "cosine",
                             "training_cfg_rate": 0.2, "inference_cfg_rate": 0.7, "reg_loss_type": "l1"})
    decoder = CausalConditionalCFM(in_channels=240, n_spks=1, spk_emb_dim=80, cfm_params=cfm_params, estimator=estimator)
    flow = CausalMaskedDiffWithDiT(input_size=80, output_size=80, spk_embed_dim=192, output_type="mel",
                                   vocab_size=SPEECH_TOKENS, input_frame_rate=25, only_mask_loss=True, token_mel_ratio=2,
                                   pre_lookahead_len=3,
                                   pre_lookahead_layer=PreLookaheadLayer(in_channels=80, channels=lookahead_channels,
                                                                         pre_lookahead_len=3),
                                   decoder=decoder)
    seeded(flow, g, half=True, tiled={"input_embedding.weight": rows} if rows else None)
    flow.decoder.rand_noise = noise_table(NOISE_SEED, NOISE_FRAMES)
    return flow.eval()


def build_hift(channels=16, source_frames=SOURCE_FRAMES):
    """CausalHiFTGenerator with cosyvoice3.yaml's settings (24 kHz, upsampling 8, 5, 3, iSTFT 16/4, the causal
    f0 predictor) at `channels` base (and f0 condition) channels, 16 by default. Its frozen noise (SineGen2's
    sine_waves, SourceModuleHnNSF's uv: 300 s of torch.rand drawn at construction) is zeros over `source_frames`
    mel frames, so the export stays small; the phase offsets (rand_ini) stay random."""
    g = torch.Generator().manual_seed(20260330)
    hift = CausalHiFTGenerator(in_channels=80, base_channels=channels, nb_harmonics=8, sampling_rate=24000, nsf_alpha=0.1,
                               nsf_sigma=0.003, nsf_voiced_threshold=10, upsample_rates=[8, 5, 3],
                               upsample_kernel_sizes=[16, 11, 7], istft_params={"n_fft": 16, "hop_len": 4},
                               resblock_kernel_sizes=[3, 7, 11], resblock_dilation_sizes=[[1, 3, 5]] * 3,
                               source_resblock_kernel_sizes=[7, 7, 11], source_resblock_dilation_sizes=[[1, 3, 5]] * 3,
                               lrelu_slope=0.1, audio_limit=0.99, conv_pre_look_right=4,
                               f0_predictor=CausalConvRNNF0Predictor(num_class=1, in_channels=80, cond_channels=channels))
    without_weight_norm(hift)
    seeded(hift, g, half=False)
    with torch.no_grad():
        # an f0 around 150 Hz (the classifier's output is |.|), so the sine source is voiced
        hift.f0_predictor.classifier.bias.fill_(150.0)
        hift.f0_predictor.classifier.weight.mul_(20.0)
        # log-magnitudes near 0, so the audio stays within the clip (random weights give exp() of several)
        hift.conv_post.weight.mul_(0.3)
    sine = hift.m_source.l_sin_gen
    sine.rand_ini = torch.rand(1, 9, generator=g)
    sine.rand_ini[:, 0] = 0
    sine.sine_waves = torch.zeros(1, source_frames * 480, 9)
    hift.m_source.uv = torch.zeros(1, source_frames * 480, 1)
    return hift.eval()


def half_weights(path):
    """The `_fp16` files keep float16 weights behind a Cast, as the community export does: every float32
    initializer of 16 values or more that float16 holds exactly is stored so."""
    model = onnx.load(path)
    graph = model.graph
    casts, kept = [], []
    for init in graph.initializer:
        array = onnx.numpy_helper.to_array(init)
        if array.dtype == np.float32 and array.size >= 16 and np.array_equal(array.astype(np.float16).astype(np.float32), array):
            half = onnx.numpy_helper.from_array(array.astype(np.float16), init.name + "_fp16")
            kept.append(half)
            casts.append(helper.make_node("Cast", [half.name], [init.name], to=F32))
        else:
            kept.append(init)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def zeros_as_constants(path):
    """Constants that are all zeros (the vocoder's zeroed noise tables, which tracing folds into Constant nodes)
    become ConstantOfShape nodes."""
    model = onnx.load(path)
    graph = model.graph
    nodes = []
    for node in graph.node:
        tensor = node.attribute[0].t if node.op_type == "Constant" and node.attribute[0].name == "value" else None
        array = onnx.numpy_helper.to_array(tensor) if tensor is not None else None
        if array is not None and array.size >= 1024 and not array.any():
            shape = helper.make_node("Constant", [], [node.output[0] + "_shape"],
                                     value=onnx.numpy_helper.from_array(np.array(array.shape, np.int64)))
            nodes += [shape, helper.make_node("ConstantOfShape", [shape.output[0]], [node.output[0]],
                                              value=onnx.numpy_helper.from_array(np.zeros(1, array.dtype)))]
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def traced(module, inputs, path, input_names, output_names, dynamic_axes):
    """torch.onnx.export as upstream's cosyvoice/bin/export_onnx.py calls it (TorchScript tracing, opset 18)."""
    torch.onnx.export(module, inputs, path, export_params=True, opset_version=18, do_constant_folding=True,
                      input_names=input_names, output_names=output_names, dynamic_axes=dynamic_axes, dynamo=False)


class PreLookahead(torch.nn.Module):
    """The community export's flow_pre_lookahead: upstream's PreLookaheadLayer (no context: zero right pad), then
    CausalMaskedDiffWithDiT.inference's repeat_interleave by token_mel_ratio."""

    def __init__(self, flow):
        super().__init__()
        self.layer, self.ratio = flow.pre_lookahead_layer, flow.token_mel_ratio

    def forward(self, token_embedded):
        return self.layer(token_embedded).repeat_interleave(self.ratio, dim=1)


class F0Predictor(torch.nn.Module):
    """The community export's hift_f0_predictor: CausalConvRNNF0Predictor over a whole mel (finalize=True)."""

    def __init__(self, hift):
        super().__init__()
        self.predictor = hift.f0_predictor

    def forward(self, mel):
        return self.predictor(mel, finalize=True)


class SourceGenerator(torch.nn.Module):
    """The community export's hift_source_generator: CausalHiFTGenerator.inference's f0 -> source lines."""

    def __init__(self, hift):
        super().__init__()
        self.hift = hift

    def forward(self, f0):
        s = self.hift.f0_upsamp(f0).transpose(1, 2)
        s, _, _ = self.hift.m_source(s)
        return s.transpose(1, 2)


class HiFTDecoder(torch.nn.Module):
    """The community export's hift_decoder: CausalHiFTGenerator.decode (finalize=True) from the source's STFT
    to the magnitude and phase it hands to _istft (upstream's lines, from its conv_pre to its sin)."""

    def __init__(self, hift):
        super().__init__()
        self.hift = hift

    def forward(self, mel, source_stft):
        h = self.hift
        x = h.conv_pre(mel)
        for i in range(h.num_upsamples):
            x = torch.nn.functional.leaky_relu(x, h.lrelu_slope)
            x = h.ups[i](x)
            if i == h.num_upsamples - 1:
                x = h.reflection_pad(x)
            si = h.source_resblocks[i](h.source_downs[i](source_stft))
            x = x + si
            xs = None
            for j in range(h.num_kernels):
                xs = h.resblocks[i * h.num_kernels + j](x) if xs is None else xs + h.resblocks[i * h.num_kernels + j](x)
            x = xs / h.num_kernels
        x = h.conv_post(torch.nn.functional.leaky_relu(x))
        bins = h.istft_params["n_fft"] // 2 + 1
        return torch.exp(x[:, :bins, :]), torch.sin(x[:, bins:, :])


def export_flow(flow, folder, rows=FLOW_ROWS):
    """The flow's four files; `rows` None for the whole token embedding (see `lookup`)."""
    embedding = Graph("flow_token_embedding")
    clipped = embedding.op("Clip", ["token", embedding.const(np.array(0, np.int64)),
                                    embedding.const(np.array(SPEECH_TOKENS - 1, np.int64))])
    lookup(embedding, flow.input_embedding.weight, clipped, rows, True, "embedded")
    embedding.save([value("token", I64, ["batch", "seq_len"])], [value("embedded", F32, ["batch", "seq_len", 80])],
                   "flow_token_embedding_fp16.onnx", folder)

    speaker = Graph("flow_speaker_projection")
    affine = flow.spk_embed_affine_layer
    projected = speaker.op("MatMul", ["embedding", speaker.weight(affine.weight.detach().numpy().T, True)])
    speaker.op("Add", [projected, speaker.weight(affine.bias.detach().numpy(), True)], "projected")
    speaker.save([value("embedding", F32, ["batch", 192])], [value("projected", F32, ["batch", 80])],
                 "flow_speaker_projection_fp16.onnx", folder)

    path = os.path.join(folder, "flow_pre_lookahead_fp16.onnx")
    traced(PreLookahead(flow), (torch.randn(1, 20, 80),), path, ["token_embedded"], ["h"],
           {"token_embedded": {0: "batch", 1: "seq_len"}, "h": {0: "batch", 1: "mel_len"}})
    half_weights(path)

    path = os.path.join(folder, "flow.decoder.estimator.fp16.onnx")
    x, mu, cond = (torch.rand(2, 80, 64) for _ in range(3))
    traced(flow.decoder.estimator, (x, torch.ones(2, 1, 64), mu, torch.rand(2), torch.rand(2, 80), cond), path,
           ["x", "mask", "mu", "t", "spks", "cond"], ["estimator_out"],
           {name: {2: "seq_len"} for name in ("x", "mask", "mu", "cond", "estimator_out")})
    half_weights(path)


def export_hift(hift, folder):
    mel = torch.randn(1, 80, 12)
    traced(F0Predictor(hift), (mel,), os.path.join(folder, "hift_f0_predictor_fp32.onnx"), ["mel"], ["f0"],
           {"mel": {0: "batch", 2: "mel_len"}, "f0": {0: "batch", 1: "mel_len"}})
    path = os.path.join(folder, "hift_source_generator_fp32.onnx")
    traced(SourceGenerator(hift), (torch.full((1, 1, 12), 150.0),), path, ["f0"], ["source"],
           {"f0": {0: "batch", 2: "mel_len"}, "source": {0: "batch", 2: "samples"}})
    zeros_as_constants(path)
    traced(HiFTDecoder(hift), (mel, torch.randn(1, 18, 12 * 120 + 1)), os.path.join(folder, "hift_decoder_fp32.onnx"),
           ["mel", "source_stft"], ["magnitude", "phase"],
           {"mel": {0: "batch", 2: "mel_len"}, "source_stft": {0: "batch", 2: "frames"},
            "magnitude": {0: "batch", 2: "frames"}, "phase": {0: "batch", 2: "frames"}})


# ---- running upstream ------------------------------------------------------------------------------------

def ids(values):
    return torch.tensor([values], dtype=torch.int32)


def llm_tokens(llm, case, seed, strict=False):
    """upstream CosyVoice3LM.inference with the draw pinned: (every drawn token, the recorder)."""
    with margins.pinned(seed, strict) as recorder:
        tokens = list(llm.inference(
            text=ids(case["textTokens"]), text_len=torch.tensor([len(case["textTokens"])], dtype=torch.int32),
            prompt_text=ids(case["promptTextTokens"]),
            prompt_text_len=torch.tensor([len(case["promptTextTokens"])], dtype=torch.int32),
            prompt_speech_token=ids(case["promptSpeech"]),
            prompt_speech_token_len=torch.tensor([len(case["promptSpeech"])], dtype=torch.int32),
            embedding=torch.zeros(0, 192)))
    return tokens, recorder


def first_seed(llm, case, start, shortest, tries=4000):
    """The first seed from `start` whose every draw keeps margins.THRESHOLD and that gives `shortest` tokens."""
    for seed in range(start, start + tries):
        try:
            tokens, _ = llm_tokens(llm, case, seed, strict=True)
        except margins.TooClose:
            continue
        if len(tokens) >= shortest:
            return seed
    raise SystemExit(f"no seed in {start}..{start + tries - 1} keeps the margins")


def sessions(folder, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    load = lambda name: ort.InferenceSession(os.path.join(folder, name), options, providers=["CPUExecutionProvider"])  # noqa: E731
    return {name: load(name + ".onnx") for name in ["text_embedding_fp32", "llm_speech_embedding_fp16",
                                                    "llm_backbone_initial_fp16", "llm_backbone_decode_fp16",
                                                    "llm_decoder_fp16"]}


def onnx_logits(s, case, tokens):
    """The export's logits at every step of `tokens` (the community export's calls, as Chorus makes them)."""
    def speech(t):
        return s["llm_speech_embedding_fp16"].run(None, {"token": np.array([t], np.int64)})[0]
    text = s["text_embedding_fp32"].run(None, {"input_ids": np.array([case["promptTextTokens"] + case["textTokens"]], np.int64)})[0]
    special = speech([SPEECH_TOKENS, SPEECH_TOKENS + 2] + case["promptSpeech"])
    lm_input = np.concatenate([special[:, :1], text, special[:, 1:]], axis=1)
    length = lm_input.shape[1]
    hidden, cache = s["llm_backbone_initial_fp16"].run(None, {"inputs_embeds": lm_input,
                                                              "attention_mask": np.ones((1, length), np.float32)})
    out = []
    for token in tokens + [None]:
        out.append(s["llm_decoder_fp16"].run(None, {"hidden_state": hidden[:, -1:]})[0][0].astype(np.float64))
        if token is None:
            break
        length += 1
        hidden, cache = s["llm_backbone_decode_fp16"].run(None, {"inputs_embeds": speech([token]),
                                                                 "attention_mask": np.ones((1, length), np.float32),
                                                                 "past_key_values": cache})
    return out


def torch_logits(llm, case, seed):
    """Upstream's raw logits at every step of the generation of `seed` (noted by the hook)."""
    steps = []
    hook = llm.llm_decoder.register_forward_hook(lambda m, i, o: steps.append(o.detach().reshape(-1).double().numpy()))
    tokens, _ = llm_tokens(llm, case, seed)
    hook.remove()
    return tokens, steps


def measured_bound(llm, cases):
    """The largest |PyTorch - ONNX Runtime| of a step's logits over its largest |logit|, at 1 and 2 threads."""
    worst = 0.0
    for threads in (1, 2):
        s = sessions(MODEL, threads)
        for case in cases:
            for seed in range(5):
                tokens, reference = torch_logits(llm, case, seed)
                for a, b in zip(reference, onnx_logits(s, case, tokens)):
                    worst = max(worst, np.abs(a - b).max() / np.abs(a).max())
    return worst


def write_json(path, content):
    """Indented, with every list of numbers or names on one line."""
    text = json.dumps(content, indent=1)
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    with open(path, "w") as f:
        f.write(text + "\n")


def versions():
    return {"cosyvoice": f"FunAudioLLM/CosyVoice@{UPSTREAM_COMMIT}", "torch": torch.__version__,
            "transformers": transformers.__version__, "onnxruntime": ort.__version__, "onnx": onnx.__version__,
            "numpy": np.__version__}


def voice_tokens():
    """The prompt speech tokens of the committed test voice (Resources/voice, written by reference.py)."""
    return np.fromfile(os.path.join(OUT, "..", "voice", "prompt_tokens.bin"), "<i8").tolist()


# "You are a helpful assistant.<|endofprompt|>希望你以后能够做的比我还好呦。" (the voice's transcript after
# upstream's CosyVoice 3 prefix), the Cantonese instruction, the cross-lingual prefix and a target of eight ids,
# as upstream's tokenizer encodes them (cosyvoice3.md).
PROMPT_TEXT = [2610, 525, 264, 10950, 17847, 13, 151646, 99880, 56568, 103934, 100006, 100854, 56006, 107228, 52801,
               119024, 1773]
INSTRUCTION = [2610, 525, 264, 10950, 17847, 13, 220, 14880, 11622, 102053, 57443, 102124, 1773, 151646]
CROSS_LINGUAL_PREFIX = [2610, 525, 264, 10950, 17847, 13, 151646]
TEXT = [108386, 3837, 99489, 100678, 104811, 102513, 104130, 1773]


def llm_cases():
    prompt = voice_tokens()
    return {
        "zero-shot": {"promptTextTokens": PROMPT_TEXT, "textTokens": TEXT, "promptSpeech": prompt},
        "instruct": {"promptTextTokens": INSTRUCTION, "textTokens": TEXT, "promptSpeech": []},
        "cross-lingual": {"promptTextTokens": [], "textTokens": CROSS_LINGUAL_PREFIX + TEXT, "promptSpeech": []},
    }


def voice():
    """The committed test voice (Resources/voice, written by reference.py), aligned as upstream's
    frontend_zero_shot aligns a 24 kHz prompt: token_len = min(mel frames / 2, tokens), both cut to agree."""
    folder = os.path.join(OUT, "..", "voice")
    tokens = np.fromfile(os.path.join(folder, "prompt_tokens.bin"), "<i8").tolist()
    with open(os.path.join(folder, "prompt_mel.bin"), "rb") as f:
        frames = int(np.frombuffer(f.read(4), "<i4")[0])
        mel = np.frombuffer(f.read(), "<f4").reshape(frames, 80)
    embedding = np.fromfile(os.path.join(folder, "speaker_embedding.bin"), "<f4")
    count = min(frames // 2, len(tokens))
    return {"tokens": tokens[:count], "mel": np.ascontiguousarray(mel[:2 * count]), "embedding": embedding}


def synthesize(model, case, prompt, seed):
    """upstream CosyVoice3Model.tts (stream=False) with the draw pinned: the tokens the flow got (after llm_job's
    silence filter), the mel the flow made and the audio."""
    seen = {}
    inference = model.flow.inference

    def noting(*args, **kwargs):
        seen["tokens"] = kwargs["token"][0].tolist()
        mel, cache = inference(*args, **kwargs)
        seen["mel"] = mel[0].numpy()
        return mel, cache
    model.flow.inference = noting
    embedding = torch.from_numpy(prompt["embedding"])[None]
    with margins.pinned(seed):
        outputs = list(model.tts(text=ids(case["textTokens"]), flow_embedding=embedding, llm_embedding=embedding,
                                 prompt_text=ids(case["promptTextTokens"]), llm_prompt_speech_token=ids(case["promptSpeech"]),
                                 flow_prompt_speech_token=ids(prompt["tokens"]),
                                 prompt_speech_feat=torch.from_numpy(prompt["mel"])[None], stream=False))
    model.flow.inference = inference
    assert len(outputs) == 1
    return seen["tokens"], seen["mel"], outputs[0]["tts_speech"][0].numpy()


def chorus_pipeline(tokens, prompt, mel):
    """What Chorus computes from the export (reference.py's restatement of its flow and vocoder on ONNX Runtime):
    its mel from `tokens`, and its audio from upstream's `mel`, to measure how far they lie from upstream's PyTorch."""
    import reference
    models = reference.Models(MODEL)
    return (reference.flow_mel(models, tokens, prompt["tokens"], prompt["mel"], prompt["embedding"], NOISE_SEED),
            reference.vocode(models, mel))


def relative_rms(a, b):
    return float(np.sqrt(np.mean((a.astype(np.float64) - b) ** 2) / np.mean(b.astype(np.float64) ** 2)))


def main():
    os.makedirs(MODEL, exist_ok=True)
    llm = build_llm()
    export_llm(llm, MODEL)
    flow = build_flow()
    export_flow(flow, MODEL)
    hift = build_hift()
    export_hift(hift, MODEL)
    for name in ("vocab.json", "merges.txt"):      # the tokenizer files a model folder holds (make_models.py's)
        with open(os.path.join(OUT, "..", "model", name), "rb") as source, open(os.path.join(MODEL, name), "wb") as target:
            target.write(source.read())
    cases = llm_cases()
    bound = measured_bound(llm, cases.values())
    print(f"PyTorch against ONNX Runtime (1 and 2 threads): largest |logit difference| / largest |logit| {bound:.2e}")
    goldens = {}
    for (name, case), start in zip(cases.items(), (1000, 2000, 3000)):
        seed = first_seed(llm, case, start, shortest=20)
        tokens, recorder = llm_tokens(llm, case, seed)
        least = recorder.margins()
        print(f"{name}: seed {seed}, {len(tokens)} tokens, least margin {min(least):.2e}, "
              f"{sum('redraw' in d for d in recorder.steps)} redraws")
        goldens[name] = dict(case, samplingSeed=seed, sampledTokens=tokens, margins=least,
                             marginKinds=[min(d, key=d.get) for d in recorder.steps])
        for pattern in (1, 2):
            # The margins' proof on upstream's side: the same draws with every logit moved by a relative 1e-5.
            hook = llm.llm_decoder.register_forward_hook(margins.perturbation(1e-5, pattern))
            perturbed, _ = llm_tokens(llm, case, seed)
            hook.remove()
            assert perturbed == tokens, f"{name}: a perturbation of 1e-5 (pattern {pattern}) changes the tokens"
    golden = {"upstream": versions(), "threshold": margins.THRESHOLD, "measuredBound": float(f"{bound:.3e}"),
              "perturbedAlike": {"size": 1e-5, "patterns": [1, 2]}, "cases": goldens}
    write_json(os.path.join(OUT, "llm.json"), golden)

    model = CosyVoice3Model(llm, flow, hift, fp16=False)
    prompt = voice()
    speech = {"upstream": versions(), "noiseSeed": NOISE_SEED, "cases": {}}
    for name, case in cases.items():
        golden = goldens[name]
        tokens, mel, audio = synthesize(model, case, prompt, golden["samplingSeed"])
        assert [t for t in tokens] == [t for t in tokens if t < SPEECH_TOKENS]
        chorus_mel, chorus_audio = chorus_pipeline(tokens, prompt, mel)
        mel_difference = float(np.abs(chorus_mel - mel).max())
        audio_difference = relative_rms(chorus_audio, audio)
        print(f"{name}: {len(tokens)} tokens to the flow, mel {mel.shape}, audio {audio.shape[0]} samples "
              f"(peak {np.abs(audio).max():.3f}); the export on ONNX Runtime differs by {mel_difference:.2e} (mel, "
              f"largest), {audio_difference:.3f} (audio from upstream's mel, rms of the difference / rms)")
        mel.astype("<f4").tofile(os.path.join(OUT, f"{name}-mel.f32"))
        audio.astype("<f4").tofile(os.path.join(OUT, f"{name}-audio.f32"))
        speech["cases"][name] = {"samplingSeed": golden["samplingSeed"], "tokens": tokens, "melShape": list(mel.shape),
                                 "audioSamples": int(audio.shape[0]), "measuredMelDifference": float(f"{mel_difference:.3e}"),
                                 "measuredAudioRelativeRMS": float(f"{audio_difference:.3e}")}
    write_json(os.path.join(OUT, "speech.json"), speech)
    write_vocoder_golden(hift, np.fromfile(os.path.join(OUT, "instruct-mel.f32"), "<f4").reshape(80, -1)[:, :VOCODER_FRAMES])


VOCODER_FRAMES = 20


def write_vocoder_golden(hift, mel):
    """The vocoder from a given source: upstream's f0 -> source lines (CausalHiFTGenerator.inference) over
    `mel`, then its decode (STFT of the source, the decoder, _istft, the clip). A test feeds the same source to
    Chorus's STFT, the export's decoder and Chorus's iSTFT: the comparison of Chorus's own transforms, free of
    the sine source's phase, which a change of f0 in its last float32 bit moves by far more (upstream computes
    f0 in float64, the export in float32)."""
    import reference
    mel = torch.from_numpy(np.ascontiguousarray(mel))[None]
    with torch.no_grad():
        f0 = hift.f0_predictor(mel.to(torch.float64), finalize=True).to(mel)
        source = SourceGenerator(hift)(f0[:, None])
        audio = hift.decode(x=mel, s=source, finalize=True)
    models = reference.Models(MODEL)
    spectrum = reference.stft(source[0, 0].numpy()).astype(np.float32)[None]
    magnitude, phase = models.hift_decoder.run(None, {"mel": mel.numpy(), "source_stft": spectrum})
    chorus = np.clip(reference.istft(magnitude[0], phase[0]), -0.99, 0.99).astype(np.float32)
    difference = float(np.abs(chorus - audio[0].numpy()).max())
    print(f"vocoder from upstream's source ({mel.shape[2]} frames): the export on ONNX Runtime differs by {difference:.2e}")
    source[0, 0].numpy().astype("<f4").tofile(os.path.join(OUT, "vocoder-source.f32"))
    audio[0].numpy().astype("<f4").tofile(os.path.join(OUT, "vocoder-audio.f32"))
    write_json(os.path.join(OUT, "vocoder.json"), {"upstream": versions(), "melOf": "instruct-mel.f32",
                                                   "frames": int(mel.shape[2]),
                                                   "measuredDifference": float(f"{difference:.3e}")})


if __name__ == "__main__":
    main()
