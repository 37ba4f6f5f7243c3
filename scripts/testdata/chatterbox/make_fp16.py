#!/usr/bin/env python3
"""The float16 variant of the generated Chatterbox graphs, for Tests/ChorusChatterboxTests (model-fp16/).

Made from model/*.onnx (make_testdata.py writes them, then runs this) with onnxconverter-common's float16
conversion (1.16.0), on the same weights (T3's and S3Gen's weights are already float16-exact, so only the
activations change precision). The reference notes do not list every tensor's type in the export's `_fp16`
graphs; what they say is that the KV cache stays float16 (as in the q4f16 language model) and that a port met a
float16 tensor where it expected float32. So the types differ between graphs, and the engine has to read each
from its session:

  embed_tokens         input_ids int64 -> inputs_embeds float16
  language_model       inputs_embeds, logits, past_key_values.{i}.key/value and present.{i}.key/value float16;
                       attention_mask and position_ids int64
  conditional_decoder  float16 inside; speech_tokens int64, speaker_embeddings, speaker_features and waveform
                       float32 (keep_io_types)

The converter types a Cast-to-float's output float16 (it converts every float tensor) but keeps the node's
`to` at float, a graph ONNX Runtime refuses ("Type (tensor(float16)) of output arg (/tfmr/Cast_2_output_0) ...
does not match expected type (tensor(float))"). Such Casts are repaired here: `to` is set to the type their
output is declared with. Each graph is then checked with onnx.checker (full check, so types are inferred
again), loaded in ONNX Runtime and run beside its float32 graph; the differences are printed.

Goldens (golden/fp16-<case>.json, .f32): on the float16 graphs the tokens differ from the float32 goldens from
the first draw on. The graphs' logits are float16, so many candidates share a probability, and the pinned draw
(make_testdata.py) orders candidates by probability, ties by id: at the first draw of "hello" the float16 logits
are within 4.3e-3 of the float32 ones, yet 585 of the 1000 most likely candidates share their float16 value with
another and 573 of those 1000 places in the order hold another token, so the same uniform lands elsewhere. (The
model card's greedy loop, which stops within 3 draws on these texts, gives the float32 graphs' tokens there; run
for 60 tokens with the stop masked it meets float16 ties too, in 2 of the 3 cases.) Ties reach top-k as well:
Hugging Face's TopKLogitsWarper keeps every token tied with the 1000th (1002 tokens at that first draw). So
these goldens are upstream's own T3.inference_turbo - its logits processors, their order, its stop rules, the
pinned draw - with T3's modules standing in for the float16 graphs (prefill and each step run by the float16
language_model, embeddings by the float16 embed_tokens, the conditioning the voice's audio_features rounded to
float16 as the graph takes them), and their audio is upstream's S3Gen (float32, make_testdata's weights and
pinned noise) on those tokens, with its trim fade. The float16 decoder is compared with that audio within a
tolerance (the differences are printed here).

Deterministic: the same model/*.onnx give the same bytes. The tokenizer files are copied beside them.

Usage: /work/venv-chatter/bin/python scripts/testdata/chatterbox/make_fp16.py [--goldens-only]
(make_testdata.py runs it last; --goldens-only makes the goldens again on the committed float16 graphs)
"""
import os
import shutil
from types import SimpleNamespace

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from onnxconverter_common import float16

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.join(HERE, "..", "..", "..", "Tests", "ChorusChatterboxTests", "Resources")
SPEECH_VOCAB = 6563
# The converter's default clamps constants above 1e4 to 1e4, which would turn the decoder's 24000 (SineGen's
# sampling rate) into 10000; float16's largest finite value keeps every constant the float32 graph has.
MAX_FINITE = 65504.0
KEEP_IO_TYPES = {"embed_tokens": False, "language_model": False, "conditional_decoder": True}
EXPECTED_TYPES = {
    "embed_tokens": {"input_ids": TensorProto.INT64, "inputs_embeds": TensorProto.FLOAT16},
    "language_model": {"inputs_embeds": TensorProto.FLOAT16, "attention_mask": TensorProto.INT64,
                       "position_ids": TensorProto.INT64, "logits": TensorProto.FLOAT16,
                       "past_key_values.*": TensorProto.FLOAT16, "present.*": TensorProto.FLOAT16},
    "conditional_decoder": {"speech_tokens": TensorProto.INT64, "speaker_embeddings": TensorProto.FLOAT,
                            "speaker_features": TensorProto.FLOAT, "waveform": TensorProto.FLOAT},
}


