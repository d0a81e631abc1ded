#!/usr/bin/env bash
# End to end on every shared model: keygen, compile + sign (zstd), verify, then validate the
# signed .kiln (loaded with --pub) against test_data_set_0. Usage:
#   scripts/e2e-shared-models.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/model_shapes.sh
build=${1:-build}
shared=${KILN_SHARED_DIR:-../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kiln=$build/kiln
"$kiln" keygen --out "$work/key" >/dev/null
failed=0
for dir in "$shared"/models/*/; do
  name=$(basename "$dir")
  [[ -f $dir/model.onnx && -d $dir/test_data_set_0 && $name != quantized ]] || continue
  read -r -a shape_args <<< "$(model_shape_args "$name")"
  if "$kiln" compile "$dir/model.onnx" -o "$work/$name.kiln" --sign-key "$work/key.key" \
       --compress zstd "${shape_args[@]}" >/dev/null &&
     "$kiln" verify "$work/$name.kiln" --pub "$work/key.pub" >/dev/null &&
     result=$("$kiln" validate "$work/$name.kiln" --pub "$work/key.pub" \
              --test-data "$dir/test_data_set_0" | tail -1); then
    printf '%-20s compile+sign OK, verify OK, validate: %s\n' "$name" "$result"
  else
    printf '%-20s FAILED\n' "$name"; failed=1
  fi
done
exit $failed
