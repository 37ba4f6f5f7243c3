#!/usr/bin/env python3
"""Writes small FastConformer-shaped CTC models, a test clip and the Python reference transcripts
(Tests/ChorusRecognitionTests/Resources).

No FastConformer weights ship anywhere offline, so the models here have the real export's
interface and a tiny body that makes the output depend on the audio in a known way:

  fastconformer/encoder_T{80,200,400,800,1600,2400,4800}.onnx
      audio_signal float [1, 80, T] (NeMo log-mel, per-feature normalised) ->
      logprobs float [1, T/8, 1001]: 8x subsampling (average pool), a matched filter per "tone word",
      log-softmax over the 1000 pieces of the SentencePiece model plus the blank, last.
  fastconformer/pronunciation.onnx
      the same input with a free length T -> logprobs [1, T/8, 12]: a second CTC head over 11 symbols
      listed in pronunciation_vocab.txt, blank last.
  fastconformer/tokenizer.model
      botchan_en_bpe_1000.model from the sentencepiece 0.2.3 sdist.
  fastconformer/tokens.txt
      the same vocabulary as NeMo and sherpa-onnx exports list it ("piece id" per line, <blk> last).
  fastconformer_dynamic/encoder.onnx + tokens.txt
      the encoder as NeMo's own ONNX export lays it out: any length, a `length` input [1] int64 and an
      `encoded_lengths` output besides `logprobs`.

Each of 12 pieces (whole words such as "▁the" and suffixes such as "ed") is a pure tone; the test
clip speaks a sentence as tones with silences between words. The reference decode path, in Python
on the very same files: NeMo features from onnx-asr's nemo80.onnx (an independent implementation
of NeMo's FilterbankFeatures), the smallest bucket that holds them, zero padding, the run, the output
cut to ceil(frames / 8), per-frame argmax, CTC collapse with the blank last, SentencePiece decoding.

Deterministic: fixed tones and rounded weights. Needs numpy, onnx, onnxruntime, onnx-asr==0.12.0,
sentencepiece==0.2.3 and the sentencepiece 0.2.3 sdist (pip download --no-deps --no-binary
sentencepiece sentencepiece==0.2.3), whose path is the first argument.
"""
import json
import os
import shutil
import sys
import tarfile
import wave

import numpy as np
import onnx
import onnx_asr
import onnxruntime as ort
import sentencepiece as spm
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "Tests", "ChorusRecognitionTests", "Resources")
MODEL_DIR = os.path.join(OUT, "fastconformer")
RATE = 16000
BUCKETS = [80, 200, 400, 800, 1600, 2400, 4800]
SUBSAMPLING = 8

# piece -> (tone in Hz, pronunciation symbol)
PIECES = [
    ("▁the", 500, "ð"), ("▁and", 635, "æ"), ("▁to", 806, "t"), ("▁of", 1024, "ʌ"),
    ("▁a", 1300, "ə"), ("▁I", 1651, "aɪ"), ("▁was", 2097, "w"), ("▁in", 2663, "ɪ"),
    ("▁that", 3382, "ð"), ("▁he", 4295, "h"), ("ing", 5455, "ŋ"), ("ed", 6928, "ɛ"),
]
SYMBOLS = sorted({symbol for _, _, symbol in PIECES})
SENTENCE = ["▁I", "▁was", "▁in", "▁the", "▁that", "▁and", "▁he", "▁to ed", "▁a", "▁he ed", "▁of", "▁the"]
# A longer text for chunked and live transcription, synthesised by the tests from this schedule.
STORY = [SENTENCE,
         ["▁a", "▁he ed", "▁of", "▁that", "▁I", "▁in ing", "▁to", "▁and", "▁was", "▁the"],
         ["▁that", "▁was", "▁in", "▁a", "▁to ed", "▁of", "▁the", "▁he", "▁and", "▁I"]]
# A frame is a piece when its matched filter scores above THRESHOLD (a full tone scores about 7).
THRESHOLD = 4.5
# Pieces of one word are 80 ms apart too: a pooled frame across two tones can score a third one between them.
PIECE_SECONDS, INNER_GAP_SECONDS, GAP_SECONDS, EDGE_SECONDS = 0.24, 0.08, 0.16, 0.3


def nemo_features(samples):
    path = os.path.join(os.path.dirname(onnx_asr.__file__), "preprocessors", "data", "nemo80.onnx")
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    features, lengths = session.run(None, {"waveforms": samples[None].astype(np.float32),
                                           "waveforms_lens": np.array([len(samples)], np.int64)})
    return features[0], int(lengths[0])


def tone(frequency, seconds):
    t = np.arange(int(round(seconds * RATE))) / RATE
    ramp = np.minimum(1, np.minimum(t, t[::-1]) / 0.01)  # 10 ms fades, no clicks
    return 0.3 * np.sin(2 * np.pi * frequency * t) * ramp


