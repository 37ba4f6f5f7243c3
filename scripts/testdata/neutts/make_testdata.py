#!/usr/bin/env python3
"""NeuTTS test models and goldens for Tests/ChorusNeuTTSTests, made with upstream's own classes and functions.

Environment (pinned): neutts==1.4.1 and neucodec==0.0.6 installed with --no-deps beside torch 2.11,
transformers==5.1.0, phonemizer==3.4.0 (what `pip install neutts==1.4.1` resolves), onnx, onnxruntime;
torchtune's and torchao's imports need datasets, sentencepiece, frozendict, hyper-connections and torchao==0.13.0.
The neucodec GitHub repository (onnx/onnx_ops.py: upstream's ONNX export swaps) is read from NEUCODEC_REPO, a
checkout of NEUCODEC_COMMIT (any later one whose onnx/onnx_ops.py is the same file is taken: its git blob is checked);
the goldens record the commit. Environment of --goldens-only: requirements.lock beside this script.

Made (deterministic: torch.manual_seed and SplitMix64 draws pinned):
  model/tokenizer.json        byte-level BPE trained on the phoneme corpus, a BOS template, the six control
                              tokens and <|speech_0|>..<|speech_65535|> as added tokens
  model/backbone.onnx         transformers LlamaForCausalLM (2 layers, width 16, 2 heads, 1 KV head, untied,
                              weights rounded to float16 and the two vocabulary tables stored as float16),
                              exported with its KV cache as past_key_values.{i}.key/value -> present.{i}.key/value
  model/decoder.onnx          neucodec's CodecDecoderVocos + FSQ + fc_post_a at width 64, with upstream's ONNX
                              swaps (OnnxResidualFSQ, OnnxISTFTHead), dynamo export as upstream's export_onnx.py,
                              a 200-frame (4 s) window-sum table and the inverse-DFT basis stored as float16
  model/backbone-last-logits.onnx   the same backbone as scripts/export-neutts-backbone.py writes it: the logits
                              of the last position only ([1, 1, vocabulary])
  golden/phonemes-<version>.json   neutts' phonemizers (+ NeuTTS._to_phones) on the corpus, per language
  golden/<case>.json, .f32    NeuTTS._apply_chat_template ids, NeuTTS._infer_torch tokens (torch.multinomial
                              replaced by the pinned draw below) with each draw's margin, NeuTTS._decode audio on
                              the ONNX decoder, NeuTTS._infer_stream_ggml's chunks with a backbone that replays the
                              same tokens, and the versions that made them

The pinned draw: the candidates (tokens whose probability is not 0) ordered most likely first, ties by id,
one SplitMix64 uniform times their summed probability, the first whose running sum exceeds it: what
ChorusDSP's SeededRandom.categorical does over TopK's candidates.

The seeds: each case's is the first from SEED whose every draw keeps THRESHOLDS (see ../draw_margins.py): its
distance from the nearest boundary between tokens, as a share of the step's largest |logit|, well above what
another CPU or thread count changes in the logits, so the goldens compare exactly anywhere. measure_bound
prints that change: PyTorch's backbone against the ONNX export run step by step with its cache, as Chorus runs
it, at 1 and 2 intra-op threads.

--goldens-only makes the goldens of sampled tokens again (golden/<case>.*) from the committed tokenizer and
backbone.onnx (the PyTorch backbone made again from its seed and checked against the export) and the committed
decoder.onnx, writing nothing else; it needs espeak-ng 1.52.0.1 (the neutts wheel's, loaded by default) and
checks that each case's prompt ids are the committed ones. Environment used last (--goldens-only):
/work/team/venv-neutts, python 3.11, torch 2.13.0+cpu, neutts 1.4.1 and neucodec 0.0.6 --no-deps,
transformers 5.1.0, phonemizer 3.4.0, onnxruntime 1.32.0, vector-quantize-pytorch 1.17.8, torchtune 0.6.1,
torchao 0.13.0, torchaudio 2.11.1 --no-deps with its compiled extension removed (neucodec imports it; no
function of it runs); requirements.lock pins, with hashes, an environment that makes the same goldens again (its
header says how close). The committed graphs were made by a full run under torch 2.11.0+cu130.

Usage: NEUCODEC_REPO=/path/to/neucodec python make_testdata.py OUT_DIR [--espeak-library LIB --espeak-data DIR --version-tag TAG]
       python make_testdata.py OUT_DIR --goldens-only
       python make_testdata.py OUT_DIR --last-logits-only
"""
import argparse
import hashlib
import json
import os
import re
import sys
import types

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import corpus  # noqa: E402
import draw_margins  # noqa: E402
import transformers.generation.utils as generation_utils  # noqa: E402

