#!/usr/bin/env python3
"""Export a NeuTTS backbone (Nano, Air or a fine-tune of them) from its Hugging Face checkpoint folder to the ONNX
graph Chorus reads, with the tokenizer files beside it: the `backbone.onnx` that `chorus models pull neutts`
cannot download (Neuphonic publishes no ONNX backbone).

The checkpoint folder is what `huggingface-cli download neuphonic/neutts-nano` (or neutts-air) gives, or what
`save_pretrained` writes: config.json, the weights as *.safetensors, tokenizer.json and tokenizer_config.json.

Written into OUT (the NeuTTS model folder, `$CHORUS_MODELS/neutts` by default):
  backbone.onnx          float32, the checkpoint's Llama/Qwen2 model with its KV cache (a tied lm_head as ONNX
                         Runtime's FusedMatMul over the embeddings, not a second copy of them):
                           input_ids int64 [1, S], attention_mask int64 [1, P + S], position_ids int64 [1, S],
                           past_key_values.{i}.key/value float32 [1, KV heads, P, head size]
                           -> logits float32 [1, 1, vocabulary] (the last position's: all a generation reads),
                              present.{i}.key/value [1, KV heads, P + S, head size]
  backbone.onnx.data     the weights, when they pass protobuf's 2 GB (Air: about 3 GB); one file beside the graph
  tokenizer.json, tokenizer_config.json   the checkpoint's, copied
The weights are exported as float32 whatever the checkpoint stores (bfloat16 included): ONNX Runtime's CPU
provider computes these graphs in float32.

Then `chorus models pull neutts` adds the NeuCodec decoder; `chorus models verify neutts` checks the folder.

Environment: pip install torch transformers==5.1.0 onnx onnxruntime (Python 3.10-3.12).
Usage:
  python scripts/export-neutts-backbone.py CHECKPOINT_DIR OUT_DIR [--check]
--check runs the graph on a prompt of the checkpoint's own tokens, step by step with its cache, and compares its
logits with the PyTorch model's.
"""
import argparse
import os
import shutil
import sys

import numpy as np
import torch

CONTROL = ["<|TEXT_REPLACE|>", "<|TEXT_PROMPT_START|>", "<|TEXT_PROMPT_END|>", "<|SPEECH_REPLACE|>",
           "<|SPEECH_GENERATION_START|>", "<|SPEECH_GENERATION_END|>"]
SPEECH = 65536
PROTOBUF_LIMIT = 2_000_000_000


class CachedStep(torch.nn.Module):
    """input_ids, attention_mask, position_ids and the per-layer cache in; logits and the grown cache out."""

    def __init__(self, model, last_logits=False):
        super().__init__()
        self.model = model
        self.layers = model.config.num_hidden_layers
        self.keep = 1 if last_logits else 0

    def forward(self, input_ids, attention_mask, position_ids, *past):
        from transformers import DynamicCache
        cache = DynamicCache(config=self.model.config)
        for i in range(self.layers):
            cache.update(past[2 * i], past[2 * i + 1], i)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                         past_key_values=cache, use_cache=True, logits_to_keep=self.keep)
        present = []
        for i in range(self.layers):
            layer = out.past_key_values.layers[i]
            present += [layer.keys, layer.values]
        return (out.logits, *present)


def cache_shape(config):
    """(KV heads, head size) of `config`, head size from head_dim where the config has one."""
    head = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return config.num_key_value_heads, head


