#!/usr/bin/env python3
"""Writes the expected results of Hugging Face `tokenizers` for Chorus's Text tests.

Reads the folders that make_bpe_vocabularies.py derives (Tests/TextTestData/{qwen2,gpt2}) and the
corpus that make_text_corpus.py assembles, and writes into the same folder:
  corpus.NAME.golden      one line per corpus document: "<token count> <FNV-1a 64 of the ids>", the ids
                          hashed as little-endian uint32; compact where the ids themselves would be megabytes
  sentencepiece/MODEL.golden  for each .model there, one line per corpus document: "<token count> <FNV-1a
                          64 of the ids> <FNV-1a 64 of sentencepiece's decoding of them, as UTF-8>"
  sentencepiece/cases.json    a few short texts with their ids and decodings spelt out, per model
  NAME.tokenizer.json     the tokenizer.json that `tokenizers` saves for the same tokenizer, with the
                          vocabulary and merges left empty (the test fills them in from the folder)

The reference is built as Qwen2's and GPT-2's own tokenizer.json files define it: Qwen2 is NFC, then a
Split on its expression (Isolated), then ByteLevel without its own expression; GPT-2 is ByteLevel with
its expression. Control tokens from tokenizer_config.json are added as special tokens.

Deterministic. Needs `pip install tokenizers==0.23.3 sentencepiece==0.2.3`.
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
    return fnv1a_bytes(struct.pack(f"<{len(ids)}I", *ids))


def fnv1a_bytes(data):
    h = 0xCBF29CE484222325
    for byte in data:
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
    sentencepiece_golden(os.path.join(data, "sentencepiece"), documents)


CASES = ["Hello world.", "  Hello   world  ", "", " ", "I saw a girl with a telescope.", "吾輩は猫である。名前はまだ無い。",
         "ｈｅｌｌｏ　ＷＯＲＬＤ①", "Chorus says <|speech|> twice<|speech|>", "emoji 🦙 and 日本語 and Ελληνικά",
         "tab\tand\nnewline\r\n", "\u00e9 vs e\u0301", "x" * 40, "unknown ☃ ☃☃ snowmen"]


def sentencepiece_golden(folder, documents):
    import sentencepiece as spm
    cases = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".model"):
            continue
        processor = spm.SentencePieceProcessor(model_file=os.path.join(folder, name))
        with open(os.path.join(folder, name[:-len(".model")] + ".golden"), "w") as f:
            for document in documents:
                ids = processor.encode(document)
                decoded = processor.decode(ids).encode("utf-8")
                f.write(f"{len(ids)} {fnv1a(ids):016x} {fnv1a_bytes(decoded):016x}\n")
        cases[name] = [{"text": text, "ids": processor.encode(text), "decoded": processor.decode(processor.encode(text))}
                       for text in CASES]
        print(f"{name}: {len(documents)} documents")
    with open(os.path.join(folder, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