# generate() makes its processors as a LogitsProcessorList of that module; the recording list notes the top-k
# cut's margin and the scores each draw sees.
generation_utils.LogitsProcessorList = draw_margins.RecordingProcessors

LANGUAGES = ["en-us", "de", "fr-fr", "es"]
CONTROL = ["<|TEXT_REPLACE|>", "<|TEXT_PROMPT_START|>", "<|TEXT_PROMPT_END|>", "<|SPEECH_REPLACE|>",
           "<|SPEECH_GENERATION_START|>", "<|SPEECH_GENERATION_END|>"]
BOS = "<|begin_of_text|>"
SPEECH = 65536
FRAME_CAP = 200
CASES = [
    ("short", 120, "So we just need to make the rest of the connection.",
     "Hello there; the quick brown fox, at 3.5 metres, jumps!"),
    # 1950 reference codes leave fewer than upstream's 50 tokens at least: the context ends it.
    ("long", 1950, "A long reference fills the context, so the limit ends it.", "Four records."),
]
# neuphonic/neucodec's commit whose onnx/onnx_ops.py the decoder export takes (the last to change onnx/ as of its
# 2454f32), and that file's git blob, which a checkout given as NEUCODEC_REPO must have.
NEUCODEC_COMMIT = "95c6f37cdeec2138fa87b9d8b1349dccd1a4c7b5"
ONNX_OPS_BLOB = "4b194bd13e3dac1971840ad3dc34a024e024ac96"
# Each case's seed is the first from here that keeps THRESHOLDS.
SEED = 15
# The least margin of every kind (top-p is not used): 1e-5 of the step's largest |logit|. Measured by
# measure_bound (torch 2.13.0, onnxruntime 1.32.0): PyTorch against ONNX Runtime at 1 and 2 threads change a
# step's logits by at most 3.7e-6 of its largest |logit| in the short case (289 tokens of context) and 9.3e-6 in
# the long one (2048; attention sums over more places). With the same bound for every kind, no change of every
# logit by less than 1e-5 of the largest, however the changes line up, moves a draw across a boundary (to first
# order; see draw_margins.py), so the tests' relative perturbation of 1e-5 cannot change the tokens.
THRESHOLDS = {"draw": 1e-5, "order": 1e-5, "top_k": 1e-5}
# And each case's least margin is at least this many times the change measured on its own tokens.
SAFETY = 3


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & (2**64 - 1)

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) * 2.0**-53


def pinned_multinomial(rng):
    import torch

    def multinomial(probs, num_samples=1, **_):
        assert num_samples == 1 and probs.shape[0] == 1
        p = probs[0].double().numpy()
        candidates = np.nonzero(p)[0]
        order = sorted(candidates.tolist(), key=lambda i: (-p[i], i))
        total = 0.0
        for i in order:
            total += p[i]
        target = rng.uniform() * total
        running = 0.0
        chosen = order[-1]
        for i in order:
            running += p[i]
            if target < running:
                chosen = i
                break
        draw_margins.note_draw(p, order, chosen, target, total)
        return torch.tensor([[chosen]], dtype=torch.long)
    return multinomial


# ---------------------------------------------------------------------------------------------- phonemes

def configure_espeak(library, data):
    # neutts.phonemizers selects its bundled espeak-ng when imported; a choice made here comes after it.
    import neutts.phonemizers  # noqa: F401
    from phonemizer.backend.espeak.wrapper import EspeakWrapper
    if library:
        EspeakWrapper.set_library(library)
    if data:
        os.environ["ESPEAK_DATA_PATH"] = data