def export_backbone(model, path, last_logits=False):
    """Writes `model` (a causal LM, eval, float32) to `path` with its KV cache as past_key_values.{i}.key/value ->
    present.{i}.key/value; its weights inside the file when it stays under 2 GB, else in path + '.data'. With
    `last_logits` the logits are the last position's only ([1, 1, vocabulary]): all a generation reads, where
    a prompt's would take prompt x vocabulary floats (Air: 0.5 GB for 600 tokens)."""
    import onnx
    import tempfile
    cfg = model.config
    heads, size = cache_shape(cfg)
    step = CachedStep(model, last_logits).eval()
    past_len, new = 3, 2
    past = []
    names_in, names_out, axes = ["input_ids", "attention_mask", "position_ids"], ["logits"], {
        "input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total"},
        "position_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch", 1: "sequence"}}
    for i in range(cfg.num_hidden_layers):
        for kind in ("key", "value"):
            past.append(torch.randn(1, heads, past_len, size))
            names_in.append(f"past_key_values.{i}.{kind}")
            names_out.append(f"present.{i}.{kind}")
            axes[names_in[-1]] = {0: "batch", 2: "past"}
            axes[names_out[-1]] = {0: "batch", 2: "total"}
    ids = torch.tensor([[5, 6]])
    args = (ids, torch.ones(1, past_len + new, dtype=torch.long), torch.tensor([[past_len, past_len + 1]]), *past)
    folder = os.path.dirname(os.path.abspath(path))
    # The exporter writes a model past 2 GB as one file per weight beside its graph: a folder of its own, then
    # gathered into one .data file below.
    with tempfile.TemporaryDirectory(dir=folder, prefix=".backbone-export-") as scratch:
        raw = os.path.join(scratch, "backbone.onnx")
        with torch.no_grad():
            torch.onnx.export(step, args, raw, input_names=names_in, output_names=names_out, dynamic_axes=axes,
                              opset_version=17, dynamo=False)
        graph = onnx.load(raw, load_external_data=True)
        if getattr(cfg, "tie_word_embeddings", False):
            share_tied_embeddings(graph)
        data = path + ".data"
        for stale in (path, data):
            if os.path.exists(stale):
                os.remove(stale)
        # ByteSize() itself fails past 2 GB: the weights' bytes decide.
        weights = sum(len(t.raw_data) for t in graph.graph.initializer)
        if weights < PROTOBUF_LIMIT - 100_000_000:
            onnx.save(graph, path)
        else:
            onnx.save(graph, path, save_as_external_data=True, all_tensors_to_one_file=True,
                      location=os.path.basename(data), size_threshold=1024)
    if not any(o.domain == "com.microsoft" for o in graph.opset_import):
        onnx.checker.check_model(path)
    return path


def share_tied_embeddings(graph):
    """The exporter stores a tied lm_head as a transposed copy of the embeddings (Nano: 446 MB more in the file and
    in memory); the logits' MatMul becomes ONNX Runtime's FusedMatMul with transB over the embeddings themselves."""
    from onnx import helper, numpy_helper
    initializers = {i.name: i for i in graph.graph.initializer}
    tables = [initializers[n.input[0]] for n in graph.graph.node
              if n.op_type == "Gather" and n.input[0] in initializers and len(initializers[n.input[0]].dims) == 2]
    embedding = max(tables, key=lambda t: t.dims[0] * t.dims[1], default=None)
    head = next((n for n in graph.graph.node if n.op_type == "MatMul" and n.output[0] == "logits"), None)
    if embedding is None or head is None or head.input[1] not in initializers:
        return
    copy = initializers[head.input[1]]
    if list(copy.dims) != list(embedding.dims)[::-1]:
        return
    if not np.array_equal(numpy_helper.to_array(copy), numpy_helper.to_array(embedding).T):
        return
    fused = helper.make_node("FusedMatMul", [head.input[0], embedding.name], ["logits"], name="lm_head_tied",
                             domain="com.microsoft", transA=0, transB=1, alpha=1.0)
    nodes = [fused if n is head else n for n in graph.graph.node]
    del graph.graph.node[:]
    graph.graph.node.extend(nodes)
    graph.graph.initializer.remove(copy)
    graph.opset_import.append(helper.make_opsetid("com.microsoft", 1))


