#!/usr/bin/env bash
# The DSP target on every quantized shared model (docs/dsp-target.md, "Results"): quantizes each
# model with a small calibration set (the DSP's correctness does not depend on the accuracy:
# any valid integer graph must come out bit-identical) with --target dsp (the command streams,
# tiled for 256 KiB, go into the file), runs its test input on the CPU integer reference
# kernels, on the DSP with the file's command streams, and on the DSP re-planned for 32 KiB with
# every access checked (--dsp-instrument), and requires bit-identical output files. Also the
# zoo's pre-quantized mobilenetv2-12-int8. Then the DMA traffic of mobilenetv2 and resnet18_rw
# compiled for 32 KiB, 256 KiB and 1 MiB (kiln bench --device dsp --profile).
#   scripts/dsp-sweep.sh [BUILD_DIR] [OUT_DIR] [MODEL...]
# Exit status: non-zero when any output differs or any run fails; 77 without the shared models.
# ctest runs it on mnist and the zoo's mobilenetv2-12-int8 (DspSharedModels, seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$build/dsp-sweep}
shift 2 || true
kiln=$(realpath "$build/kiln")
if [[ ! -d ${KILN_SHARED_DIR:-../shared}/models ]]; then
  echo "dsp-sweep: no shared models at ${KILN_SHARED_DIR:-../shared}; skipped"
  exit 77
fi
shared=$(realpath "${KILN_SHARED_DIR:-../shared}")
calib_count=${KILN_DSP_CALIB:-4}
mkdir -p "$out"
# KILN_DSP_FRESH=1 (ctest) re-quantizes instead of reusing the .kiln files of an earlier run.
[[ ${KILN_DSP_FRESH:-0} == 1 ]] && rm -f "$out"/*.kiln
imagenet="resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,rgb"

declare -A spec=(
  [squeezenet]="resize=256,crop=224,bgr,mean=104:117:123"
  [mobilenetv2]=$imagenet [resnet18_rw]=$imagenet [densenet121_rw]=$imagenet
  [efficientnet_b0_rw]=$imagenet [googlenet_rw]=$imagenet [shufflenetv2_rw]=$imagenet
  [ppocr_det]="resize=320x320,scale=1/255,mean=0.485:0.456:0.406,std=0.229:0.224:0.225,bgr"
  [ppocr_cls]="resize=192x48,scale=1/255,mean=0.5,std=0.5,bgr"
  [ppocr_rec]="resize=320x48,scale=1/255,mean=0.5,std=0.5,bgr"
)
declare -A shape=([ppocr_det]="x=1,3,320,320" [ppocr_cls]="x=1,3,48,192" [ppocr_rec]="x=1,3,48,320")
models=("$@")
[[ ${#models[@]} -gt 0 ]] || models=(mnist squeezenet mobilenetv2 resnet18_rw ppocr_cls ppocr_rec ppocr_det
  shufflenetv2_rw googlenet_rw efficientnet_b0_rw densenet121_rw mobilenetv2-12-int8)

failed=0
compare() {  # compare NAME MODEL INPUT
  local name=$1 model=$2 input=$3
  rm -rf "$out/${name}_cpu" "$out/${name}_dsp" "$out/${name}_dsp32k"
  nice -n 10 "$kiln" run "$model" --allow-unsigned --isa reference --input "$input" -o "$out/${name}_cpu" > "$out/$name.cpu.txt"
  nice -n 10 "$kiln" run "$model" --allow-unsigned --isa reference --device dsp --input "$input" \
    -o "$out/${name}_dsp" > "$out/$name.dsp.txt"
  nice -n 10 "$kiln" run "$model" --allow-unsigned --isa reference --device dsp --dsp-scratch 32K \
    --dsp-instrument --input "$input" -o "$out/${name}_dsp32k" > "$out/$name.dsp32k.txt"
  local placement
  placement=$(grep -m1 -o 'placement: .*' "$out/$name.dsp.txt" || true)
  if diff -r -q "$out/${name}_cpu" "$out/${name}_dsp" > /dev/null &&
     diff -r -q "$out/${name}_cpu" "$out/${name}_dsp32k" > /dev/null; then
    echo "$name: bit-identical (256 KiB and 32 KiB instrumented); $placement"
  else
    echo "$name: DIFFERENT outputs; $placement"
    failed=1
  fi
}

for m in "${models[@]}"; do
  if [[ $m == mobilenetv2-12-int8 ]]; then
    d=$shared/models/quantized/$m
    compare "$m" "$d/model.onnx" "$d/test_data_set_0/input_0.pb"
    continue
  fi
  d=$shared/models/$m
  kf=$out/$m.kiln
  if [[ ! -s $kf ]]; then
    if [[ $m == mnist ]]; then
      nice -n 10 "$kiln" quantize "$d/model.onnx" --calib "$shared/digits/t10k-images-first1000-idx3-ubyte" \
        --calib-count 20 --preprocess gray --algo minmax -q --target dsp -o "$kf" > "$out/$m.quantize.txt"
    else
      extra=()
      [[ -n ${shape[$m]:-} ]] && extra=(--input-shape "${shape[$m]}")
      nice -n 10 "$kiln" quantize "$d/model.onnx" "${extra[@]}" --calib "$shared/images/calib" \
        --calib-count "$calib_count" --holdout 0 --preprocess "${spec[$m]}" --algo minmax -q \
        --target dsp -o "$kf" > "$out/$m.quantize.txt"
    fi
  fi
  compare "$m" "$kf" "$d/test_data_set_0/input_0.pb"
done

# DMA traffic per inference against the minimum at 32 KiB, 256 KiB and 1 MiB: each size compiled
# into its own file (--dsp-scratch at quantize time chooses the fused chains, the tiling and the
# double buffering for that size), run with its chains and without (--dsp-unfused).
for m in mobilenetv2 resnet18_rw; do
  [[ -s $out/$m.kiln ]] || continue
  d=$shared/models/$m
  for s in 32K 256K 1M; do
    kf=$out/$m.$s.kiln
    if [[ ! -s $kf ]]; then
      nice -n 10 "$kiln" quantize "$d/model.onnx" --calib "$shared/images/calib" \
        --calib-count "$calib_count" --holdout 0 --preprocess "${spec[$m]}" --algo minmax -q \
        --target dsp --dsp-scratch "$s" -o "$kf" > "$out/$m.$s.quantize.txt"
    fi
    for mode in fused unfused; do
      flags=()
      [[ $mode == unfused ]] && flags=(--dsp-unfused)
      nice -n 10 "$kiln" bench "$kf" --allow-unsigned --device dsp "${flags[@]}" --runs 1 \
        --warmup 0 --profile > "$out/$m.bench.$s.$mode.txt"
      echo "$m @ $s $mode: $(grep -E '^DSP per inference|^DMA minimum|^fused chains|^estimated DSP' "$out/$m.bench.$s.$mode.txt" | tr '\n' ' ')"
    done
  done
done
exit $failed
