#!/usr/bin/env bash
# Copies what compare.py needs on another x86-64 Linux machine that has no Kiln dependencies
# installed and no network (the device host, docs/performance.md) into OUT:
#   OUT/kiln            a wrapper running OUT/bin/kiln with OUT/lib (its shared libraries)
#   OUT/models/NAME/    model.onnx and test_data_set_0 (inputs, reference outputs) per model
# Then, there: python3 bench/peers/compare.py --python python3 --kiln OUT/kiln
#   --models-dir OUT/models --models a,b   (python3 with onnxruntime, onnx and numpy), or
#   OUT/kiln validate OUT/models/NAME/model.onnx --test-data OUT/models/NAME/test_data_set_0.
#   bench/peers/bundle.sh OUT [--kiln build/kiln] [--models-dir ../shared/models] MODEL...
# (defaults relative to the repository, whatever the working directory)
set -euo pipefail
out=${1:?usage: bundle.sh OUT [--kiln BIN] [--models-dir DIR] MODEL...}
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
kiln=$root/build/kiln
models_dir=${KILN_SHARED_DIR:-$root/../shared}/models
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --kiln) kiln=$2 ;;
    --models-dir) models_dir=$2 ;;
    *) echo "bundle.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
mkdir -p "$out/bin" "$out/lib" "$out/models"
cp "$kiln" "$out/bin/kiln"
# Every library ldd resolves except the C and C++ runtimes, which the other machine has.
ldd "$kiln" | awk '$3 ~ /^\// {print $3}' |
  grep -vE '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^/]*|libpthread|libdl)\.so' |
  xargs -r -I{} cp -L {} "$out/lib/"
cat > "$out/kiln" <<'EOF'
#!/bin/sh
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib" exec "$here/bin/kiln" "$@"
EOF
chmod +x "$out/kiln"
for model in "$@"; do
  src="$models_dir/$model"
  dst="$out/models/$(basename "$model")"
  mkdir -p "$dst"
  cp "$src/model.onnx" "$dst/"
  cp -r "$src/test_data_set_0" "$dst/"
  chmod -R u+w "$dst"  # the shared models are read-only; a later bundle replaces them
done
du -sh "$out"