def with_float32_tables(model):
    """The graph with make_testdata's float16-stored tables (an initializer behind a Cast to float) as plain
    float32 initializers again, so the converter sees one float graph (the values are float16-exact, so
    converting them back loses nothing)."""
    graph = model.graph
    stored = {init.name: init for init in graph.initializer if init.data_type == TensorProto.FLOAT16}
    casts = [node for node in graph.node if node.op_type == "Cast" and node.input[0] in stored
             and node.attribute[0].i == TensorProto.FLOAT]
    for node in casts:
        values = numpy_helper.to_array(stored[node.input[0]]).astype(np.float32)
        graph.initializer.remove(stored.pop(node.input[0]))
        graph.initializer.append(numpy_helper.from_array(values, node.output[0]))
        graph.node.remove(node)
    return model


def repair_casts(model):
    """Casts whose `to` is not the type the converter declared for their output get that type: the tool
    converted the tensor but not the node. Returns the names of the nodes changed."""
    graph = model.graph
    declared = {info.name: info.type.tensor_type.elem_type
                for info in list(graph.value_info) + list(graph.output)}
    repaired = []
    for node in graph.node:
        if node.op_type != "Cast":
            continue
        target = next(a for a in node.attribute if a.name == "to")
        wanted = declared.get(node.output[0])
        if wanted == TensorProto.FLOAT16 and target.i == TensorProto.FLOAT:
            target.i = TensorProto.FLOAT16
            repaired.append(node.name)
    return repaired


def check_types(name, model):
    """The graph's inputs and outputs have the element types above; raises naming the first that does not."""
    expected = EXPECTED_TYPES[name]
    for info in list(model.graph.input) + list(model.graph.output):
        key = info.name if info.name in expected else info.name.split(".")[0] + ".*"
        actual = info.type.tensor_type.elem_type
        if expected.get(key) != actual:
            raise SystemExit(f"{name}: {info.name} is {TensorProto.DataType.Name(actual)}, "
                             f"not {TensorProto.DataType.Name(expected.get(key, 0))}")


def compare(source, target):
    """Each converted graph in ONNX Runtime beside its float32 graph on the same inputs."""
    import onnxruntime as ort
    rng = np.random.default_rng(5)
    embed32 = ort.InferenceSession(os.path.join(source, "embed_tokens.onnx"))
    embed16 = ort.InferenceSession(os.path.join(target, "embed_tokens.onnx"))
    ids = np.array([[0, 42, 6561, 6563, 6600]], np.int64)
    a, b = embed32.run(None, {"input_ids": ids})[0], embed16.run(None, {"input_ids": ids})[0]
    print(f"  embed_tokens: {b.dtype}, max |fp16 - fp32| {np.abs(a - b.astype(np.float32)).max():.2e}")

    lm32 = ort.InferenceSession(os.path.join(source, "language_model.onnx"))
    lm16 = ort.InferenceSession(os.path.join(target, "language_model.onnx"))
    width = lm32.get_inputs()[0].shape[2]
    x = rng.standard_normal((1, 9, width)).astype(np.float32)
    feeds = {"inputs_embeds": x, "attention_mask": np.ones((1, 9), np.int64),
             "position_ids": np.arange(9)[None].astype(np.int64)}
    past = [i for i in lm32.get_inputs()[3:]]
    for info in past:
        feeds[info.name] = np.zeros((1, info.shape[1], 0, info.shape[3]), np.float32)
    half = {k: (v.astype(np.float16) if v.dtype == np.float32 else v) for k, v in feeds.items()}
    a, b = lm32.run(["logits"], feeds)[0], lm16.run(["logits"], half)[0]
    print(f"  language_model: logits {b.dtype}, max |fp16 - fp32| {np.abs(a - b.astype(np.float32)).max():.2e} "
          f"(logits up to {np.abs(a).max():.1f})")

    voice = os.path.join(RESOURCES, "voice")
    dec32 = ort.InferenceSession(os.path.join(source, "conditional_decoder.onnx"))
    dec16 = ort.InferenceSession(os.path.join(target, "conditional_decoder.onnx"))
    prompt = np.load(os.path.join(voice, "audio_tokens.npy"))
    tokens = np.concatenate([prompt, rng.integers(0, 6561, (1, 12)), [[4299] * 3]], 1).astype(np.int64)
    feeds = {"speech_tokens": tokens, "speaker_embeddings": np.load(os.path.join(voice, "speaker_embeddings.npy")),
             "speaker_features": np.load(os.path.join(voice, "speaker_features.npy"))}
    a, b = dec32.run(None, feeds)[0], dec16.run(None, feeds)[0]
    print(f"  conditional_decoder: waveform {b.dtype} {b.shape}, max |fp16 - fp32| {np.abs(a - b).max():.2e} "
          f"(peak {np.abs(a).max():.3f})")


