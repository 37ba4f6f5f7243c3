#!/usr/bin/env bash
# The sources build.py imports that are not packages of its venv, into DIR/src (DIR: the realsize folder):
#   cosyvoice/        FunAudioLLM/CosyVoice at the commit the goldens use (from COSYVOICE_REPO: a clone, or a
#                     bare git dir such as the search tool's fetch leaves under /work/.mirror)
#   matcha-tts-0.0.7.2/  the PyPI sdist of matcha-tts (upstream's flow imports its BASECFM)
#   ggml-vocab-qwen2.gguf  the Qwen2 vocabulary in the sdist of llama-cpp-python==0.3.36
# and makes the venv's torchaudio import without its native libraries (PyPI's are built against CUDA and
# the CPU torch cannot load them; upstream here needs only torchaudio's pure-Python parts).
set -euo pipefail
dir=${1:?usage: prepare.sh DIR}
commit=ace7c47f41bbd303aa6bf1ea80e6f9fbd595cd40
src="$dir/src"
mkdir -p "$src"
pip="$dir/venv-cosyvoice/bin/pip"

if [ "$(cat "$src/cosyvoice/.commit" 2>/dev/null)" != "$commit" ]; then
  repo=${COSYVOICE_REPO:-}
  gitdir=$repo; [ -d "$repo/.git" ] && gitdir="$repo/.git"
  if [ -z "$repo" ] || ! git --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "prepare.sh: set COSYVOICE_REPO to a clone of FunAudioLLM/CosyVoice that holds commit $commit (git clone https://github.com/FunAudioLLM/CosyVoice)." >&2
    exit 1
  fi
  rm -rf "$src/cosyvoice" && mkdir -p "$src/cosyvoice"
  git --git-dir="$gitdir" archive "$commit" | tar -x -C "$src/cosyvoice"
  echo "$commit" > "$src/cosyvoice/.commit"
fi

if [ ! -f "$src/matcha-tts-0.0.7.2/matcha/models/components/flow_matching.py" ]; then
  "$pip" download --quiet --no-deps --no-binary matcha-tts matcha-tts==0.0.7.2 -d "$src"
  tar -xzf "$src/matcha-tts-0.0.7.2.tar.gz" -C "$src" && rm "$src/matcha-tts-0.0.7.2.tar.gz"
fi

if [ ! -f "$src/ggml-vocab-qwen2.gguf" ]; then
  "$pip" download --quiet --no-deps --no-binary llama-cpp-python llama-cpp-python==0.3.36 -d "$src"
  tar -xzf "$src/llama_cpp_python-0.3.36.tar.gz" -C "$src" --strip-components=4 \
    llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-qwen2.gguf
  rm "$src/llama_cpp_python-0.3.36.tar.gz"
fi

rm -f "$dir"/venv-cosyvoice/lib/python3*/site-packages/torchaudio/lib/*.so
