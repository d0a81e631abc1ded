#!/usr/bin/env bash
# The device runtime on its own (ctest RuntimeAloneRunsASignedModel): kiln_runtime_example links
# kiln_runtime only (RuntimeLinksWithoutOnnxOrProtobuf checks that no ONNX or protobuf library
# is among its dependencies). It must load a model the toolchain compiled and signed, verify it
# against the public key and run it; and refuse the same file with one byte changed, and with
# another key.
#   tests/runtime_alone_test.sh BUILD_DIR   (from the repository root)
set -euo pipefail
build=$1
shared=${KILN_SHARED_DIR:-../shared}
runtime=$build/kiln_runtime_example
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/kiln" keygen --out "$work/key" > /dev/null
"$build/kiln" keygen --out "$work/other" > /dev/null
"$build/kiln" compile "$shared/models/mnist/model.onnx" -o "$work/mnist.kiln" \
  --sign-key "$work/key.key" --compress zstd > /dev/null

out=$("$runtime" "$work/mnist.kiln" --pub "$work/key.pub")
grep -q '^loaded .*mnist.kiln: key ' <<< "$out" || { echo "no load line: $out"; exit 1; }
grep -q '^output ' <<< "$out" || { echo "no output line: $out"; exit 1; }
echo "ok: the runtime alone loaded, verified and ran the signed model"

# refused NAME FILE ARGS...: the runtime must exit non-zero with an error.
refused() {
  local name=$1
  shift
  if "$runtime" "$@" > "$work/$name.log" 2>&1; then
    echo "FAIL: $name was accepted"
    cat "$work/$name.log"
    exit 1
  fi
  grep -q '^error: ' "$work/$name.log" || { echo "FAIL: $name: no error line"; exit 1; }
  echo "ok: $name refused: $(head -1 "$work/$name.log")"
}
cp "$work/mnist.kiln" "$work/flipped.kiln"
size=$(stat -c %s "$work/flipped.kiln")
offset=$((size / 2))
byte=$(od -An -tu1 -j "$offset" -N1 "$work/flipped.kiln" | tr -d ' ')
printf "$(printf '\\%03o' $(((byte + 1) % 256)))" |
  dd of="$work/flipped.kiln" bs=1 seek="$offset" conv=notrunc status=none
refused "a flipped byte" "$work/flipped.kiln" --pub "$work/key.pub"
refused "another key" "$work/mnist.kiln" --pub "$work/other.pub"