def main(testdata=None):
    source = os.path.join(RESOURCES, "model")
    target = os.path.join(RESOURCES, "model-fp16")
    os.makedirs(target, exist_ok=True)
    for name, keep in KEEP_IO_TYPES.items():
        model = with_float32_tables(onnx.load(os.path.join(source, f"{name}.onnx")))
        half = float16.convert_float_to_float16(model, keep_io_types=keep, max_finite_val=MAX_FINITE)
        repaired = repair_casts(half)
        check_types(name, half)
        onnx.checker.check_model(half, full_check=True)
        path = os.path.join(target, f"{name}.onnx")
        onnx.save(half, path)
        print(f"{name}: {os.path.getsize(path)} bytes, Casts repaired: {repaired}")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(source, name), os.path.join(target, name))
    import stamp_capacity
    stamp_capacity.stamp(target)
    compare(source, target)
    make_goldens(target, testdata)


class Float16Graphs:
    """T3's modules as upstream's inference_turbo calls them, computed by the float16 graphs: `tfmr` returns
    the language model's logits as its hidden states (so `speech_head` is the identity) and the graph's present
    tensors as the cache."""

    def __init__(self, folder, audio_features):
        import onnxruntime as ort
        self.embed = ort.InferenceSession(os.path.join(folder, "embed_tokens.onnx"))
        self.language = ort.InferenceSession(os.path.join(folder, "language_model.onnx"))
        self.past = [info for info in self.language.get_inputs() if info.name.startswith("past_key_values.")]
        self.audio_features = audio_features

    def embeddings(self, ids):
        import torch
        rows = self.embed.run(None, {"input_ids": ids.numpy().astype(np.int64)})[0]
        return torch.from_numpy(rows.astype(np.float32))

    def text_emb(self, text_tokens):
        return self.embeddings(text_tokens + SPEECH_VOCAB)

    def prepare_conditioning(self, _):
        import torch
        return torch.from_numpy(self.audio_features)

    def tfmr(self, inputs_embeds, past_key_values=None, use_cache=True):
        import torch
        if past_key_values is None:
            past_key_values = [np.zeros((1, info.shape[1], 0, info.shape[3]), np.float16) for info in self.past]
        done, count = past_key_values[0].shape[2], inputs_embeds.shape[1]
        feeds = {"inputs_embeds": inputs_embeds.numpy().astype(np.float16),
                 "attention_mask": np.ones((1, done + count), np.int64),
                 "position_ids": np.arange(done, done + count)[None].astype(np.int64)}
        feeds.update({info.name: value for info, value in zip(self.past, past_key_values)})
        outputs = self.language.run(None, feeds)
        return Outputs(torch.from_numpy(outputs[0].astype(np.float32)), outputs[1:])


class Outputs(tuple):
    """What `tfmr(...)` returns as upstream reads it: [0] the hidden states, .past_key_values the cache."""

    def __new__(cls, hidden, past):
        outputs = super().__new__(cls, (hidden,))
        outputs.past_key_values = past
        return outputs


def upstream_on_float16(graphs, ids, **options):
    """upstream's T3.inference_turbo with its modules standing in for the float16 graphs."""
    from chatterbox.models.t3 import T3
    from chatterbox.models.t3.modules.t3_config import T3Config
    hp = T3Config()
    hp.input_pos_emb = None
    t3 = SimpleNamespace(hp=hp, is_gpt=True, prepare_conditioning=graphs.prepare_conditioning,
                         text_emb=graphs.text_emb, speech_emb=graphs.embeddings, tfmr=graphs.tfmr,
                         speech_head=lambda hidden: hidden)
    t3.prepare_input_embeds = lambda **kwargs: T3.prepare_input_embeds(t3, **kwargs)
    return T3.inference_turbo(t3, t3_cond=None, text_tokens=ids, **options)[0]


