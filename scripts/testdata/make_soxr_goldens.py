#!/usr/bin/env python3
"""soxr's output on a real clip, for ResamplerTests.agreesWithSoxrAsSoxrsSettingsAgree
(Tests/ChorusAudioTests/Resources/soxr/).

Upstream Chatterbox makes its 16 kHz copy of a voice clip with librosa.resample, which is soxr at 'HQ'
(prepare_conditionals). The input is one second (24000 samples from sample 48000) of the Chatterbox tests' clip
(Tests/ChorusChatterboxTests/Resources/encoder/clip.wav, 24 kHz); outputs: clip-16k-hq.f32 and clip-16k-vhq.f32
(soxr.resample at 'HQ' and 'VHQ', little-endian float32, 16000 samples each) and soxr.json (versions, the
excerpt). Deterministic. Needs numpy, soundfile, soxr (PyPI).
"""
import json
import os

import numpy as np
import soundfile
import soxr

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "Tests")
CLIP = os.path.join(ROOT, "ChorusChatterboxTests", "Resources", "encoder", "clip.wav")
OUT = os.path.join(ROOT, "ChorusAudioTests", "Resources", "soxr")
START, COUNT = 48000, 24000


def main():
    audio, rate = soundfile.read(CLIP, dtype="float32")
    assert rate == 24000 and audio.ndim == 1
    excerpt = audio[START:START + COUNT]
    os.makedirs(OUT, exist_ok=True)
    for quality in ("HQ", "VHQ"):
        out = soxr.resample(excerpt, 24000, 16000, quality).astype("<f4")
        out.tofile(os.path.join(OUT, f"clip-16k-{quality.lower()}.f32"))
    with open(os.path.join(OUT, "soxr.json"), "w") as f:
        json.dump({"clip": "ChorusChatterboxTests/Resources/encoder/clip.wav", "start": START, "count": COUNT,
                   "inputRate": 24000, "outputRate": 16000,
                   "versions": {"soxr": soxr.__version__, "numpy": np.__version__, "soundfile": soundfile.__version__}},
                  f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
