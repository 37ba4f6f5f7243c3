#!/usr/bin/env python3
"""CosyVoice 3's front end as upstream runs it (Tests/ChorusCosyVoiceTests/Resources/upstream/frontend/).

Upstream's own CosyVoiceFrontEnd (FunAudioLLM/CosyVoice at make_upstream.UPSTREAM_COMMIT, cosyvoice/cli/frontend.py)
with cosyvoice3.yaml's tokenizer (get_qwen_tokenizer, version cosyvoice3, over Hugging Face transformers and
tokenizers) and feature extractor (matcha's mel_spectrogram: n_fft 1920, hop 480, 80 bins, fmax none, center
false), given:
  * the Qwen2 vocabulary of the Text tests (Tests/TextTestData/qwen2, llama.cpp's copy of Qwen2's base
    vocabulary with its three added tokens), in place of the model's CosyVoice-BlankEN folder;
  * small stand-ins for campplus.onnx and speech_tokenizer_v3.onnx with the real ones' inputs and outputs: the
    speech tokenizer of Resources/model (make_models.py), and a CAMPPlus stand-in written here (make_models.py's
    averages the fbank over time, which upstream's mean subtraction makes zero): a per-frame projection through
    tanh, averaged over time and projected to 192;
  * a real clip: the first 4 s of Tests/ChorusVADTests/Resources/speech_pauses_kokoro_16k.wav (Kokoro speech,
    16 kHz, 16-bit), copied to clip-16k.wav.
Written: tokenizer.json (texts and the ids upstream's tokenizer gives them) and frontend.json with
frontend-mel.f32 (frontend_zero_shot of the clip: prompt text ids, speech tokens, the 192-dim embedding and the
prompt mel, [frames, 80], aligned to 2 x the tokens as upstream aligns them).

torchaudio 2.9 and later read files through torchcodec; upstream's load_wav asks for torchaudio's soundfile
backend, so `torchaudio.load` is given here as that backend was: soundfile's float32 samples, channels first.

Needs what make_upstream.py needs (COSYVOICE, MATCHA), plus inflect, wetext and openai-whisper (its sdist on
sys.path as WHISPER, for log_mel_spectrogram):

    COSYVOICE=... MATCHA=... WHISPER=... python3 scripts/testdata/cosyvoice/make_upstream_frontend.py
"""
import functools
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for variable in ("COSYVOICE", "MATCHA", "WHISPER"):
    if variable not in os.environ:
        raise SystemExit(f"set {variable} (see this file's docstring)")
    sys.path.insert(0, os.environ[variable])
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import soundfile  # noqa: E402
import torch  # noqa: E402
import torchaudio  # noqa: E402
import tokenizers  # noqa: E402
import transformers  # noqa: E402

import make_upstream  # noqa: E402
from matcha.utils.audio import mel_spectrogram  # noqa: E402
from cosyvoice.cli.frontend import CosyVoiceFrontEnd  # noqa: E402
from cosyvoice.tokenizer.tokenizer import get_qwen_tokenizer  # noqa: E402

TESTS = os.path.join(HERE, "..", "..", "..", "Tests")
OUT = os.path.join(make_upstream.OUT, "frontend")
QWEN2 = os.path.join(TESTS, "TextTestData", "qwen2")
STAND_INS = os.path.join(TESTS, "ChorusCosyVoiceTests", "Resources", "model")
SOURCE_CLIP = os.path.join(TESTS, "ChorusVADTests", "Resources", "speech_pauses_kokoro_16k.wav")
CLIP_SECONDS = 4

# What a user's texts look like after the front end: the prefixes upstream's examples use, Chinese and English
# text, the instruction of instruct2, and the special tokens CosyVoice 3 adds (events, emphasis, phonemes, pinyin).
TEXTS = [
    "You are a helpful assistant.<|endofprompt|>希望你以后能够做的比我还好呦。",
    "You are a helpful assistant. 请用广东话表达。<|endofprompt|>",
    "You are a helpful assistant.<|endofprompt|>Hello, this is a test of the CosyVoice front end.",
    "收到好友从远方寄来的生日礼物，那份意外的惊喜与深深的祝福让我心中充满了甜蜜的快乐，笑容如花儿般绽放。",
    "在他讲述那个荒诞故事的过程中，他突然[laughter]停下来，因为他自己也被逗笑了[laughter]。",
    "追求卓越不是终点，它需要你每天都<strong>付出</strong>和<strong>精进</strong>，最终才能达到巅峰。",
    "[breath]因为他们那一辈人[breath]在乡里面住的要习惯一点，[breath]邻居都很活络，[breath]嗯，都很熟悉。[breath]",
    "You are a helpful assistant.<|endofprompt|>[HH][AH0][L][OW1] and [n][ǐ][h][ǎo], twice: [AA1][AA1].",
    "Numbers 1, 22 and 333; symbols $5 & 10% — quotes \u201cso\u201d, an emoji 🙂 and tabs\tand  spaces.",
]


