#!/usr/bin/env python3
"""Puts SentencePiece models for Chorus's Text tests into OUT (Tests/TextTestData/sentencepiece).

Copies the three models that ship in the sdist of sentencepiece==0.2.3 (test/botchan_en_bpe_1000.model,
botchan_en_unigram_1000.model, kyoto_ja_unigram_8000.model) and trains two small ones on its
test/botchan.txt to cover what those lack: byte fallback, user-defined symbols, the identity normaliser
without the dummy prefix. Training runs on one thread and is deterministic.

Needs `pip install sentencepiece==0.2.3`.
Usage: make_sentencepiece_models.py SENTENCEPIECE_SDIST_TEST_DIR OUT
"""
import os
import shutil
import sys

import sentencepiece as spm

SHIPPED = ["botchan_en_bpe_1000.model", "botchan_en_unigram_1000.model", "kyoto_ja_unigram_8000.model"]
TRAINED = {
    "botchan_bpe_bytes_600.model": dict(
        model_type="bpe", vocab_size=600, byte_fallback=True, user_defined_symbols=["<|speech|>", "Chorus"]),
    "botchan_unigram_identity_600.model": dict(
        model_type="unigram", vocab_size=600, byte_fallback=True, normalization_rule_name="identity",
        remove_extra_whitespaces=False, add_dummy_prefix=False, user_defined_symbols=["<|speech|>"]),
}


def main():
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name in SHIPPED:
        shutil.copyfile(os.path.join(source, name), os.path.join(out, name))
    # The input path is recorded in the model, so training reads it by its bare name.
    here = os.getcwd()
    out = os.path.abspath(out)
    os.chdir(source)
    for name, options in TRAINED.items():
        with open(os.path.join(out, name), "wb") as f:
            spm.SentencePieceTrainer.train(input="botchan.txt", model_writer=f,
                                           num_threads=1, minloglevel=2, **options)
    os.chdir(here)
    print(f"{out}: {', '.join(SHIPPED + list(TRAINED))}")


if __name__ == "__main__":
    main()
