#!/usr/bin/env bash
# Runs on a machine with an OpenCL GPU, from a folder W holding what bench/gpu/make_bundle.sh
# put there (a Release kiln build with its libraries, the model folders, this script and
# torch_baseline.py). Modes:
#   env                       what OpenCL sees
#   validate MODEL...         every test_data_set of each model on the GPU, fp32 and fp16
#   perf MODEL...             Kiln GPU latency (kiln bench, median of 200 runs) and PyTorch
#                             eager / CUDA-graph latency of the same architectures, interleaved
#   profile MODEL             kiln bench --profile on the GPU
#   coldstart MODEL           new-process cold starts: first ever (JIT), disk cache, embedded
#                             binaries (kiln compile --target gpu --gpu-binaries-for DEVICE)
# Results go to stdout and, when set, $OUT/<mode>.txt.
set -uo pipefail
W=${W:-$(cd "$(dirname "$0")" && pwd)}
K=/tmp/kiln-gpu
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}
DEVICE_NAME=${DEVICE_NAME:-H100}

setup() {
  if [[ ! -x $K/bin/kiln ]]; then
    mkdir -p $K && tar -xzf "$W/kiln-bundle.tar.gz" -C $K || exit 1
  fi
  export LD_LIBRARY_PATH=$K/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # NVIDIA's OpenCL driver may be present without a vendors file (only PoCL's, say): register
  # it through OCL_ICD_VENDORS and prefer its platform.
  if [[ -z ${OCL_ICD_VENDORS:-} ]]; then
    local lib
    lib=$(find /usr/local/nvidia /usr/lib /usr/lib64 /lib /opt -name 'libnvidia-opencl.so*' \
      2>/dev/null | sort | head -1)
    if [[ -n $lib ]]; then
      mkdir -p /tmp/icd && echo "$lib" >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
      export KILN_OPENCL_PLATFORM=${KILN_OPENCL_PLATFORM:-NVIDIA}
    fi
  fi
  export KILN_CACHE_DIR=${KILN_CACHE_DIR:-/tmp/kiln-cache}
  KILN=$K/bin/kiln
  if [[ ! -f /tmp/kiln-key.key ]]; then $KILN keygen --out /tmp/kiln-key >/dev/null; fi
}

shape_args() {
  case $1 in
    mobilenetv2) echo "--input-shape input=1,3,224,224" ;;
    ppocr_det) echo "--input-shape x=1,3,320,320" ;;
    ppocr_cls) echo "--input-shape x=1,3,48,192" ;;
    ppocr_rec) echo "--input-shape x=1,3,48,320" ;;
    super_resolution) echo "--input-shape input=1,1,224,224" ;;
  esac
}

# Compiles MODEL for the GPU into /tmp/MODEL.kiln, signed (extra flags after the name).
compile() {
  local m=$1
  shift
  read -r -a sa <<<"$(shape_args "$m")"
  $KILN compile "$W/models/$m/model.onnx" -o "/tmp/$m.kiln" --target gpu \
    --sign-key /tmp/kiln-key.key "${sa[@]}" "$@" >/dev/null
}

mode_env() {
  uname -a
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | head -3
  ls -la /etc/OpenCL/vendors 2>&1
  echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-} $(cat /tmp/icd/nvidia.icd 2>/dev/null)"
  find / -name 'libnvidia-opencl*' 2>/dev/null | head -5
  $KILN --version
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name())'
}

mode_validate() {
  for m in "$@"; do
    compile "$m" || { echo "$m: compile FAILED"; continue; }
    for d in "$W"/models/"$m"/test_data_set_*; do
      [[ -d $d ]] || continue
      local r32 r16
      r32=$($KILN validate "/tmp/$m.kiln" --pub /tmp/kiln-key.pub --test-data "$d" --device gpu \
        2>&1 | grep -E '^(PASS|FAIL)|placement|rror' | tr '\n' ' ')
      r16=$($KILN validate "/tmp/$m.kiln" --pub /tmp/kiln-key.pub --test-data "$d" --device gpu \
        --gpu-precision fp16 --min-sqnr 35 2>&1 | grep -E '^(PASS|FAIL) ' | head -1)
      echo "$m $(basename "$d") fp32: $r32"
      echo "$m $(basename "$d") fp16: $r16"
    done
  done
}

