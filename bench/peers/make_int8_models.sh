#!/usr/bin/env bash
# Quantizes the shared fp32 models that have an int8 row (squeezenet, mobilenetv2, resnet18_rw)
# into OUT_DIR/NAME_int8.kiln with `kiln quantize` (default options, calibrating on
# ../shared/images/calib with the preprocessing of scripts/quant-accuracy.sh), for
# bench/peers/int8_vs_fp32.py. Calibration statistics are computed once per model and reused
# (OUT_DIR/NAME.stats).
#
#   bench/peers/make_int8_models.sh [BUILD_DIR] [OUT_DIR] [NAME...]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-build/int8-models}
shift 2 || true
kiln=${KILN_BIN:-$(realpath "$build/kiln")}
shared=$(realpath "${KILN_SHARED_DIR:-../shared}")
mkdir -p "$out"
declare -A spec=(
  [squeezenet]="resize=256,crop=224,bgr,mean=104:117:123"
  [mobilenetv2]="resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,rgb"
  [resnet18_rw]="resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,rgb"
)
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(squeezenet mobilenetv2 resnet18_rw)
for name in "${names[@]}"; do
  src=$shared/models/$name/model.onnx
  stats=$out/$name.stats
  # One fixed range algorithm (what --algo auto picks for mobilenetv2): auto would measure its
  # candidates on the calibration photos with the quantizer's own (reference-kernel) sessions,
  # minutes per model, and the algorithm changes ranges, not the kernels' speed.
  if [[ ! -s $stats ]]; then
    nice -n 10 "$kiln" quantize "$src" --calib "$shared/images/calib" --preprocess "${spec[$name]}" \
      --stats-out "$stats" --algo percentile:99.99 --threads 2 -q -o "$out/${name}_int8.kiln"
  fi
  nice -n 10 "$kiln" quantize "$src" --stats "$stats" --algo percentile:99.99 \
    --preprocess "${spec[$name]}" -q -o "$out/${name}_int8.kiln"
  echo "wrote $out/${name}_int8.kiln"
done
