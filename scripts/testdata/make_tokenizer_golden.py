#!/usr/bin/env python3
"""Writes the expected results of Hugging Face `tokenizers` for Chorus's Text tests.

Reads the folders that make_bpe_vocabularies.py derives (Tests/TextTestData/{qwen2,gpt2}) and the
corpus that make_text_corpus.py assembles, and writes into the same folder:
  corpus.NAME.golden      one line per corpus document: "<token count> <FNV-1a 64 of the ids>", the ids
                          hashed as little-endian uint32; compact where the ids themselves would be megabytes
  NAME.tokenizer.json     the tokenizer.json that `tokenizers` saves for the same tokenizer, with the
                          vocabulary and merges left empty (the test fills them in from the folder)

The reference is built as Qwen2's and GPT-2's own tokenizer.json files define it: Qwen2 is NFC, then a
Split on its expression (Isolated), then ByteLevel without its own expression; GPT-2 is ByteLevel with
its expression. Control tokens from tokenizer_config.json are added as special tokens.

Deterministic. Needs `pip install tokenizers==0.23.3`.
Usage: make_tokenizer_golden.py TEXT_TEST_DATA_DIR
"""
import json
import os
import struct
import sys

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

QWEN2 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
         r"\s*[\r\n]+|\s+(?!\S)|\s+")
SEPARATOR = "\x1e"


def reference(folder, name):
    tokenizer = Tokenizer(models.BPE.from_file(os.path.join(folder, "vocab.json"), os.path.join(folder, "merges.txt")))
    if name == "qwen2":
        tokenizer.normalizer = normalizers.NFC()
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(QWEN2), "isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        added = json.load(f)["added_tokens_decoder"]
    for _, token in sorted(added.items(), key=lambda item: int(item[0])):
        tokenizer.add_special_tokens([AddedToken(token["content"], special=True, normalized=False)])
    return tokenizer


def fnv1a(ids):
    h = 0xCBF29CE484222325
    for byte in struct.pack(f"<{len(ids)}I", *ids):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    data = sys.argv[1]
    with open(os.path.join(data, "corpus.txt"), encoding="utf-8", newline="") as f:
        documents = f.read().split(SEPARATOR)
    for name in ("qwen2", "gpt2"):
        tokenizer = reference(os.path.join(data, name), name)
        encodings = [tokenizer.encode(d) for d in documents]
        with open(os.path.join(data, f"corpus.{name}.golden"), "w") as f:
            for encoding in encodings:
                f.write(f"{len(encoding.ids)} {fnv1a(encoding.ids):016x}\n")
        for document, encoding in zip(documents, encodings):
            assert tokenizer.decode(encoding.ids, skip_special_tokens=False) == document
        saved = json.loads(tokenizer.to_str())
        saved["model"]["vocab"] = {}
        saved["model"]["merges"] = []
        with open(os.path.join(data, f"{name}.tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump(saved, f, ensure_ascii=False, indent=1)
        print(f"{name}: {len(documents)} documents, {sum(len(e.ids) for e in encodings)} tokens")


if __name__ == "__main__":
    main()
