#!/usr/bin/env bash
# Measures `kiln quantize` accuracy on the shared models and photos (docs/quantization.md,
# "Results"): int8 against fp32 of the same model with `kiln eval`, calibrating on
# ../shared/images/calib (100 photos) and evaluating on ../shared/images/eval (200 photos).
#
#   scripts/quant-accuracy.sh [BUILD_DIR] [OUT_DIR] STEP...
#
# STEP: default (squeezenet + mobilenetv2, default options), budget (accuracy budget top1:1:
# agreement >= 99 % on the calibration photos), table (algo x act x equalize/bias-correct rows), mnist, ppocr (output
# SQNR on their test data; needs python3 with numpy: $KILN_PYTHON), size.
# Every result is one JSON file in OUT_DIR (kept: rerunning skips finished rows), and one line
# is appended to OUT_DIR/results.txt. Calibration statistics are computed once per model (and
# once more with --equalize) and reused with --stats by every row.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-build/quant-accuracy}
shift 2 || true
kiln=$(realpath "$build/kiln")
shared=$(realpath "${KILN_SHARED_DIR:-../shared}")
py=${KILN_PYTHON:-python3}
threads=${KILN_THREADS:-2}
mkdir -p "$out"
img=$shared/images

declare -A model=(
  [squeezenet]=$shared/models/squeezenet/model.onnx
  [mobilenetv2]=$shared/models/mobilenetv2/model.onnx
  [resnet18_rw]=$shared/models/resnet18_rw/model.onnx
)
declare -A spec=(
  [squeezenet]="resize=256,crop=224,bgr,mean=104:117:123"
  [mobilenetv2]="resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,rgb"
  [resnet18_rw]="resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,rgb"
)

log() { echo "$*" | tee -a "$out/results.txt"; }

# stats NAME [--equalize]: calibration statistics of NAME (once).
stats() {
  local name=$1 eq=${2:-} f="$out/$1${2:+_eq}.stats"
  if [[ ! -s $f ]]; then
    nice -n 10 "$kiln" quantize "${model[$name]}" --calib "$img/calib" --preprocess "${spec[$name]}" \
      $eq --stats-out "$f" --threads "$threads" -q >/dev/null
  fi
  echo "$f"
}

# row NAME TAG [quantize flags...]: quantize with the flags, evaluate against fp32.
row() {
  local name=$1 tag=$2
  shift 2
  local kf="$out/${name}_$tag.kiln" jf="$out/${name}_$tag.json" eq=
  [[ -s $jf ]] && return 0
  for f in "$@"; do [[ $f == --equalize ]] && eq=--equalize; done
  local st
  st=$(stats "$name" $eq)
  local t0=$SECONDS
  if ! grep -q "^wrote $kf" "$out/${name}_$tag.quantize.txt" 2>/dev/null; then
    nice -n 10 "$kiln" quantize "${model[$name]}" --calib "$img/calib" --preprocess "${spec[$name]}" \
      --stats "$st" --threads "$threads" -q "$@" -o "$kf" > "$out/${name}_$tag.quantize.txt"
  fi
  nice -n 10 "$kiln" eval "$kf" --allow-unsigned --images "$img/eval" --labels "$img/labels.txt" \
    --preprocess "${spec[$name]}" --compare "${model[$name]}" --threads "$threads" --json -q > "$jf.tmp"
  mv "$jf.tmp" "$jf"
  log "$name $tag [$*] $(cat "$jf") size $(stat -c %s "$kf") onnx $(stat -c %s "${model[$name]}") ($((SECONDS - t0)) s)"
}

