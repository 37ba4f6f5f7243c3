#!/usr/bin/env bash
# Issue 7's benchmarks in one run: Silero VAD speed against the silero-vad package (same audio,
# one thread each), then recognition on a FastConformer-Large-sized stand-in with the time spent
# outside ONNX Runtime's Run. PYTHON must have torch and silero-vad 6.2.3 (see bench/vad_speed.py).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
swift build -c release --product chorus >/dev/null
"$python" bench/vad_speed.py --no-build
echo
"$python" bench/asr_bench.py --no-build "$@"
