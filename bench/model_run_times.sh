#!/usr/bin/env bash
# Median `kiln run` time per shared model on the CPU reference executor (for the record:
# the reference kernels are the oracle, not the fast path). Usage:
#   bench/model_run_times.sh [BUILD_DIR] [REPEAT]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
repeat=${2:-5}
shared=${KILN_SHARED_DIR:-../shared}
printf '%-20s %-22s %12s\n' model input "median ms"
for dir in "$shared"/models/*/; do
  name=$(basename "$dir")
  set0=$dir/test_data_set_0
  [[ -f $dir/model.onnx && -d $set0 ]] || continue
  inputs=()
  for pb in "$set0"/input_*.pb; do inputs+=(--input "$pb"); done
  out=$("$build/kiln" run "$dir/model.onnx" --isa reference --repeat "$repeat" "${inputs[@]}" 2>&1) || {
    printf '%-20s %s\n' "$name" "FAILED: $(echo "$out" | tail -1)"; continue; }
  ms=$(echo "$out" | sed -n 's/^run time: \([0-9.]*\) ms.*/\1/p')
  printf '%-20s %-22s %12s\n' "$name" "$(basename "$set0")" "$ms"
done