mode_perf() {
  for m in "$@"; do compile "$m" || echo "$m: compile FAILED"; done
  for round in 1 2; do
    for m in "$@"; do
      echo "kiln $m round $round: $($KILN bench "/tmp/$m.kiln" --pub /tmp/kiln-key.pub \
        --device gpu --runs "$RUNS" --warmup "$WARMUP" --json | tr -d '\n ')"
      echo "torch $m round $round: $(python3 "$W/torch_baseline.py" "$m" --runs "$RUNS" \
        --warmup "$WARMUP")"
    done
  done
}

mode_profile() {
  compile "$1" && $KILN bench "/tmp/$1.kiln" --pub /tmp/kiln-key.pub --device gpu --runs 50 \
    --warmup 10 --profile
}

# One new process: load + verify + session (+ first run); wall time of the whole process too.
cold() {
  local label=$1
  shift
  local t0 t1 out
  t0=$(date +%s%N)
  out=$("$@" 2>&1)
  t1=$(date +%s%N)
  echo "$label: process $(((t1 - t0) / 1000000)) ms; $(echo "$out" | tr -d '\n ' | \
    grep -oE '"load_ms":[^,]*,"session_ms":[^,]*,"first_run_ms":[^,]*,"cold_start_ms":[^,]*')"
  echo "$out" | grep -E 'opencl' | head -3
}

mode_coldstart() {
  local m=$1
  read -r -a sa <<<"$(shape_args "$m")"
  compile "$m"
  local bench=(bench "/tmp/$m.kiln" --pub /tmp/kiln-key.pub --device gpu --runs 1 --warmup 0 --json)
  local fresh=/tmp/cold-$$
  rm -rf $fresh && mkdir -p $fresh
  cold "first-ever start (JIT, empty Kiln and CUDA caches)" \
    env KILN_CACHE_DIR=$fresh/kiln CUDA_CACHE_PATH=$fresh/cuda $KILN "${bench[@]}"
  for i in 1 2 3; do
    cold "cached binaries, start $i" env KILN_CACHE_DIR=$fresh/kiln CUDA_CACHE_PATH=$fresh/cuda \
      $KILN "${bench[@]}"
  done
  # Embedded: binaries and tuning made on this device by the compiler, no Kiln disk cache.
  $KILN compile "$W/models/$m/model.onnx" -o "/tmp/$m.bin.kiln" --target gpu \
    --gpu-binaries-for "$DEVICE_NAME" --sign-key /tmp/kiln-key.key "${sa[@]}"
  local bench2=(bench "/tmp/$m.bin.kiln" --pub /tmp/kiln-key.pub --device gpu --runs 1 --warmup 0
    --json)
  cold "embedded binaries, no Kiln cache, empty CUDA cache" \
    env KILN_CACHE_DIR=- CUDA_CACHE_PATH=$fresh/cuda2 $KILN "${bench2[@]}"
  for i in 1 2 3; do
    cold "embedded binaries, no Kiln cache, start $i" \
      env KILN_CACHE_DIR=- CUDA_CACHE_PATH=$fresh/cuda2 $KILN "${bench2[@]}"
  done
  ls -la "/tmp/$m.kiln" "/tmp/$m.bin.kiln"
  $KILN inspect "/tmp/$m.bin.kiln" --pub /tmp/kiln-key.pub | tail -3
}

setup
mode=$1
shift
if [[ -n ${OUT:-} ]]; then
  "mode_$mode" "$@" 2>&1 | tee -a "$OUT/$mode.txt"
else
  "mode_$mode" "$@"
fi
