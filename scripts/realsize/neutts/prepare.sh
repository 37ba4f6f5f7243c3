#!/usr/bin/env bash
# What build.py needs besides its venv, in DIR/neutts-cache: the real Qwen2 and Llama 3 vocabularies (llama.cpp's
# vocabulary files inside llama-cpp-python's sdist, from PyPI) and NEUCODEC_REPO, a checkout of the
# neuphonic/neucodec repository (its onnx/onnx_ops.py holds the decoder's export swaps). It also moves torchaudio's
# compiled extension aside in the venv: no CPU build of torchaudio matches torch 2.13, neucodec imports torchaudio
# only to read files, and the build never calls it.
# Usage: NEUCODEC_REPO=/path/to/neucodec scripts/realsize/neutts/prepare.sh DIR
set -euo pipefail
dir=${1:?usage: prepare.sh DIR}
cache=$dir/neutts-cache
venv=$dir/venv-neutts
mkdir -p "$cache/vocab"
if [ -z "${NEUCODEC_REPO:-}" ] && [ -f "$cache/neucodec/onnx/onnx_ops.py" ]; then NEUCODEC_REPO=$cache/neucodec; fi
if [ ! -f "${NEUCODEC_REPO:-}/onnx/onnx_ops.py" ]; then
  echo "prepare.sh: set NEUCODEC_REPO to a checkout of the neuphonic/neucodec repository (git clone it; its onnx/onnx_ops.py is what the decoder export needs), or put one at $cache/neucodec." >&2
  exit 1
fi
if [ "$NEUCODEC_REPO" != "$cache/neucodec" ]; then rm -rf "$cache/neucodec"; cp -r "$NEUCODEC_REPO" "$cache/neucodec"; fi
sdist=llama_cpp_python-0.3.36
if [ ! -f "$cache/vocab/ggml-vocab-qwen2.gguf" ] || [ ! -f "$cache/vocab/ggml-vocab-llama-bpe.gguf" ]; then
  [ -f "$cache/$sdist.tar.gz" ] || "$venv/bin/pip" download --no-deps --no-binary llama-cpp-python \
    llama-cpp-python==0.3.36 -d "$cache" -q
  tar -xzf "$cache/$sdist.tar.gz" -C "$cache/vocab" --strip-components=4 \
    "$sdist/vendor/llama.cpp/models/ggml-vocab-qwen2.gguf" "$sdist/vendor/llama.cpp/models/ggml-vocab-llama-bpe.gguf"
fi
extension=$(echo "$venv"/lib/python3*/site-packages/torchaudio/lib)
if compgen -G "$extension/*.so" > /dev/null; then
  mkdir -p "$venv/torchaudio-extension-aside"
  mv "$extension"/*.so "$venv/torchaudio-extension-aside/"
fi