def make_goldens(target, testdata=None):
    """golden/fp16-<case>: the cases of make_testdata.py (`testdata`, loaded when not given)."""
    import json
    import torch
    from transformers import AutoTokenizer
    if testdata is None:
        import importlib.util
        spec = importlib.util.spec_from_file_location("make_testdata", os.path.join(HERE, "make_testdata.py"))
        testdata = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(testdata)
    tokenizer = AutoTokenizer.from_pretrained(os.path.join(RESOURCES, "plain"))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    voice = {name: np.load(os.path.join(RESOURCES, "voice", f"{name}.npy"))
             for name in ("audio_features", "audio_tokens", "speaker_embeddings", "speaker_features")}
    graphs = Float16Graphs(target, voice["audio_features"])
    s3gen = testdata.make_s3gen()
    tables = testdata.fixed_noise()
    decoder = __import__("onnxruntime").InferenceSession(os.path.join(target, "conditional_decoder.onnx"))

    import margins

    def generation(ids, options):
        def generate(seed):
            with testdata.pinned_multinomial(seed), torch.no_grad():
                return upstream_on_float16(graphs, ids, **options)
        return generate

    def decoded(tokens):
        audio = testdata.upstream_decode(s3gen, tokens, voice, tables)
        kept = tokens[tokens < 6561].tolist() + [4299] * 3
        wav = decoder.run(None, {"speech_tokens": np.array([voice["audio_tokens"][0].tolist() + kept], np.int64),
                                 "speaker_embeddings": voice["speaker_embeddings"],
                                 "speaker_features": voice["speaker_features"]})[0][0]
        wav[:960] *= np.concatenate([np.zeros(480, np.float32),
                                     ((torch.cos(torch.linspace(np.pi, 0, 480)) + 1) / 2).numpy()])
        return audio, float(np.abs(wav - audio).max())

    # Each case's seed as make_testdata chooses it: the first from its SEED whose draws keep the margins. Here
    # the logits are float16, so candidates of equal value tie; a tie keeps its order by id however the values
    # move together, so only a different value counts as a boundary (margins.note_draw).
    for name, sentence, options in testdata.GENERATION_CASES:
        ids = testdata.upstream_ids(tokenizer, sentence)
        generate = generation(ids, options)
        seed = margins.first_seed([generate], testdata.SEED, options.get("max_gen_len", testdata.SHORTEST - 1) + 1)
        tokens, drawn = margins.recorded(lambda: generate(seed))
        audio, difference = decoded(tokens)
        golden32 = json.load(open(os.path.join(RESOURCES, "golden", f"{name}.json")))["tokens"]
        record = {"text": sentence, "normalized": testdata.punc_norm(sentence), "text_ids": ids[0].tolist(),
                  "seed": seed, "max_gen_len": options.get("max_gen_len", 1000), "tokens": tokens.tolist(),
                  "samples": int(audio.size), "margins": drawn, "thresholds": margins.THRESHOLDS,
                  "versions": testdata.versions()}
        testdata.write_case(f"fp16-{name}", record, audio)
        same = next((i for i, (a, b) in enumerate(zip(tokens.tolist(), golden32)) if a != b), None)
        print(f"fp16-{name}: seed {seed}, {len(record['tokens'])} tokens (float32 graphs {len(golden32)}, first "
              f"difference at {same}), least margin {min(drawn):.2e}, float16 decoder vs upstream's S3Gen "
              f"{difference:.2e}")
    name, chunks = testdata.CHUNKED
    # Capped as the float32 chunks are (make_testdata.py's CHUNK_CAP): uncapped, two chunks rarely keep every margin.
    generations = [generation(testdata.upstream_ids(tokenizer, chunk), {"max_gen_len": testdata.CHUNK_CAP})
                   for chunk in chunks]
    seed = margins.first_seed(generations, testdata.SEED, testdata.SHORTEST_CHUNK)
    audios, records, worst = [], [], 0.0
    for chunk, generate in zip(chunks, generations):
        tokens, drawn = margins.recorded(lambda: generate(seed))
        audio, difference = decoded(tokens)
        audios.append(audio)
        records.append({"text": chunk, "tokens": tokens.tolist(), "samples": int(audio.size), "margins": drawn})
        worst = max(worst, difference)
    testdata.write_case(f"fp16-{name}", {"text": " ".join(chunks), "seed": seed, "max_gen_len": testdata.CHUNK_CAP,
                                         "chunks": records, "thresholds": margins.THRESHOLDS,
                                         "versions": testdata.versions()}, np.concatenate(audios))
    print(f"fp16-{name}: seed {seed}, {[len(r['tokens']) for r in records]} tokens, float16 decoder vs upstream "
          f"{worst:.2e}")


if __name__ == "__main__":
    import sys
    if "--goldens-only" in sys.argv[1:]:
        make_goldens(os.path.join(RESOURCES, "model-fp16"))  # the committed float16 graphs, not converted again
    else:
        main()
