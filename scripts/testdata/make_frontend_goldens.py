#!/usr/bin/env python3
"""Front-end goldens for Piper and Kokoro: what the references the voices were trained with make of a
corpus of sentences rich in punctuation, numbers and quotes (Tests/EngineTests/FrontEnd/).

  piper_en_us.json   piper-phonemize 1.1.0 (PyPI): phonemize_espeak(text, "en-us") and
                     phoneme_ids_espeak per sentence, the front end Piper voices were trained with.
                     It bundles rhasspy's fork of espeak-ng 1.51 with its data.
  kokoro_en_us.json, kokoro_en_gb.json
                     misaki 0.9.4 (PyPI): EspeakFallback(british=False/True) called on each whole
                     sentence; misaki runs espeak-ng through phonemizer-fork with punctuation preserved.

Each file holds one golden per espeak-ng version:
  "1.51": made on espeak-ng 1.51, the version Debian 12 ships (libespeak-ng1 1.51+dfsg-10) and the one
          Chorus links there: piper-phonemize's own library (rhasspy's fork of 1.51) reading Debian's
          espeak-ng-data (its bundled data gives the same: "differs_with_bundled_data"), misaki pointed
          at Debian's library and data. The fork's library stresses a word differently from Debian's
          build in a few sentences ("one", "there"); they are marked "espeak_library_differs".
  "1.52": made on espeak-ng 1.52, what the packages bundle elsewhere: piper-tts 1.8.0's phonemizer
          (espeak-ng 1.52.0.1 built in) and misaki on espeakng-loader 0.2.4's library (1.52.0).
The Swift tests compare against the golden of the espeak-ng version Chorus has loaded; "differs_1_52"
lists the sentences whose output the version changes.

Deterministic: fixed corpus (written below, no randomness), pinned packages.

Usage (each reference runs in a process of its own, since espeak-ng is one library per process):
  python3 -m venv /tmp/fe && /tmp/fe/bin/pip install piper-phonemize==1.1.0 piper-tts==1.8.0 \
      misaki==0.9.4 phonemizer-fork==3.3.2 espeakng-loader==0.2.4 regex addict
  /tmp/fe/bin/python scripts/testdata/make_frontend_goldens.py Tests/EngineTests/FrontEnd
(misaki installs without its extras: `pip install --no-deps misaki==0.9.4` then the others.)
"""
import json
import os
import subprocess
import sys

DEBIAN_LIBRARY = "/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1"
DEBIAN_DATA = "/usr/lib/x86_64-linux-gnu/espeak-ng-data"

