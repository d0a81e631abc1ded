#!/usr/bin/env bash
# Sets up what the ONNX-current suites read (tests/test_support.h PythonToolsDir):
#   DIR/venv               Python venv with pinned onnx, onnxruntime, numpy from PyPI
#   DIR/onnx-node-tests    the node test suite of that onnx release (tests/gen_onnx_node_tests.py)
#   DIR/exporter-models    small models saved at opsets 18 and 21 with IR 10, with ONNX Runtime
#                          reference outputs (tests/gen_exporter_models.py)
#   tests/setup_python_tools.sh [DIR]     (default: build-pytools in the source tree)
# Idempotent: an existing venv with the pins and already generated data are kept. Needs
# python3 with venv (Debian: python3-venv, installed by scripts/install-deps.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:-$ROOT/build-pytools}"
PYTHON="${KILN_PYTHON:-python3}"
PINS=(onnx==1.23.2 onnxruntime==1.32.0 numpy==2.4.6)

mkdir -p "$DIR"
if [[ ! -x $DIR/venv/bin/python ]]; then
  "$PYTHON" -m venv "$DIR/venv"
fi
if ! "$DIR/venv/bin/python" - "${PINS[@]}" <<'PY' 2>/dev/null; then
import sys
from importlib.metadata import version
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    if version(name) != want:
        sys.exit(1)
PY
  "$DIR/venv/bin/pip" install -q --disable-pip-version-check "${PINS[@]}"
fi
PYTHONWARNINGS=ignore "$DIR/venv/bin/python" "$ROOT/tests/gen_onnx_node_tests.py" "$DIR/onnx-node-tests"
"$DIR/venv/bin/python" "$ROOT/tests/gen_exporter_models.py" "$DIR/exporter-models"
PYTHONWARNINGS=ignore "$DIR/venv/bin/python" "$ROOT/tests/gen_quantized_models.py" "$DIR/quantized-models" \
  "${KILN_SHARED_DIR:-$ROOT/../shared}"
