#!/usr/bin/env python3
"""Turns a NeMo FastConformer CTC checkpoint (`.nemo`) into the model folder Chorus's recogniser reads.

    python scripts/export-fastconformer.py MODEL.nemo OUT_FOLDER [--buckets 80,200,400,800,1600,2400,4800]

Without --buckets, one `encoder.onnx` from NeMo's own ONNX export (`model.export`): any length,
inputs `audio_signal` [1, 80, frames] and `length` [1], output `logprobs` [1, ceil(frames / 8), vocabulary + 1],
blank last. With --buckets, one `encoder_T<frames>.onnx` per length, each NeMo's export at that fixed
input shape (what accelerators that precompile kernels need), all reading their weights from one shared
`encoder.weights` file, so the folder holds the weights once. Either way `tokenizer.model` (the
checkpoint's SentencePiece model) and `tokens.txt` (`piece id` per line, `<blk>` last) go beside, and
the folder is written under a temporary name, checked (ONNX Runtime against NeMo's PyTorch forward on
one input) and renamed into place with a `.complete` marker, as `chorus models list` expects.

Put the folder at `$CHORUS_MODELS/fastconformer` (the default of `chorus transcribe` and `chorus serve`)
or pass it with --model. Hybrid RNNT/CTC checkpoints export their CTC branch. Needs nemo_toolkit[asr]
and onnxruntime (scripts/realsize/fastconformer/requirements.txt pins a set that works).
"""
import argparse
import hashlib
import os
import shutil
import sys

import numpy as np

# The features Chorus computes (NeMoFilterbank): what the checkpoint's preprocessor must match.
EXPECTED_FEATURES = {"features": 80, "n_fft": 512, "window_size": 0.025, "window_stride": 0.01,
                     "normalize": "per_feature", "sample_rate": 16000}
ALIGNMENT = 4096  # external tensors start on a page, so the runtime may map them instead of copying


def fail(message):
    sys.exit(f"export-fastconformer: {message}")


def load(path):
    import torch
    from nemo.collections.asr.models import ASRModel

    if not os.path.isfile(path):
        fail(f"{path} is not a file; give the path of a .nemo checkpoint.")
    model = ASRModel.restore_from(path, map_location=torch.device("cpu"))
    if hasattr(model, "ctc_decoder"):  # hybrid RNNT/CTC: export the CTC branch
        model.change_decoding_strategy(decoder_type="ctc")
    elif not hasattr(model.decoder, "num_classes_with_blank"):
        fail(f"{path} holds a {type(model).__name__}, not a CTC model; Chorus reads CTC log-probabilities.")
    model.eval()
    return model


def check_features(model):
    preprocessor = model.cfg.preprocessor
    for key, value in EXPECTED_FEATURES.items():
        actual = preprocessor.get(key, model.cfg.get(key) if key == "sample_rate" else None)
        if actual != value:
            fail(f"the checkpoint's preprocessor has {key}={actual}, where Chorus computes {key}={value}; "
                 "this export would hear the wrong features.")


def write_tokenizer(model, folder):
    processor = getattr(model.tokenizer, "tokenizer", None)
    if processor is None or not hasattr(processor, "serialized_model_proto"):
        fail("the checkpoint's tokenizer is not a SentencePiece model; Chorus reads tokenizer.model or tokens.txt.")
    with open(os.path.join(folder, "tokenizer.model"), "wb") as out:
        out.write(processor.serialized_model_proto())
    size = processor.get_piece_size()
    with open(os.path.join(folder, "tokens.txt"), "w", encoding="utf-8") as out:
        out.writelines(f"{processor.id_to_piece(i)} {i}\n" for i in range(size))
        out.write(f"<blk> {size}\n")
    return size


def example(frames, seed=0):
    import torch

    generator = torch.Generator().manual_seed(seed)
    return torch.randn(1, 80, frames, generator=generator), torch.tensor([frames], dtype=torch.int64)


def export_one(model, path, frames=None):
    """NeMo's own export: free length when `frames` is None, else that fixed input shape."""
    if frames is None:
        model.export(path)
    else:
        model.export(path, input_example=example(frames), dynamic_axes={})


