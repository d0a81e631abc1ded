#!/usr/bin/env bash
# Installs dependencies, builds kiln (Release) and classifies examples/chelsea.png with
# SqueezeNet 1.1 from the shared model corpus, printing the top-5 ImageNet classes.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${KILN_BUILD_DIR:-build}
shared=${KILN_SHARED_DIR:-../shared}

bash scripts/install-deps.sh
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_BENCH=OFF
cmake --build "$build_dir" --target kiln -j"$(nproc)"

model=$shared/models/squeezenet/model.onnx
labels=$shared/images/synset_words.txt
for f in "$model" "$labels"; do
  [[ -f $f ]] || { echo "run-example: $f not found (set KILN_SHARED_DIR)" >&2; exit 1; }
done

# SqueezeNet 1.1 (Caffe): BGR, 0..255, minus mean B=104 G=117 R=123; shorter side 256, crop 224.
"$build_dir/kiln" run "$model" --input data_0=examples/chelsea.png \
  --preprocess resize=256,crop=224,bgr,mean=104:117:123,nchw \
  --labels "$labels"