def speak(words):
    """The tone rendering of `words` (pieces joined by spaces inside a word)."""
    frequency = {piece: hz for piece, hz, _ in PIECES}
    parts = [np.zeros(int(EDGE_SECONDS * RATE))]
    for index, word in enumerate(words):
        if index:
            parts.append(np.zeros(int(GAP_SECONDS * RATE)))
        for position, piece in enumerate(word.split()):
            if position:
                parts.append(np.zeros(int(INNER_GAP_SECONDS * RATE)))
            parts.append(tone(frequency[piece], PIECE_SECONDS))
    parts.append(np.zeros(int(EDGE_SECONDS * RATE)))
    return np.concatenate(parts)


def templates():
    """Each tone's mean normalised feature vector, unit length, rounded: the matched filters."""
    rows = []
    for _, hz, _ in PIECES:
        features, _ = nemo_features(np.concatenate([np.zeros(4800), tone(hz, 0.5), np.zeros(4800)]))
        rows.append(features[:, 35:75].mean(axis=1))
    # Only the channels a tone lifts most: silence is below average everywhere and must score low,
    # neighbouring tones share their weaker channels, and leakage lifts them in short chunks.
    rows = np.array(rows)
    rows = np.where(rows >= 0.85 * rows.max(axis=1, keepdims=True), rows, 0)
    return np.round(rows / np.linalg.norm(rows, axis=1, keepdims=True), 2).astype(np.float32)