def phonemizers():
    from neutts.phonemizers import BasePhonemizer, CUSTOM_PHONEMIZERS
    return {lang: (CUSTOM_PHONEMIZERS[lang]() if lang in CUSTOM_PHONEMIZERS else BasePhonemizer(lang))
            for lang in LANGUAGES}


def to_phones(phonemizer, text):
    from neutts import NeuTTS
    stub = types.SimpleNamespace(phonemizer=phonemizer)
    return NeuTTS._to_phones(stub, text)


def phoneme_goldens(out, tag):
    ph = phonemizers()
    version = ".".join(str(v) for v in ph["en-us"].espeak_version)
    result = {"espeak": version, "languages": {}}
    for lang in LANGUAGES:
        result["languages"][lang] = [[s, to_phones(ph[lang], s)] for s in corpus.sentences(lang)]
    path = os.path.join(out, "golden", f"phonemes-{tag or version}.json")
    with open(path, "w") as f:
        json.dump(result, f, ensure_ascii=False, indent=0)
    print("phonemes", version, "->", path)
    return ph


# --------------------------------------------------------------------------------------------- tokenizer

def make_tokenizer(model_dir, ph):
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers, processors, AddedToken
    texts = ["user: Convert the text to speech:", "\nassistant:"]
    for lang in LANGUAGES:
        texts += [to_phones(ph[lang], s) for s in corpus.sentences(lang)[:60]]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=[BOS], show_progress=False)
    tok.train_from_iterator(texts, trainer)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in CONTROL])
    tok.add_tokens([AddedToken(f"<|speech_{i}|>", special=False, normalized=False) for i in range(SPEECH)])
    bos = tok.token_to_id(BOS)
    tok.post_processor = processors.TemplateProcessing(single=f"{BOS} $A", special_tokens=[(BOS, bos)])
    tok.save(os.path.join(model_dir, "tokenizer.json"), pretty=False)
    with open(os.path.join(model_dir, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": BOS}, f)
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(model_dir)


# ---------------------------------------------------------------------------------------------- backbone

def make_backbone(model_dir, tokenizer, probe_ids, export=True):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(15)
    stop = tokenizer.convert_tokens_to_ids("<|SPEECH_GENERATION_END|>")
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=8, max_position_embeddings=2048,
                         tie_word_embeddings=False, bos_token_id=tokenizer.bos_token_id, eos_token_id=stop)
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0, 0.5) if p.dim() == 2 else None
        # The stop token's row along the mean final hidden state, so its logit sits near the top-50
        # cut-off: without the 50-token minimum it would end most utterances early.
        hidden = model.model(torch.tensor([probe_ids])).last_hidden_state[0]
        direction = hidden.mean(0)
        logits = model.lm_head(hidden)
        top = logits.topk(50, dim=-1).values
        target = (top[:, 0] + top[:, -1]).mean() / 2
        model.lm_head.weight[stop] = direction * (target / direction.dot(direction))
        # Text tokens are never drawn (upstream's streaming assumes every generated token is a code).
        first_speech = tokenizer.convert_tokens_to_ids("<|speech_0|>")
        model.lm_head.weight[:first_speech][torch.arange(first_speech) != stop] = 0
        for p in model.parameters():
            p.copy_(p.half().float())
    if export:
        model.save_pretrained(os.path.join(model_dir, "hf"), safe_serialization=True)
        export_backbone(model, os.path.join(model_dir, "backbone.onnx"))
        export_backbone(model, os.path.join(model_dir, "backbone-last-logits.onnx"), last_logits=True)
    return model


