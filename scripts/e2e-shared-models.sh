#!/usr/bin/env bash
# End to end on every shared model: keygen; compile at the default level + sign (zstd) with 1
# and with 2 streams; verify; then validate each signed .kiln (loaded with --pub, 2 threads)
# against every test_data_set_N. Usage:
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
  for streams in 1 2; do
    file="$work/$name.$streams.kiln"
    if ! "$kiln" compile "$dir/model.onnx" -o "$file" --sign-key "$work/key.key" --compress zstd \
           --streams "$streams" "${shape_args[@]}" >/dev/null ||
       ! "$kiln" verify "$file" --pub "$work/key.pub" >/dev/null; then
      printf '%-20s %d stream(s): compile/verify FAILED\n' "$name" "$streams"; failed=1
      continue
    fi
    for set in "$dir"/test_data_set_*/; do
      if result=$("$kiln" validate "$file" --pub "$work/key.pub" --threads 2 \
                  --test-data "$set" | tail -1); then
        printf '%-20s %d stream(s) %s: compile+sign OK, verify OK, validate: %s\n' "$name" \
          "$streams" "$(basename "$set")" "$result"
      else
        printf '%-20s %d stream(s) %s: validate FAILED\n' "$name" "$streams" "$(basename "$set")"
        failed=1
      fi
    done
  done
done
exit $failed
