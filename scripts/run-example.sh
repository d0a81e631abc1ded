#!/usr/bin/env bash
# The main job on the bundled example: installs dependencies, builds kiln (Release), then
#   1. makes a signing key (kept in the build dir),
#   2. compiles SqueezeNet 1.1 from the shared corpus into a signed, zstd-compressed .kiln,
#   3. verifies the file against the public key,
#   4. runs the verified file on examples/chelsea.png and prints the top-5 ImageNet classes,
#   5. quantizes SqueezeNet to a signed int8 .kiln, calibrating on the bundled, redistributable
#      examples/calib/ images (public domain / CC0: examples/LICENSE-images.txt),
#   6. prints the top-5 of the float and the int8 model for the photo side by side.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${KILN_BUILD_DIR:-build}
shared=${KILN_SHARED_DIR:-../shared}

bash scripts/install-deps.sh
source scripts/lib/build_env.sh  # Ninja, ccache
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_BENCH=OFF \
  "${kiln_cmake_launcher[@]}" >/dev/null
cmake --build "$build_dir" --target kiln -j"$(nproc)"

model=$shared/models/squeezenet/model.onnx
labels=$shared/images/synset_words.txt
for f in "$model" "$labels"; do
  [[ -f $f ]] || { echo "run-example: $f not found (set KILN_SHARED_DIR)" >&2; exit 1; }
done
kiln=$build_dir/kiln
out=$build_dir/example
mkdir -p "$out"

echo "== 1. key"
[[ -f $out/example.key ]] || "$kiln" keygen --out "$out/example"
echo "== 2. compile + sign"
"$kiln" compile "$model" -o "$out/squeezenet.kiln" --sign-key "$out/example.key" --compress zstd
echo "== 3. verify"
"$kiln" verify "$out/squeezenet.kiln" --pub "$out/example.pub"
echo "== 4. run (SqueezeNet 1.1, Caffe preprocessing: BGR, 0..255, minus mean B=104 G=117 R=123)"
spec=resize=256,crop=224,bgr,mean=104:117:123,nchw
"$kiln" run "$out/squeezenet.kiln" --pub "$out/example.pub" --input data_0=examples/chelsea.png \
  --preprocess "$spec" --labels "$labels"
echo "== 5. quantize to int8 (calibration: the 8 bundled images of examples/calib)"
"$kiln" quantize "$model" --calib examples/calib --preprocess "$spec" -q \
  -o "$out/squeezenet_int8.kiln" --sign-key "$out/example.key" --compress zstd
echo "== 6. top-5 for examples/chelsea.png, float | int8"
top5() {  # "class  score  name" rows of `kiln run`'s top-5 list
  "$kiln" run "$1" --pub "$out/example.pub" --input data_0=examples/chelsea.png \
    --preprocess "$spec" --labels "$labels" |
    awk '/^(placement|run time)/ {exit} p && NF {printf "%5s  %-8.4f  %s\n", $1, $2, substr($0, index($0, $3))} /top-5:/ {p=1}'
}
printf '%-44s| %s\n' "float (squeezenet.kiln)" "int8 (squeezenet_int8.kiln)"
paste -d '|' <(top5 "$out/squeezenet.kiln" | awk '{printf "%-44.44s\n", $0}') <(top5 "$out/squeezenet_int8.kiln")