def backbone_exporter():
    """scripts/export-neutts-backbone.py, the export a user runs on a real checkpoint, as a module."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "export_neutts_backbone", os.path.join(HERE, "..", "..", "export-neutts-backbone.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def export_backbone(model, path, last_logits=False):
    backbone_exporter().export_backbone(model, path, last_logits=last_logits)
    store_large_tables_as_float16(path)


def store_large_tables_as_float16(path, minimum=100_000, rounded=()):
    """Initializers of at least `minimum` float32 values that are exact in float16, or named in `rounded`,
    are stored as float16 and cast back when the session starts (ONNX Runtime folds the Cast)."""
    import onnx
    from onnx import helper, numpy_helper, TensorProto
    model = onnx.load(path)
    graph = model.graph
    kept, casts = [], []
    for init in graph.initializer:
        values = numpy_helper.to_array(init)
        half = values.astype(np.float16) if values.dtype == np.float32 else None
        exact = half is not None and np.array_equal(half.astype(np.float32), values)
        if half is not None and values.size >= minimum and (exact or any(r in init.name for r in rounded)):
            if not exact:
                print(f"  {init.name}: rounded to float16 (max change {np.abs(half.astype(np.float32) - values).max():.2e})")
            stored = numpy_helper.from_array(half, init.name + "_f16")
            kept.append(stored)
            casts.append(helper.make_node("Cast", [stored.name], [init.name], to=TensorProto.FLOAT))
        else:
            kept.append(init)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)
    onnx.checker.check_model(model)
    onnx.save(model, path)


# ----------------------------------------------------------------------------------------------- decoder

class CodecDecoding(torch.nn.Module):
    """NeuCodec's decoding path alone (generator, fc_post_a) built from upstream's classes; forward is upstream's
    decode_code. Without arguments it is NeuCodec's own size (CodecDecoderVocos' defaults: width 1024, 12 blocks)."""

    def __init__(self, **generator):
        super().__init__()
        from neucodec.codec_decoder_vocos import CodecDecoderVocos
        self.generator = CodecDecoderVocos(hop_length=480, **generator)
        self.fc_post_a = torch.nn.Linear(2048, self.generator.backbone.embed.in_channels)

    def forward(self, codes):
        from neucodec import NeuCodec
        return NeuCodec.decode_code(self, codes)


def make_decoder(model_dir):
    import torch

    torch.manual_seed(16)
    codec = CodecDecoding(hidden_dim=64, depth=2, heads=4, pos_meb_dim=16).eval()
    with torch.no_grad():
        codec.generator.head.out.weight.mul_(0.3)
        # float16 values, so the export can store the large tables at half size unchanged.
        for p in codec.parameters():
            p.copy_(p.half().float())
    codes = torch.randint(0, SPEECH, (1, 1, 40), dtype=torch.int32)
    with torch.no_grad():
        reference = codec(codes.long())
    swap_for_onnx(codec, dim=64, max_frames=FRAME_CAP)
    with torch.no_grad():
        swapped = codec(codes)
    print("decoder: torch", tuple(reference.shape), "swapped", tuple(swapped.shape),
          "max |diff| inside (the last frame aside)", float((reference[..., 240:-720] - swapped[..., :-480]).abs().max()))
    path = export_decoder(codec, codes, os.path.join(model_dir, "decoder.onnx"))
    store_large_tables_as_float16(path, rounded=("inverse_basis",))


def swap_for_onnx(codec, dim, max_frames):
    """upstream export_onnx.py's swaps on `codec` (a module with NeuCodec's generator, width `dim`): the FSQ as a
    table lookup, the iSTFT as a fixed inverse-DFT basis whose window-sum table covers `max_frames` frames."""
    import torch
    repo = os.environ["NEUCODEC_REPO"]
    with open(os.path.join(repo, "onnx", "onnx_ops.py"), "rb") as f:
        source = f.read()
    blob = hashlib.sha1(b"blob %d\0" % len(source) + source).hexdigest()
    if blob != ONNX_OPS_BLOB:
        raise SystemExit(f"NEUCODEC_REPO's onnx/onnx_ops.py is blob {blob}, not {ONNX_OPS_BLOB} (neuphonic/neucodec at "
                         f"{NEUCODEC_COMMIT}): check out that commit")
    sys.path.insert(0, os.path.join(repo, "onnx"))
    import onnx_ops
    with torch.no_grad():
        head = onnx_ops.OnnxISTFTHead(dim=dim, n_fft=480 * 4, hop_length=480)
        head.istft = onnx_ops.ISTFT(n_fft=1920, hop_length=480, win_length=1920, window=torch.hann_window(1920),
                                    normalized=False, max_frames=max_frames)
        head.out.load_state_dict(codec.generator.head.out.state_dict())
        fsq = onnx_ops.OnnxResidualFSQ(dim=2048, levels=[4] * 8, num_quantizers=1)
        fsq.load_state_dict(codec.generator.quantizer.state_dict())
        codec.generator.head = head
        codec.generator.quantizer = fsq


def export_decoder(codec, codes, path):
    """The swapped `codec` exported as upstream's export_onnx.py does (dynamo, codes [batch, 1, frames]), its
    weights kept inside the one file."""
    import torch
    import onnx
    with torch.no_grad():
        program = torch.onnx.export(codec, (codes,), dynamo=True,
                                    dynamic_shapes={"codes": {0: "batch_size", 2: "sequence_length"}})
        program.save(path)
    model = onnx.load(path, load_external_data=True)
    onnx.save(model, path, save_as_external_data=False)
    if os.path.exists(path + ".data"):
        os.remove(path + ".data")
    return path


# ---------------------------------------------------------------------------------------------- goldens

def stub_tts(tokenizer, model, phonemizer, codec):
    from neutts import NeuTTS
    tts = NeuTTS.__new__(NeuTTS)
    tts.sample_rate = 24_000
    tts.max_context = 2048
    tts.hop_length = 480
    tts.streaming_overlap_frames = 1
    tts.streaming_frames_per_chunk = 25
    tts.streaming_lookforward = 5
    tts.streaming_lookback = 50
    tts.streaming_stride_samples = 25 * 480
    tts._is_quantized_model = False
    tts._is_onnx_codec = True
    tts.tokenizer = tokenizer
    tts.backbone = model
    tts.input_format = "phonemes"
    tts.phonemizer = phonemizer
    tts.codec = codec
    tts.watermarker = None
    tts._seed = 0
    tts._supported_emotions = None
    return tts


def generation(tts, prompt):
    """upstream's _infer_torch on `prompt` with the draws pinned to a seed: a function of the seed that returns
    the generated ids (the stop token included when drawn)."""
    def generate(seed):
        original = torch.multinomial
        torch.multinomial = pinned_multinomial(SplitMix64(seed))
        try:
            output_str = tts._infer_torch(prompt, temperature=1.0, top_k=50)
        finally:
            torch.multinomial = original
        return tts.tokenizer.encode(output_str, add_special_tokens=False)
    return generate


def versions(ph):
    """What made a golden: upstream's packages, torch, transformers, onnxruntime and the espeak-ng loaded."""
    import importlib.metadata as metadata
    names = ("neutts", "neucodec", "torch", "transformers", "phonemizer", "onnxruntime")
    found = {name: metadata.version(name) for name in names}
    found["espeak-ng"] = ".".join(str(v) for v in ph.espeak_version)
    found["neucodec-onnx"] = f"neuphonic/neucodec@{NEUCODEC_COMMIT}"
    return found