def campplus(folder):
    """[1, T, 80] fbank -> [1, 192]: mean over time of tanh(x W1), times W2."""
    from make_models import Graph, value
    from onnx import TensorProto
    rng = np.random.default_rng(20260331)
    g = Graph("campplus")
    frames = g.op("Tanh", [g.op("MatMul", ["input", g.const((rng.standard_normal((80, 32)) * 0.3).astype(np.float32))])])
    mean = g.op("ReduceMean", [frames], axes=[1], keepdims=0)
    g.op("MatMul", [mean, g.const((rng.standard_normal((32, 192)) * 0.5).astype(np.float32))], "output")
    g.save([value("input", TensorProto.FLOAT, [1, "frames", 80])], [value("output", TensorProto.FLOAT, [1, 192])],
           "campplus.onnx", folder)


def token_margins(tokenizer, feats):
    """The least gap, over the 25 Hz frames, between the stand-in speech tokenizer's largest and second largest
    score (its ArgMax input), as a share of the frame's largest |score|: how far each token lies from changing."""
    import onnx
    import onnxruntime
    model = onnx.load(tokenizer)
    scores = next(n.input[0] for n in model.graph.node if n.op_type == "ArgMax")
    model.graph.output.append(onnx.helper.make_tensor_value_info(scores, onnx.TensorProto.FLOAT, None))
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    values = session.run([scores], {"feats": feats, "feats_length": np.array([feats.shape[2]], np.int32)})[0][0]
    ranked = np.sort(values, axis=0)
    return float(np.min((ranked[-1] - ranked[-2]) / np.abs(values).max(axis=0)))


def soundfile_load(path, *args, **kwargs):
    data, rate = soundfile.read(path, dtype="float32", always_2d=True)
    return torch.from_numpy(np.ascontiguousarray(data.T)), rate


def main():
    torchaudio.load = soundfile_load
    os.makedirs(OUT, exist_ok=True)
    samples, rate = soundfile.read(SOURCE_CLIP, dtype="int16")
    clip = os.path.join(OUT, "clip-16k.wav")
    soundfile.write(clip, samples[:CLIP_SECONDS * rate], rate, subtype="PCM_16", format="WAV")

    get_tokenizer = functools.partial(get_qwen_tokenizer, token_path=QWEN2, skip_special_tokens=True, version="cosyvoice3")
    feat_extractor = functools.partial(mel_spectrogram, n_fft=1920, num_mels=80, sampling_rate=24000, hop_size=480,
                                       win_size=1920, fmin=0, fmax=None, center=False)
    campplus(OUT)
    tokenizer_model = os.path.join(OUT, "speech_tokenizer_v3.onnx")
    with open(os.path.join(STAND_INS, "speech_tokenizer_v3.onnx"), "rb") as source, open(tokenizer_model, "wb") as target:
        target.write(source.read())
    frontend = CosyVoiceFrontEnd(get_tokenizer, feat_extractor, os.path.join(OUT, "campplus.onnx"), tokenizer_model,
                                 "", "all")
    versions = dict(make_upstream.versions(), tokenizers=tokenizers.__version__, torchaudio=torchaudio.__version__)
    versions["transformers"] = transformers.__version__
    cases = [{"text": text, "ids": frontend.tokenizer.encode(text, allowed_special="all")} for text in TEXTS]
    make_upstream.write_json(os.path.join(OUT, "tokenizer.json"), {"upstream": versions, "vocabulary": "TextTestData/qwen2",
                                                                     "cases": cases})

    prompt_text, text = TEXTS[0].split("<|endofprompt|>")[1], "你好，这是一个测试句子。"
    model_input = frontend.frontend_zero_shot(text, "You are a helpful assistant.<|endofprompt|>" + prompt_text, clip,
                                              24000, "")
    mel = model_input["prompt_speech_feat"][0].numpy()
    import whisper
    from cosyvoice.utils.file_utils import load_wav
    least = token_margins(tokenizer_model, whisper.log_mel_spectrogram(load_wav(clip, 16000), n_mels=128).numpy())
    mel.astype("<f4").tofile(os.path.join(OUT, "frontend-mel.f32"))
    make_upstream.write_json(os.path.join(OUT, "frontend.json"), {
        "upstream": versions, "clip": "clip-16k.wav", "transcript": prompt_text, "text": text,
        "promptTextTokens": model_input["prompt_text"][0].tolist(), "textTokens": model_input["text"][0].tolist(),
        "speechTokens": model_input["llm_prompt_speech_token"][0].tolist(), "leastTokenMargin": float(f"{least:.3e}"),
        "embedding": [float(f"{v:.8g}") for v in model_input["llm_embedding"][0].tolist()],
        "melShape": list(mel.shape)})
    print(f"{len(cases)} texts tokenized; the clip gives {len(model_input['llm_prompt_speech_token'][0])} speech tokens, "
          f"(least margin {least:.2e}), mel {mel.shape}, embedding norm {model_input['llm_embedding'].norm():.3f}")


if __name__ == "__main__":
    main()