for step in "$@"; do
  case $step in
    default)
      for m in squeezenet mobilenetv2; do row "$m" default; done ;;
    budget)
      for m in squeezenet mobilenetv2; do
        # Measured on the calibration photos, so the eval figures stay unbiased.
        row "$m" budget --budget top1:1 --budget-images "$img/calib"
      done ;;
    table)
      for m in squeezenet mobilenetv2; do
        for algo in minmax percentile kl mse; do row "$m" "${algo}_asym-u8" --algo "$algo"; done
        row "$m" bc --bias-correct
        row "$m" mse_sym-i8 --algo mse --act sym-i8
      done ;;
    table2)  # the remaining combinations, when there is time
      for m in squeezenet mobilenetv2; do
        for algo in minmax percentile kl; do row "$m" "${algo}_sym-i8" --algo "$algo" --act sym-i8; done
        row "$m" eq --equalize
        row "$m" eq_bc --equalize --bias-correct
      done ;;
    mnist)
      jf=$out/mnist.json
      if [[ ! -s $jf ]]; then
        nice -n 10 "$kiln" quantize "$shared/models/mnist/model.onnx" \
          --calib "$shared/digits/t10k-images-first1000-idx3-ubyte" --calib-count 100 \
          --preprocess gray -q -o "$out/mnist.kiln" > "$out/mnist.quantize.txt"
        nice -n 10 "$kiln" eval "$out/mnist.kiln" --allow-unsigned --images "$shared/digits/t10k-images-first1000-idx3-ubyte" \
          --labels "$shared/digits/t10k-labels-first1000-idx1-ubyte" --preprocess gray \
          --compare "$shared/models/mnist/model.onnx" --json -q > "$jf"
        log "mnist default $(cat "$jf")"
      fi ;;
    ppocr)
      for m in det cls rec; do
        case $m in
          det) sp="resize=320x320,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,bgr"; sh=1,3,320,320 ;;
          cls) sp="resize=192x48,scale=1/255,mean=0.5,std=0.5,bgr"; sh=1,3,48,192 ;;
          rec) sp="resize=320x48,scale=1/255,mean=0.5,std=0.5,bgr"; sh=1,3,48,320 ;;
        esac
        d=$shared/models/ppocr_$m
        [[ -s $out/ppocr_$m.sqnr ]] && continue
        # The first 30 photos (reading scenes are not text lines; the time is better spent elsewhere).
        nice -n 10 "$kiln" quantize "$d/model.onnx" --input-shape "x=$sh" --calib "$img/calib" \
          --calib-count 30 --preprocess "$sp" --threads "$threads" -q -o "$out/ppocr_$m.kiln" \
          > "$out/ppocr_$m.quantize.txt"
        rm -rf "$out/ppocr_${m}_f32" "$out/ppocr_${m}_i8"
        nice -n 10 "$kiln" run "$d/model.onnx" --input-shape "x=$sh" --input "x=$d/test_data_set_0/input_0.pb" \
          -o "$out/ppocr_${m}_f32" > /dev/null
        nice -n 10 "$kiln" run "$out/ppocr_$m.kiln" --allow-unsigned --input "x=$d/test_data_set_0/input_0.pb" \
          -o "$out/ppocr_${m}_i8" > /dev/null
        "$py" - "$out/ppocr_${m}_f32" "$out/ppocr_${m}_i8" > "$out/ppocr_$m.sqnr" <<'PY'
import os, sys
import numpy as np
for f in sorted(os.listdir(sys.argv[1])):
    a = np.load(os.path.join(sys.argv[1], f)).astype(np.float64)
    b = np.load(os.path.join(sys.argv[2], f)).astype(np.float64)
    sqnr = 10 * np.log10((a * a).sum() / ((a - b) ** 2).sum())
    cos = (a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum())
    print(f"{f[:-4]}: SQNR {sqnr:.2f} dB, cosine {cos:.6f}, max |diff| {np.abs(a - b).max():.4g}")
PY
        log "ppocr_$m $(cat "$out/ppocr_$m.sqnr") size $(stat -c %s "$out/ppocr_$m.kiln") onnx $(stat -c %s "$d/model.onnx")"
      done ;;
    size)
      for m in mobilenetv2 resnet18_rw; do
        f=$out/${m}_size.kiln
        [[ -s $f ]] || nice -n 10 "$kiln" quantize "${model[$m]}" --calib "$img/calib" --calib-count 20 \
          --preprocess "${spec[$m]}" --algo mse --threads "$threads" -q -o "$f" > /dev/null
        log "size $m int8 .kiln $(stat -c %s "$f") B, fp32 onnx $(stat -c %s "${model[$m]}") B: $(awk "BEGIN{printf \"%.1f\", 100*$(stat -c %s "$f")/$(stat -c %s "${model[$m]}")}") %"
      done ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