def run_case(out, name, tts, ref_codes, ref_text, text, ph, committed=None):
    prompt = tts._apply_chat_template(ref_codes, ref_text, text)
    if committed is not None and [int(i) for i in prompt] != committed["prompt_ids"]:
        raise SystemExit(f"case {name}: the prompt ids differ from the committed golden's (another espeak-ng or "
                         f"tokenizer?); --goldens-only keeps the prompts")
    generate = generation(tts, prompt)
    # Upstream draws 50 tokens at least where the context leaves room; the long case's context ends it sooner.
    shortest = min(50, tts.max_context - len(prompt))
    seed = draw_margins.first_seed([generate], SEED, shortest, THRESHOLDS)
    generated_ids, margins = draw_margins.recorded(lambda: generate(seed))
    output_str = tts.tokenizer.decode(generated_ids, add_special_tokens=False)
    generated = [int(n) for n in re.findall(r"<\|speech_(\d+)\|>", output_str)]
    audio = tts._decode(output_str)

    # The streaming path as upstream runs it for GGUF, fed the same generated pieces one by one.
    # llama-cpp-python stops at the stop string without returning it.
    stop = tts.tokenizer.convert_tokens_to_ids("<|SPEECH_GENERATION_END|>")
    pieces = [tts.tokenizer.decode([i]) for i in generated_ids if i != stop]

    class Replay:
        def reset(self):
            pass

        def __call__(self, prompt, **kwargs):
            return ({"choices": [{"text": p}]} for p in pieces)

    tts.backbone, backbone = Replay(), tts.backbone
    try:
        chunks = list(tts._infer_stream_ggml(ref_codes, ref_text, text))
    finally:
        tts.backbone = backbone
    stream = np.concatenate(chunks).astype(np.float32)
    case = {
        "ref_text": ref_text, "text": text, "seed": seed,
        "ref_phones": tts._to_phones(ref_text), "text_phones": tts._to_phones(text),
        "prompt_ids": [int(i) for i in prompt], "generated_ids": generated_ids, "codes": generated,
        "audio_samples": int(audio.shape[-1]), "chunk_samples": [int(c.shape[-1]) for c in chunks],
        "margins": margins, "thresholds": THRESHOLDS, "versions": versions(ph),
    }
    with open(os.path.join(out, "golden", f"{name}.json"), "w") as f:
        json.dump(case, f, ensure_ascii=False)
    np.asarray(ref_codes, dtype=np.int32).tofile(os.path.join(out, "golden", f"{name}-ref.i32"))
    audio.astype(np.float32).tofile(os.path.join(out, "golden", f"{name}-audio.f32"))
    stream.tofile(os.path.join(out, "golden", f"{name}-stream.f32"))
    print(f"case {name}: seed {seed}, prompt {len(prompt)}, {len(generated_ids)} generated ids, {len(generated)} "
          f"codes, least margin {min(margins):.2e}, audio {audio.shape[-1]}, stream {stream.shape[-1]} in "
          f"{len(chunks)} chunks")
    return [int(i) for i in prompt], generated_ids


