#!/usr/bin/env bash
# Packs what bench/gpu/device_run.sh needs on a GPU machine into folder DEST: a Release kiln
# with its shared libraries (tar.gz; ldd decides which, glibc and libstdc++ excluded), the
# scripts, and the named shared models (model.onnx and test data). Usage:
#   bench/gpu/make_bundle.sh BUILD_DIR DEST MODEL...
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$1
dest=$2
shift 2
shared=${KILN_SHARED_DIR:-../shared}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$dest/models"
cp "$build/kiln" "$stage/bin/" && strip "$stage/bin/kiln"
ldd "$build/kiln" | awk '$3 ~ /^\// {print $3}' |
  grep -vE '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux|libpthread|libdl|librt)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
tar -czf "$dest/kiln-bundle.tar.gz" -C "$stage" bin lib
cp bench/gpu/device_run.sh bench/gpu/torch_baseline.py "$dest/"
for m in "$@"; do
  rm -rf "${dest:?}/models/$m"
  mkdir -p "$dest/models/$m"
  cp "$shared/models/$m/model.onnx" "$dest/models/$m/"
  cp -r "$shared/models/$m"/test_data_set_* "$dest/models/$m/"
done
du -sh "$dest"