def ctc_graph(name, frames, column_of_token, filters, gain, threshold):
    """[1, 80, frames] -> [1, frames/8, len(column_of_token)] log-probs; `frames` None means free."""
    k = filters.shape[0]
    out_frames = frames // SUBSAMPLING if frames else "T_out"
    x = helper.make_tensor_value_info("audio_signal", TensorProto.FLOAT, [1, 80, frames or "T"])
    y = helper.make_tensor_value_info("logprobs", TensorProto.FLOAT, [1, out_frames, len(column_of_token)])
    weight = np.concatenate([filters.T * gain, np.zeros((80, 1), np.float32)], axis=1)  # blank column last
    bias = np.array([-gain * threshold] * k + [0], np.float32)
    inits = [numpy_helper.from_array(weight.astype(np.float32), "weight"),
             numpy_helper.from_array(bias, "bias"),
             numpy_helper.from_array(np.array(0, np.float32), "zero"),
             numpy_helper.from_array(np.array(-30, np.float32), "floor"),
             numpy_helper.from_array(np.array(column_of_token, np.int64), "columns")]
    nodes = [
        helper.make_node("AveragePool", ["audio_signal"], ["pooled"], kernel_shape=[SUBSAMPLING], strides=[SUBSAMPLING]),
        helper.make_node("Transpose", ["pooled"], ["frames"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["frames", "weight"], ["scores"]),
        helper.make_node("Add", ["scores", "bias"], ["logits"]),
        # One more column at -30 for every token that is not a tone: [.., k+1] -> [.., k+2].
        helper.make_node("ReduceMax", ["logits"], ["peak"], axes=[-1], keepdims=1),
        helper.make_node("Mul", ["peak", "zero"], ["nothing"]),
        helper.make_node("Add", ["nothing", "floor"], ["filler"]),
        helper.make_node("Concat", ["logits", "filler"], ["extended"], axis=-1),
        helper.make_node("Gather", ["extended", "columns"], ["full"], axis=2),
        helper.make_node("LogSoftmax", ["full"], ["logprobs"], axis=-1),
    ]
    model = helper.make_model(helper.make_graph(nodes, name, [x], [y], inits), producer_name="chorus-testdata",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    return model


def with_length_input(model):
    """NeMo's export interface: audio_signal plus length in, logprobs plus encoded_lengths out."""
    graph = model.graph
    graph.input.append(helper.make_tensor_value_info("length", TensorProto.INT64, [1]))
    graph.initializer.extend([numpy_helper.from_array(np.array(SUBSAMPLING - 1, np.int64), "round_up"),
                              numpy_helper.from_array(np.array(SUBSAMPLING, np.int64), "subsampling")])
    graph.node.extend([helper.make_node("Add", ["length", "round_up"], ["length_up"]),
                       helper.make_node("Div", ["length_up", "subsampling"], ["encoded_lengths"])])
    graph.output.append(helper.make_tensor_value_info("encoded_lengths", TensorProto.INT64, [1]))
    onnx.checker.check_model(model)
    return model


def run_head(path, features, valid):
    """The reference decode path up to token ids: bucket, pad, run, trim, argmax, collapse."""
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    declared = session.get_inputs()[0].shape[2]
    frames = declared if isinstance(declared, int) else features.shape[1]
    padded = np.zeros((1, 80, frames), np.float32)
    padded[0, :, :valid] = features[:, :valid]
    logprobs = session.run(None, {"audio_signal": padded})[0][0]
    keep = (valid + SUBSAMPLING - 1) // SUBSAMPLING
    best = logprobs[:keep].argmax(axis=1)
    blank = logprobs.shape[1] - 1
    ids, previous = [], None
    for token in best.tolist():
        if token != previous and token != blank:
            ids.append(token)
        previous = token
    return frames, best.tolist(), ids


def write_wav(path, samples):
    pcm = np.clip(np.round(samples * 32767), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(RATE)
        writer.writeframes(pcm.tobytes())
    return pcm.astype(np.float32) / 32768


def write_npy(path, array):
    """float32 little-endian, C order, version 1.0: what DSP.NPYFile reads."""
    np.save(path, np.ascontiguousarray(array, dtype="<f4"))


def main():
    sdist = sys.argv[1]
    os.makedirs(MODEL_DIR, exist_ok=True)
    with tarfile.open(sdist) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("test/botchan_en_bpe_1000.model"))
        with open(os.path.join(MODEL_DIR, "tokenizer.model"), "wb") as out:
            out.write(archive.extractfile(member).read())
    sp = spm.SentencePieceProcessor(model_file=os.path.join(MODEL_DIR, "tokenizer.model"))
    vocabulary = sp.get_piece_size()
    # The same vocabulary as NeMo / sherpa-onnx exports list it, blank last.
    with open(os.path.join(MODEL_DIR, "tokens.txt"), "w", encoding="utf-8") as out:
        out.writelines(f"{sp.id_to_piece(i)} {i}\n" for i in range(vocabulary))
        out.write(f"<blk> {vocabulary}\n")
    filters = templates()

    column_of_token = [len(PIECES) + 1] * (vocabulary + 1)
    for column, (piece, _, _) in enumerate(PIECES):
        column_of_token[sp.piece_to_id(piece)] = column
    column_of_token[vocabulary] = len(PIECES)  # blank
    for frames in BUCKETS:
        onnx.save(ctc_graph(f"encoder_T{frames}", frames, column_of_token, filters, 4.0, THRESHOLD),
                  os.path.join(MODEL_DIR, f"encoder_T{frames}.onnx"))

    dynamic_dir = os.path.join(OUT, "fastconformer_dynamic")
    os.makedirs(dynamic_dir, exist_ok=True)
    onnx.save(with_length_input(ctc_graph("encoder", None, column_of_token, filters, 4.0, THRESHOLD)),
              os.path.join(dynamic_dir, "encoder.onnx"))
    shutil.copy(os.path.join(MODEL_DIR, "tokens.txt"), dynamic_dir)

    symbol_columns = [len(PIECES) + 1] * (len(SYMBOLS) + 1)
    for symbol_index, symbol in enumerate(SYMBOLS):
        symbol_columns[symbol_index] = next(c for c, (_, _, s) in enumerate(PIECES) if s == symbol)
    symbol_columns[len(SYMBOLS)] = len(PIECES)
    # Symbols shared by two tones ("ð") take the first tone's column; the head hears only that one.
    onnx.save(ctc_graph("pronunciation", None, symbol_columns, filters, 4.0, THRESHOLD),
              os.path.join(MODEL_DIR, "pronunciation.onnx"))
    with open(os.path.join(MODEL_DIR, "pronunciation_vocab.txt"), "w") as out:
        out.write("\n".join(SYMBOLS) + "\n")

    samples = write_wav(os.path.join(OUT, "tone_sentence.wav"), speak(SENTENCE))
    features, valid = nemo_features(samples)
    write_npy(os.path.join(OUT, "tone_sentence_features.npy"), features[:, :valid])
    bucket_path = os.path.join(MODEL_DIR, f"encoder_T{next(b for b in BUCKETS if b >= valid)}.onnx")
    bucket, frame_tokens, ids = run_head(bucket_path, features, valid)
    _, symbol_frames, symbol_ids = run_head(os.path.join(MODEL_DIR, "pronunciation.onnx"), features, valid)
    expected = sp.decode([sp.piece_to_id(p) for word in SENTENCE for p in word.split()])
    golden = {
        "generator": "scripts/testdata/make_fastconformer_testdata.py",
        "samples": len(samples), "frames": valid, "bucket": bucket,
        "frame_tokens": frame_tokens, "token_ids": ids, "text": sp.decode(ids), "spoken": expected,
        "tones": {piece: hz for piece, hz, _ in PIECES},
        "timing": {"piece": PIECE_SECONDS, "inner_gap": INNER_GAP_SECONDS, "gap": GAP_SECONDS, "edge": EDGE_SECONDS,
                   "amplitude": 0.3, "ramp": 0.01},
        "story": [word for sentence in STORY for word in sentence],
        "story_ids": [sp.piece_to_id(p) for sentence in STORY for word in sentence for p in word.split()],
        "story_text": sp.decode([sp.piece_to_id(p) for sentence in STORY for word in sentence for p in word.split()]),
        "pronunciation_frame_symbols": symbol_frames, "pronunciation_ids": symbol_ids, "pronunciation": " ".join(SYMBOLS[i] for i in symbol_ids),
    }
    with open(os.path.join(OUT, "tone_sentence.json"), "w") as out:
        json.dump(golden, out, indent=1, ensure_ascii=False)
        out.write("\n")
    print(json.dumps({k: v for k, v in golden.items() if k not in ("frame_tokens",)}, ensure_ascii=False))
    assert golden["text"] == expected, "the generated models no longer hear the sentence"


if __name__ == "__main__":
    main()
