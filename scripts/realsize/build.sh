#!/usr/bin/env bash
# Real-size stand-ins (issue 39): each engine built at its published configuration from upstream's own classes
# with seeded random weights, into a models root laid out as `chorus models pull` lays out the real files.
# A model call costs the same whatever its weights' values, so these measure load time, memory and speed of the
# real shapes; they say nothing of the real voices' quality. Not part of `make test`; a few GB each.
#
#   scripts/realsize/build.sh [DIR] [--force] [ENGINE ...]
#
# DIR (a path with a slash): ${CHORUS_REALSIZE:-${XDG_CACHE_HOME:-$HOME/.cache}/chorus/realsize}. The models go to DIR/models, a root
# to give `chorus` as CHORUS_MODELS. ENGINE: a folder of scripts/realsize/ (all of them when none is named).
# For each engine, in order: the venv DIR/venv-ENGINE made from its requirements.txt (exact pins, the lock of
# that environment; requirements-nodeps.txt installed after it with --no-deps), made again when either file
# changes; its prepare.sh DIR when it has one (sources that are not on PyPI); its build.py DIR/models. An engine
# whose stamp (DIR/models/.realsize-ENGINE, a hash of its scripts and requirements) matches is skipped:
# --force builds it again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}

dir=${CHORUS_REALSIZE:-${XDG_CACHE_HOME:-$HOME/.cache}/chorus/realsize}
force=0
engines=()
for argument in "$@"; do
  case $argument in
    --force) force=1 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build.sh: unknown option $argument (options: --force)" >&2; exit 2 ;;
    */*|.|..) dir=$argument ;;
    *) if [ -f "$here/$argument/build.py" ]; then engines+=("$argument")
       else echo "build.sh: no engine '$argument' (engines: $(cd "$here" && ls -d */ | tr -d / | tr '\n' ' ')); a folder is given with a slash, e.g. ./$argument" >&2; exit 2
       fi ;;
  esac
done
if [ ${#engines[@]} -eq 0 ]; then
  for folder in "$here"/*/; do [ -f "$folder/build.py" ] && engines+=("$(basename "$folder")"); done
fi
mkdir -p "$dir/models"
dir=$(cd "$dir" && pwd)

# The hash of everything that decides an engine's environment or output.
fingerprint() {
  (cd "$here/$1" && find . -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum) \
    | sha256sum | cut -d' ' -f1
}

venv_for() {
  local engine=$1 venv="$dir/venv-$1" wanted
  wanted=$(cat "$here/$engine/requirements.txt" "$here/$engine/requirements-nodeps.txt" 2>/dev/null | sha256sum | cut -d' ' -f1)
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements" 2>/dev/null)" = "$wanted" ]; then return; fi
  echo "realsize: $engine: making $venv (PyPI's torch alone is a few minutes)" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet -r "$here/$engine/requirements.txt"
  if [ -f "$here/$engine/requirements-nodeps.txt" ]; then
    "$venv/bin/pip" install --quiet --no-deps -r "$here/$engine/requirements-nodeps.txt"
  fi
  echo "$wanted" > "$venv/.requirements"
}

for engine in "${engines[@]}"; do
  if [ ! -f "$here/$engine/build.py" ]; then
    echo "build.sh: scripts/realsize/$engine has no build.py" >&2; exit 2
  fi
  stamp="$dir/models/.realsize-$engine"
  print=$(fingerprint "$engine")
  if [ $force -eq 0 ] && [ "$(cat "$stamp" 2>/dev/null)" = "$print" ]; then
    echo "realsize: $engine: up to date in $dir/models (--force builds it again)"
    continue
  fi
  venv_for "$engine"
  if [ -x "$here/$engine/prepare.sh" ]; then "$here/$engine/prepare.sh" "$dir"; fi
  start=$(date +%s)
  rm -f "$stamp"
  "$dir/venv-$engine/bin/python" "$here/$engine/build.py" "$dir/models"
  echo "$print" > "$stamp"
  echo "realsize: $engine: built in $(( $(date +%s) - start )) s into $dir/models"
done
echo "realsize: CHORUS_MODELS=$dir/models chorus models list"