# Written for this corpus: clause punctuation of every kind, quotes (straight, curly, single, nested,
# after ! and ?), ellipses (three dots, U+2026, with and without spaces), dashes, brackets, numbers
# (integers, decimals, money, percentages, ordinals, times, dates, years, ranges, phone numbers),
# abbreviations, and words espeak-ng spells in ways the rewrite rules touch (r-coloured vowels, flaps,
# glottal stops, syllabic consonants, "ear"/"air"/"er" sounds).
HANDWRITTEN = [
    "Wait... what?",
    "Wait…what?",
    "Well … I suppose so.",
    "He paused... then he laughed.",
    "So... you came back... after all these years...",
    "It was — how shall I put it — unexpected.",
    "She came—she saw—she left.",
    "The answer – if there is one – lies elsewhere.",
    "\"Stop!\" he shouted.",
    "\"Stop!\" He shouted again.",
    "He said \"Stop!\" and ran.",
    "He said \"Stop!\"",
    "\"Why?\" she asked.",
    "\"Really?!\" Yes, really.",
    "She whispered: 'Run!' and ran.",
    "“Curly quotes,” she noted, “are different.”",
    "‘Single curly,’ he replied.",
    "\"I heard him say 'never' twice,\" she said.",
    "The sign read \"No entry.\" We turned back.",
    "Is it \"yes\" or \"no\"?",
    "Hello, world.",
    "Hello there, world! How are you today?",
    "First: the plan; second: the work; third: the rest.",
    "Note: this is important.",
    "We need eggs, milk, flour, and sugar.",
    "Yes. No. Maybe.",
    "Really? Really! Really.",
    "What?! You can't be serious!",
    "Help!!! Somebody, please!",
    "Are you sure??",
    "(This part is in brackets.) The rest is not.",
    "The results (see table 2) were clear.",
    "Use the [optional] flag {if needed}.",
    "It costs $3.50, or 4 euros.",
    "The price rose 12% in 2023.",
    "Only 0.5% of users saw it.",
    "Pi is roughly 3.14159.",
    "She was born on March 5, 1990.",
    "The meeting is at 10:30 a.m. sharp.",
    "Call 555-0123 before 9 p.m.",
    "He finished 1st, she finished 2nd, and they finished 3rd.",
    "Chapter 11 starts on page 247.",
    "The years 1999-2001 were hard.",
    "We sold 1,234,567 copies.",
    "Temperatures hit -5 degrees.",
    "The score was 3-2 after 90 minutes.",
    "It weighs 2.5 kg and measures 30 cm.",
    "Mr. Smith went to Washington.",
    "Dr. Jones lives on Elm St. near the park.",
    "The U.S. and the U.K. signed it.",
    "Use e.g. apples, i.e. fruit.",
    "It's 5 o'clock somewhere.",
    "Don't, won't, can't, shouldn't.",
    "The cat's toy and the cats' toys.",
    "Rock 'n' roll never dies.",
    "Water, water, everywhere.",
    "Better butter makes better batter.",
    "The little bottle of water sat on the kitchen counter.",
    "Button, mountain, certain, Latin.",
    "Her brother heard the bird's first word.",
    "The nurse turned the curtain.",
    "Clear air near the pier.",
    "Where are the chairs? Over there.",
    "Go slowly, old boat, over the ocean.",
    "Thirty dirty birds flew north.",
    "Little middle riddle.",
    "The weather is better in winter.",
    "I'd rather eat later.",
    "A cup of tea, please.",
    "Our hour is over.",
    "Merry, Mary, and marry sound alike to many.",
    "The bear ate a pear, there, by the stair.",
    "Cheer up! It's nearly here.",
    "Idea, area, theatre, theater.",
    "Hello.",
    "Yes!",
    "Why not?",
    "OK.",
    "Go",
    "No punctuation at the end",
    "The quick brown fox jumps over the lazy dog.",
    "She sells sea shells by the sea shore.",
    "How much wood would a woodchuck chuck?",
    "Peter Piper picked a peck of pickled peppers.",
    "Every morning she runs along the river before breakfast, and then she reads the news.",
    "The library closes early on Sunday evenings.",
    "Good morning. How are you today?",
    "Wait, what did you just say?",
    "If it rains, we'll stay home; if not, we'll go.",
    "He asked, \"Are you coming?\" I said, \"Maybe.\"",
    "\"Well,\" she said, \"that's that.\"",
    "\"Go!\" \"Now?\" \"Yes, now!\"",
    "Oh... oh no... oh no, no, no!",
    "Three dots... and a question?",
    "An ellipsis at the end...",
    "A dash at the end —",
    "Two sentences.  With two spaces between.",
    "Line one.\nLine two.",
    "Tabs\tand spaces.",
    "Semicolons; colons: commas, periods.",
    "One, two, three, four, five.",
    "10, 20, 30, 40, 50.",
    "It's 100% true!",
    "Flight BA 117 leaves at 7:45.",
    "In 1066, the Normans arrived.",
    "The 1990s were loud; the 2000s, louder.",
    "Version 2.0 beats version 1.9.",
    "A 3-year-old and a 40-year-old walked in.",
    "Add 2 + 2 = 4.",
    "Email me at info@example.com.",
    "Visit www.example.com today.",
    "The ratio is 16:9.",
    "Room 101, floor 3.",
    "About 1/3 of the cake is left.",
    "Born in '85, married in '10.",
    "He scored 98.6 points — a record!",
    "Prices: $5, $10, and $20.",
    "Wow! That's £1,000,000!",
    "#1 hit, @home, & more.",
    "I love it... do you?",
    "Who's there? It's me!",
    "\"Hello?\" No answer.",
    "She said: \"I'm done.\" Then she left.",
    "They shouted \"Fire!\", and everyone ran.",
    "The word 'water' has a flap.",
    "\"Quoted sentence with a comma,\" he wrote.",
    "What a day — what a day!",
    "Yes — no — maybe.",
    "Interesting... very interesting.",
    "Well, well, well... what have we here?",
    "Ready? Set... go!",
    "Hmm.",
    "Uh-oh.",
    "Ah, I see.",
    "Sure; why not?",
    "Bring three things: water, bread, and salt.",
    "Caution: wet floor!",
    "P.S. See you soon.",
    "The end.",
]

