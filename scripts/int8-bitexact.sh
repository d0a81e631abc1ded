#!/usr/bin/env bash
# Runs quantized models at every int8 kernel flavour (--isa reference, scalar, avx2, avx512vnni;
# 1 and 2 threads) on their test inputs and checks every output is byte-identical to the
# reference kernels' (the fast int8 kernels are bit-exact by contract, docs/quantization.md).
#
#   scripts/int8-bitexact.sh BUILD_DIR MODEL INPUT [MODEL INPUT...]
# MODEL: .kiln (unsigned allowed) or .onnx; INPUT: a .pb/.npy input file. Where an output
# differs (a float op after the integer part, e.g. SqueezeNet's Softmax, runs on the fp32 fast
# kernels, which are close to the reference, not equal), its max |difference| is printed with
# $KILN_PYTHON (numpy; default build-peers/venv/bin/python).
set -euo pipefail
build=$1
shift
kiln=$(realpath "$build/kiln")
py=${KILN_PYTHON:-$(dirname "$0")/../build-peers/venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
while [[ $# -ge 2 ]]; do
  model=$1 input=$2
  shift 2
  rm -rf "$tmp/ref"
  "$kiln" run "$model" -i "$input" --isa reference --allow-unsigned -o "$tmp/ref" >/dev/null
  for isa in scalar avx2 avx512vnni; do
    for t in 1 2; do
      rm -rf "$tmp/got"
      "$kiln" run "$model" -i "$input" --isa $isa --threads $t --allow-unsigned -o "$tmp/got" >/dev/null
      for f in "$tmp"/ref/*.npy; do
        if cmp -s "$f" "$tmp/got/$(basename "$f")"; then
          echo "same   $(basename "$model") isa $isa threads $t $(basename "$f")"
        else
          d=$("$py" -c 'import numpy as n, sys; a, b = n.load(sys.argv[1]), n.load(sys.argv[2]); print("max |diff| %.3g of max |ref| %.3g" % (abs(a.astype(float) - b).max(), abs(a).max()))' "$f" "$tmp/got/$(basename "$f")" 2>&1)
          echo "DIFFER $(basename "$model") isa $isa threads $t $(basename "$f"): $d"
          status=1
        fi
      done
    done
  done
done
exit $status