def check_export(model, path, ids):
    """The PyTorch backbone against the committed export on `ids`: made again from its seed, it must be the
    model the export holds (a different one would differ by whole units, not float noise)."""
    import onnxruntime as ort
    session = ort.InferenceSession(path)
    cfg = model.config
    feeds = {"input_ids": np.array([ids], np.int64), "attention_mask": np.ones((1, len(ids)), np.int64),
             "position_ids": np.arange(len(ids), dtype=np.int64)[None]}
    for i in range(cfg.num_hidden_layers):
        for kind in ("key", "value"):
            feeds[f"past_key_values.{i}.{kind}"] = np.zeros((1, cfg.num_key_value_heads, 0, cfg.head_dim), np.float32)
    logits = session.run(["logits"], feeds)[0][0]
    with torch.no_grad():
        expected = model(torch.tensor([ids])).logits[0].numpy()
    change = np.abs(logits - expected).max() / np.abs(expected).max()
    print(f"  PyTorch backbone vs committed backbone.onnx: {change:.2e} of the largest |logit|")
    if change > 1e-4:
        raise SystemExit("the PyTorch backbone made again is not the one in backbone.onnx (another torch or "
                         "transformers?); make the models again without --goldens-only")


def measure_bound(model, path, sequences, stop):
    """The largest change of a step's logits, as a share of its largest |logit|, between PyTorch's backbone (one
    pass over the whole sequence) and the ONNX export run as Chorus runs it (the prompt, then one token per run
    with the cache), at 1 and 2 intra-op threads, per case: what the margins must stay above. The stop token's
    logit counts only where the draw sees it (from upstream's 50th token on)."""
    import onnxruntime as ort
    cfg = model.config
    bounds = {}
    for threads in (1, 2):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        session = ort.InferenceSession(path, options)
        for name, (prompt, generated) in sequences.items():
            ids = prompt + generated[:-1]
            with torch.no_grad():
                expected = model(torch.tensor([ids])).logits[0, len(prompt) - 1:].double().numpy()
            past = {f"past_key_values.{i}.{kind}": np.zeros((1, cfg.num_key_value_heads, 0, cfg.head_dim), np.float32)
                    for i in range(cfg.num_hidden_layers) for kind in ("key", "value")}
            names = ["logits"] + [n.replace("past_key_values", "present") for n in past]
            start, worst = 0, 0.0
            for step, end in enumerate([len(prompt)] + list(range(len(prompt) + 1, len(ids) + 1))):
                feeds = {"input_ids": np.array([ids[start:end]], np.int64),
                         "attention_mask": np.ones((1, end), np.int64),
                         "position_ids": np.arange(start, end, dtype=np.int64)[None]}
                outputs = session.run(names, {**feeds, **past})
                past = dict(zip(past, outputs[1:]))
                start = end
                change = np.abs(outputs[0][0, -1].astype(np.float64) - expected[step])
                if step < 50:
                    change[stop] = 0
                worst = max(worst, change.max() / np.abs(expected[step]).max())
            print(f"  {name}: backbone.onnx at {threads} thread(s) vs PyTorch, largest change of a step's logits "
                  f"{worst:.2e} of its largest |logit|")
            bounds[name] = max(bounds.get(name, 0.0), worst)
    return bounds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--espeak-library")
    parser.add_argument("--espeak-data")
    parser.add_argument("--version-tag")
    parser.add_argument("--phonemes-only", action="store_true")
    parser.add_argument("--last-logits-only", action="store_true",
                        help="make model/backbone-last-logits.onnx again from the committed tokenizer, writing nothing else")
    parser.add_argument("--goldens-only", action="store_true",
                        help="make golden/<case>.* again from the committed models, writing nothing else")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    configure_espeak(args.espeak_library, args.espeak_data)
    model_dir = os.path.join(args.out, "model")
    os.makedirs(model_dir, exist_ok=True)
    os.makedirs(os.path.join(args.out, "golden"), exist_ok=True)
    if args.last_logits_only:
        from transformers import AutoTokenizer
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        probe = tokenizer.encode("user: Convert the text to speech:"
                                 + "".join(f"<|speech_{i * 977 % SPEECH}|>" for i in range(64)))
        model = make_backbone(model_dir, tokenizer, probe, export=False)
        check_export(model, os.path.join(model_dir, "backbone.onnx"), probe)
        export_backbone(model, os.path.join(model_dir, "backbone-last-logits.onnx"), last_logits=True)
        return
    if args.goldens_only:
        from transformers import AutoTokenizer
        ph = phonemizers()
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
    else:
        ph = phoneme_goldens(args.out, args.version_tag)
        if args.phonemes_only:
            return
        tokenizer = make_tokenizer(model_dir, ph)
    probe = tokenizer.encode("user: Convert the text to speech:" + "".join(f"<|speech_{i * 977 % SPEECH}|>" for i in range(64)))
    model = make_backbone(model_dir, tokenizer, probe, export=not args.goldens_only)
    check_export(model, os.path.join(model_dir, "backbone.onnx"), probe)
    if not args.goldens_only:
        make_decoder(model_dir)
    from neucodec import NeuCodecOnnxDecoder
    codec = NeuCodecOnnxDecoder(os.path.join(model_dir, "decoder.onnx"))
    tts = stub_tts(tokenizer, model, ph["en-us"], codec)
    rng = np.random.default_rng(15)
    sequences = {}
    for name, references, ref_text, text in CASES:
        committed = None
        if args.goldens_only:
            with open(os.path.join(args.out, "golden", f"{name}.json")) as f:
                committed = json.load(f)
        ref_codes = rng.integers(0, SPEECH, references).tolist()
        sequences[name] = run_case(args.out, name, tts, ref_codes, ref_text, text, ph["en-us"], committed)
    stop = tokenizer.convert_tokens_to_ids("<|SPEECH_GENERATION_END|>")
    bounds = measure_bound(model, os.path.join(model_dir, "backbone.onnx"), sequences, stop)
    for name, bound in bounds.items():
        with open(os.path.join(args.out, "golden", f"{name}.json")) as f:
            least = min(json.load(f)["margins"])
        print(f"  {name}: least margin {least:.2e}, {least / bound:.1f} times the measured change")
        if least < SAFETY * bound:
            raise SystemExit(f"case {name}: its least margin is not {SAFETY} times what ONNX Runtime changes; "
                             f"raise THRESHOLDS")
    import shutil
    shutil.rmtree(os.path.join(model_dir, "hf"), ignore_errors=True)


if __name__ == "__main__":
    main()