SUBJECTS = ["The teacher", "My neighbour", "Our director", "A stranger", "The old sailor", "Her father"]
ACTIONS = ["bought", "counted", "lost", "found", "carried", "painted"]
NUMBERS = ["3", "17", "42", "250", "1,000", "3.5", "12.75", "99", "2024", "7"]
THINGS = ["apples", "boxes", "letters", "birds", "candles", "marbles"]
CLOSINGS = [".", "!", "?", "...", " —", "…"]


def templated():
    """Sentences from fixed lists, walked in a fixed order: a number, a quote and a closing mark each."""
    sentences = []
    for index in range(96):
        subject = SUBJECTS[index % len(SUBJECTS)]
        action = ACTIONS[(index // 2) % len(ACTIONS)]
        number = NUMBERS[index % len(NUMBERS)]
        thing = THINGS[(index // 3) % len(THINGS)]
        closing = CLOSINGS[(index // 4) % len(CLOSINGS)]
        shape = index % 4
        if shape == 0:
            sentences.append(f"{subject} {action} {number} {thing}{closing}")
        elif shape == 1:
            sentences.append(f"\"{number} {thing}{closing if closing in '!?' else ','}\" {subject.lower()} said.")
        elif shape == 2:
            sentences.append(f"{subject} {action} {number} {thing}, then said: \"That's all{closing}\"")
        else:
            sentences.append(f"({number}) {subject}; {action}... {thing}{closing} Really?")
    return sentences


def corpus():
    return HANDWRITTEN + templated()


def run_piper_phonemize(sentences, data_path=None):
    import piper_phonemize

    out = []
    for text in sentences:
        sentences_ = piper_phonemize.phonemize_espeak(text, "en-us", data_path=data_path)
        out.append({
            "sentences": ["".join(s) for s in sentences_],
            "ids": [piper_phonemize.phoneme_ids_espeak(s) for s in sentences_],
        })
    return out


def run_piper_tts(sentences):
    from piper.phonemize_espeak import EspeakPhonemizer
    from piper.phoneme_ids import phonemes_to_ids

    phonemizer = EspeakPhonemizer()
    out = []
    for text in sentences:
        sentences_ = phonemizer.phonemize("en-us", text)
        out.append({
            "sentences": ["".join(s) for s in sentences_],
            "ids": [phonemes_to_ids(s) for s in sentences_],
        })
    return out


def run_misaki(sentences, british):
    from misaki.espeak import EspeakFallback

    class Token:
        def __init__(self, text):
            self.text = text

    fallback = EspeakFallback(british=british)
    return [{"phonemes": fallback(Token(text))[0]} for text in sentences]


def piper_id_map():
    """piper-phonemize's espeak phoneme-id map (the one its ids above use), read in a process of its own."""
    code = "import json, piper_phonemize; print(json.dumps(piper_phonemize.get_espeak_map(), ensure_ascii=False))"
    output = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return {phoneme: ids for phoneme, ids in sorted(json.loads(output).items())}


def run_debian_espeak(sentences):
    """Debian's espeak-ng 1.51 itself (espeak_TextToPhonemes, clause by clause): the words Chorus starts from."""
    import ctypes

    library = ctypes.cdll.LoadLibrary(DEBIAN_LIBRARY)
    library.espeak_Initialize(0x02, 0, DEBIAN_DATA.encode(), 0)
    library.espeak_SetVoiceByName(b"en-us")
    library.espeak_TextToPhonemes.restype = ctypes.c_char_p
    library.espeak_TextToPhonemes.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_int]
    out = []
    for text in sentences:
        pointer = ctypes.pointer(ctypes.c_char_p(text.encode("utf-8")))
        clauses = []
        while pointer.contents.value is not None:
            phonemes = library.espeak_TextToPhonemes(pointer, 1, 0x02)
            if phonemes:
                clauses.append(phonemes.decode())
        out.append({"words": "".join(" ".join(clauses).split())})
    return out


def child(kind, out_path):
    """Runs one reference in this process and writes its outputs."""
    sentences = corpus()
    if kind == "debian-espeak":
        result, version = run_debian_espeak(sentences), "1.51 (Debian)"
    elif kind == "piper-phonemize:debian":
        result, version = run_piper_phonemize(sentences, DEBIAN_DATA), "1.51 (piper-phonemize's fork, Debian's data)"
    elif kind == "piper-phonemize:bundled":
        result, version = run_piper_phonemize(sentences), "1.51 (piper-phonemize's fork and data)"
    elif kind == "piper-tts":
        result, version = run_piper_tts(sentences), "1.52.0.1 (built into piper-tts)"
    else:
        language, library = kind.split(":")[1:]
        from phonemizer.backend.espeak.wrapper import EspeakWrapper
        import misaki.espeak  # noqa: F401  (sets espeakng-loader's library, replaced below for Debian's)
        if library == "debian":
            EspeakWrapper.set_library(DEBIAN_LIBRARY)
            EspeakWrapper.set_data_path(DEBIAN_DATA)
        result = run_misaki(sentences, british=(language == "gb"))
        version = ".".join(str(v) for v in EspeakWrapper().version)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"espeak": version, "results": result}, f, ensure_ascii=False)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    sentences = corpus()
    with open(os.path.join(out_dir, "corpus.txt"), "w", encoding="utf-8") as f:
        # One sentence a line; newlines and tabs inside a sentence written as \n and \t.
        for text in sentences:
            f.write(text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t") + "\n")

    def reference(kind):
        path = os.path.join(out_dir, ".tmp.json")
        subprocess.run([sys.executable, __file__, "--child", kind, path], check=True)
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        os.remove(path)
        return data

    def write(name, reference_151, reference_152, key, extra=None, bundled_data=None, debian_words=None):
        goldens = []
        for index, text in enumerate(sentences):
            golden = {"text": text, "1.51": reference_151["results"][index]}
            if reference_152["results"][index] != reference_151["results"][index]:
                golden["1.52"] = reference_152["results"][index]
            if bundled_data and bundled_data["results"][index] != reference_151["results"][index]:
                golden["1.51 bundled data"] = bundled_data["results"][index]
            if debian_words:
                # piper-phonemize's library is rhasspy's fork of espeak-ng 1.51, not Debian's build: where the
                # two read a word differently (its stress), no front end on Debian's library can match.
                fork_words = "".join(c for s in reference_151["results"][index]["sentences"] for c in s
                                     if c not in " .,;:!?")
                if fork_words != "".join(c for c in debian_words["results"][index]["words"] if c != " "):
                    golden["espeak_library_differs"] = True
            goldens.append(golden)
        document = {
            "reference": key,
            "espeak": {"1.51": reference_151["espeak"], "1.52": reference_152["espeak"]},
            "differs_1_52": sum(1 for g in goldens if "1.52" in g),
            "differs_with_bundled_data": sum(1 for g in goldens if "1.51 bundled data" in g),
            "espeak_library_differs": sum(1 for g in goldens if g.get("espeak_library_differs")),
            **(extra or {}),
            "sentences": goldens,
        }
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            json.dump(document, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(f"{name}: {len(goldens)} sentences, {document['differs_1_52']} differ on espeak-ng 1.52, "
              f"{document['espeak_library_differs']} where the fork's 1.51 reads a word unlike Debian's")

    write("piper_en_us.json", reference("piper-phonemize:debian"), reference("piper-tts"),
          "piper-phonemize 1.1.0 (1.51); piper-tts 1.8.0 (1.52)", {"phoneme_id_map": piper_id_map()},
          bundled_data=reference("piper-phonemize:bundled"), debian_words=reference("debian-espeak"))
    for language in ["us", "gb"]:
        write(f"kokoro_en_{language}.json", reference(f"misaki:{language}:debian"),
              reference(f"misaki:{language}:bundled"), f"misaki 0.9.4 EspeakFallback(british={language == 'gb'})")


if __name__ == "__main__":
    main()