def check_tokenizer(tokenizer, source):
    """Every control token and <|speech_0|>..<|speech_65535|> present, or exit naming the first missing one."""
    vocabulary = tokenizer.get_vocab()
    for token in CONTROL + [f"<|speech_{i}|>" for i in range(SPEECH)]:
        if token not in vocabulary:
            sys.exit(f"{source}: the tokenizer has no {token}; a NeuTTS phoneme backbone's tokenizer has the six "
                     f"control tokens and <|speech_0|>..<|speech_65535|>")


def check_graph(model, tokenizer, path, steps=8):
    """The graph run as Chorus runs it (the prompt, then one token per run with its cache) against PyTorch on
    the same ids; returns the largest change of a step's logits as a share of its largest |logit|."""
    import onnxruntime as ort
    heads, size = cache_shape(model.config)
    ids = tokenizer.encode("user: Convert the text to speech:<|TEXT_PROMPT_START|>həlˈoʊ<|TEXT_PROMPT_END|>"
                           + "".join(f"<|speech_{i * 977 % SPEECH}|>" for i in range(24)))
    ids += [tokenizer.convert_tokens_to_ids(f"<|speech_{i}|>") for i in range(steps)]
    prompt = len(ids) - steps
    with torch.no_grad():
        expected = model(torch.tensor([ids])).logits[0, prompt - 1:].double().numpy()
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    past = {f"past_key_values.{i}.{kind}": np.zeros((1, heads, 0, size), np.float32)
            for i in range(model.config.num_hidden_layers) for kind in ("key", "value")}
    names = ["logits"] + [n.replace("past_key_values", "present") for n in past]
    start, worst = 0, 0.0
    for step, end in enumerate([prompt] + list(range(prompt + 1, len(ids) + 1))):
        feeds = {"input_ids": np.array([ids[start:end]], np.int64), "attention_mask": np.ones((1, end), np.int64),
                 "position_ids": np.arange(start, end, dtype=np.int64)[None]}
        outputs = session.run(names, {**feeds, **past})
        past = dict(zip(past, outputs[1:]))
        start = end
        change = np.abs(outputs[0][0, -1].astype(np.float64) - expected[step]).max() / np.abs(expected[step]).max()
        worst = max(worst, change)
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint", help="the Hugging Face checkpoint folder (config.json, *.safetensors, tokenizer)")
    parser.add_argument("out", help="the NeuTTS model folder to write backbone.onnx and the tokenizer into")
    parser.add_argument("--check", action="store_true", help="compare the graph's logits with PyTorch's")
    args = parser.parse_args()
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging
    transformers_logging.disable_progress_bar()
    for name in ("config.json", "tokenizer.json"):
        if not os.path.exists(os.path.join(args.checkpoint, name)):
            sys.exit(f"{args.checkpoint} has no {name}: give the folder of a NeuTTS checkpoint as Hugging Face "
                     f"stores it (config.json, *.safetensors, tokenizer.json)")
    tokenizer = AutoTokenizer.from_pretrained(args.checkpoint)
    check_tokenizer(tokenizer, args.checkpoint)
    model = AutoModelForCausalLM.from_pretrained(args.checkpoint, dtype=torch.float32).eval()
    os.makedirs(args.out, exist_ok=True)
    path = export_backbone(model, os.path.join(args.out, "backbone.onnx"), last_logits=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        source = os.path.join(args.checkpoint, name)
        if os.path.exists(source):
            shutil.copyfile(source, os.path.join(args.out, name))
    data = path + ".data"
    print(f"wrote {path} ({os.path.getsize(path):,} bytes"
          + (f", weights in {os.path.basename(data)}: {os.path.getsize(data):,} bytes)" if os.path.exists(data) else ")"))
    if args.check:
        change = check_graph(model, tokenizer, path)
        print(f"check: the graph's logits differ from PyTorch's by at most {change:.1e} of a step's largest |logit|")
        if change > 1e-3:
            sys.exit(1)


if __name__ == "__main__":
    main()