def share_weights(paths, folder, weights_name="encoder.weights"):
    """Moves every large initializer of `paths` into one file, each distinct tensor once."""
    import onnx
    from onnx.external_data_helper import set_external_data

    offsets = {}
    with open(os.path.join(folder, weights_name), "wb") as weights:
        for path in paths:
            model = onnx.load(path)
            for tensor in model.graph.initializer:
                if not tensor.HasField("raw_data") or len(tensor.raw_data) < 1024:
                    continue
                key = hashlib.sha256(tensor.raw_data).hexdigest()
                if key not in offsets:
                    weights.seek(0, os.SEEK_END)
                    start = -(-weights.tell() // ALIGNMENT) * ALIGNMENT
                    weights.write(b"\0" * (start - weights.tell()))
                    weights.write(tensor.raw_data)
                    offsets[key] = (start, len(tensor.raw_data))
                start, length = offsets[key]
                set_external_data(tensor, location=weights_name, offset=start, length=length)
                tensor.ClearField("raw_data")
                tensor.data_location = onnx.TensorProto.EXTERNAL
            onnx.save(model, path)


def verify(model, path, frames):
    """ONNX Runtime's output against NeMo's PyTorch forward on one input of `frames`."""
    import onnxruntime as ort
    import torch

    features, length = example(frames, seed=1)
    with torch.inference_mode():
        expected = model.forward_for_export(audio_signal=features, length=length)
        expected = (expected[0] if isinstance(expected, tuple) else expected).numpy()
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = {"audio_signal": features.numpy()}
    if any(i.name == "length" for i in session.get_inputs()):
        feeds["length"] = length.numpy()
    actual = session.run(["logprobs"], feeds)[0]
    if actual.shape != expected.shape:
        fail(f"{path} gives logprobs of shape {actual.shape}, NeMo {expected.shape}.")
    difference = float(np.abs(actual - expected).max())
    if difference > 1e-2:
        fail(f"{path} differs from NeMo's forward by {difference:.3g} (log-probability); the export is wrong.")
    return difference


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nemo", help="the .nemo checkpoint")
    parser.add_argument("out", help="the model folder to write (replaced if it exists)")
    parser.add_argument("--buckets", help="fixed input lengths in frames, comma-separated (e.g. 80,200,400,800,1600,2400,4800)")
    args = parser.parse_args()
    try:
        buckets = sorted({int(b) for b in args.buckets.split(",")}) if args.buckets else []
    except ValueError:
        fail(f"--buckets takes frame counts separated by commas, such as 800,1600; not '{args.buckets}'.")
    if any(b < 8 for b in buckets):
        fail("each bucket must be at least 8 frames (one output frame).")

    model = load(args.nemo)
    check_features(model)
    out = os.path.abspath(args.out)
    staging = out + ".partial"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    vocabulary = write_tokenizer(model, staging)
    head = model.ctc_decoder if hasattr(model, "ctc_decoder") else model.decoder
    if head.num_classes_with_blank != vocabulary + 1:
        fail(f"the CTC head has {head.num_classes_with_blank} classes where the tokenizer's {vocabulary} pieces "
             f"and the blank make {vocabulary + 1}.")

    if buckets:
        paths = [os.path.join(staging, f"encoder_T{frames}.onnx") for frames in buckets]
        for frames, path in zip(buckets, paths):
            export_one(model, path, frames)
            print(f"exported {os.path.basename(path)}", file=sys.stderr)
        share_weights(paths, staging)
        checks = [(paths[0], buckets[0]), (paths[-1], buckets[-1])]
    else:
        path = os.path.join(staging, "encoder.onnx")
        export_one(model, path)
        checks = [(path, 160), (path, 1203)]
    for path, frames in checks:
        difference = verify(model, path, frames)
        print(f"{os.path.basename(path)} at {frames} frames: within {difference:.2g} of NeMo's forward", file=sys.stderr)

    with open(os.path.join(staging, ".complete"), "w") as marker:
        marker.write(f"exported from {os.path.basename(args.nemo)} by scripts/export-fastconformer.py\n")
    shutil.rmtree(out, ignore_errors=True)
    os.rename(staging, out)
    print(out)


if __name__ == "__main__":
    main()
