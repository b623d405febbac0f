#!/usr/bin/env bash
# The one prepared device check (issue 26): every GPU-side test and timing in one call,
# sized for 8 minutes on one lent GPU; a table last, JSON in OUT_DIR/gpu_check.json.
#
#   benchmarks/gpu_check.sh [OUT_DIR] [gpu_check.py options...]
#
# On the device tool: run "benchmarks/gpu_check.sh \$OUT" with the built .venv carried.
# Without a GPU it runs the same sections on pocl at tiny sizes (--mode pocl), PyTorch
# skipped with the reason: tests/unit/test_gpu_check.py runs it that way.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR="${1:-gpu-check-out}"
shift $(( $# > 0 ? 1 : 0 ))
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
mkdir -p "$OUT_DIR"
# the JSON is written after every section, so a run cut off at the limit keeps what it did
exec timeout "${GPU_CHECK_TIMEOUT_S:-480}" "$PY" benchmarks/gpu_check.py --out "$OUT_DIR" "$@"
