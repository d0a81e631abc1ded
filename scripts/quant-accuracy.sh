#!/usr/bin/env bash
# Measures `kiln quantize` accuracy on the shared models and photos (docs/quantization.md,
# "Results"): int8 against fp32 of the same model with `kiln eval`, calibrating on
# ../shared/images/calib (100 photos) and evaluating on ../shared/images/eval (200 photos).
#
#   scripts/quant-accuracy.sh [BUILD_DIR] [OUT_DIR] STEP...
#
# STEP: default (squeezenet + mobilenetv2, default options), int16 (--act sym-i16), budget
# (accuracy budget top1:1, int16 steps first:
# agreement >= 99 % on the calibration photos), budget0 (top1:0: all of them), table and
# table2 (algo x act x equalize/bias-correct rows), mnist, ppocr (output SQNR on their test
# data, calibrated on text found in the shared photos; needs a python3 with numpy, Pillow, onnx
# and onnxruntime: $KILN_PYTHON, e.g. build/venv-ort/bin/python), size.
# KILN_ROWS=REGEX runs only the rows whose "MODEL TAG" matches (e.g. 'squeezenet (minmax|kl)').
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
only=${KILN_ROWS:-.}  # a regular expression on "MODEL TAG": run only the rows it matches
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
  [[ "$name $tag" =~ $only ]] || return 0
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

# ppocr_row det|cls|rec TAG [quantize flags...]: quantize calibrating on the text data, run
# the int8 and the float model on test_data_set_0, print the output SQNR against float.
ppocr_row() {
  local m=$1 tag=$2 sh
  shift 2
  case $m in
    det) sh=1,3,320,320 ;;
    cls) sh=1,3,48,192 ;;
    rec) sh=1,3,48,320 ;;
  esac
  local d=$shared/models/ppocr_$m r=$out/ppocr_${m}_$tag
  [[ -s $r.sqnr ]] && return 0
  [[ "ppocr_$m $tag" =~ $only ]] || return 0
  local t0=$SECONDS
  nice -n 10 "$kiln" quantize "$d/model.onnx" --input-shape "x=$sh" --calib "$out/ppocr-calib/$m" \
    --threads "$threads" -q "$@" -o "$r.kiln" > "$r.quantize.txt"
  rm -rf "${r}_f32" "${r}_i8"
  nice -n 10 "$kiln" run "$d/model.onnx" --input-shape "x=$sh" --input "x=$d/test_data_set_0/input_0.pb" \
    -o "${r}_f32" > /dev/null
  nice -n 10 "$kiln" run "$r.kiln" --allow-unsigned --input "x=$d/test_data_set_0/input_0.pb" \
    -o "${r}_i8" > /dev/null
  "$py" - "${r}_f32" "${r}_i8" > "$r.sqnr.tmp" <<'PY'
import os, sys
import numpy as np
for f in sorted(os.listdir(sys.argv[1])):
    a = np.load(os.path.join(sys.argv[1], f)).astype(np.float64)
    b = np.load(os.path.join(sys.argv[2], f)).astype(np.float64)
    sqnr = 10 * np.log10((a * a).sum() / ((a - b) ** 2).sum())
    cos = (a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum())
    print(f"{f[:-4]}: SQNR {sqnr:.2f} dB, cosine {cos:.6f}, max |diff| {np.abs(a - b).max():.4g}")
PY
  mv "$r.sqnr.tmp" "$r.sqnr"
  local flags="$*"
  (( ${#flags} <= 80 )) || flags="${flags:0:80}... ($# arguments)"
  log "ppocr_$m $tag [$flags] $(cat "$r.sqnr") $(grep -o '^algo auto: chose [^ ]*' "$r.quantize.txt") size $(stat -c %s "$r.kiln") onnx $(stat -c %s "$d/model.onnx") ($((SECONDS - t0)) s)"
}

for step in "$@"; do
  case $step in
    default)
      for m in squeezenet mobilenetv2; do row "$m" default; done ;;
    budget)
      for m in squeezenet mobilenetv2; do
        # Measured on the calibration photos, so the eval figures stay unbiased. The budget
        # starts from the default row's model: the algo `--algo auto` chose there (its
        # quantize.txt) is passed on, instead of repeating auto's three int8 passes.
        local_algo=$(sed -n 's/^algo auto: chose \([^ ]*\) .*/\1/p' "$out/${m}_default.quantize.txt" 2>/dev/null || true)
        row "$m" budget --algo "${local_algo:-auto}" --budget top1:1 --budget-images "$img/calib"
      done ;;
    budget0)  # the strictest top-1 budget: every calibration photo agrees with float
      for m in squeezenet mobilenetv2; do
        local_algo=$(sed -n 's/^algo auto: chose \([^ ]*\) .*/\1/p' "$out/${m}_default.quantize.txt" 2>/dev/null || true)
        row "$m" budget0 --algo "${local_algo:-auto}" --budget top1:0 --budget-images "$img/calib"
      done ;;
    int16)  # every activation int16, weights int8 (the reference kernels run it)
      for m in squeezenet mobilenetv2; do row "$m" int16 --act sym-i16; done ;;
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
      # Calibration data: the photos in which the float ppocr_det finds text (det) and the
      # text lines it finds, cropped (cls, rec), made by scripts/ppocr_calib_data.py (needs
      # onnxruntime in $KILN_PYTHON); the test photos are not among them.
      pc=$out/ppocr-calib
      [[ -d $pc/rec ]] || nice -n 10 "$py" scripts/ppocr_calib_data.py --shared "$shared" --out "$pc"
      for m in det cls rec; do
        ppocr_row "$m" default
        ppocr_row "$m" minmax --algo minmax
        # Every activation int16 (weights int8).
        ppocr_row "$m" int16 --act sym-i16
      done
      # ppocr_det is limited by its int8 weights once activations are int16: the depthwise
      # convolutions' weights int16 too, and bias correction.
      ppocr_row det int16-dw-bc --act sym-i16 --int16 @depthwise --bias-correct
      # ppocr_det with its backbone (every node before the neck's first Conv, p2o.Conv.33)
      # kept in float: the backbone is where its 8-bit error builds up (docs/quantization.md).
      backbone=$("$py" -c 'import onnx, sys
names = [n.name for n in onnx.load(sys.argv[1]).graph.node if n.op_type != "Constant"]
print(",".join(names[:names.index("p2o.Conv.33")]))' "$shared/models/ppocr_det/model.onnx")
      ppocr_row det float-backbone --algo minmax --keep-float "$backbone" ;;
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
