#!/usr/bin/env bash
# bench/peers/bundle.sh: the bundle holds the model and its input, the libraries Kiln links
# resolve inside it when the wrapper's loader path is set, and the wrapper validates a model.
#   tests/peer_bundle_test.sh BUILD_DIR   (from the repository root)
set -euo pipefail
build=$1
out=$build/peer-bundle-test
rm -rf "$out"
bash bench/peers/bundle.sh "$out" --kiln "$build/kiln" mnist > /dev/null
test -f "$out/models/mnist/model.onnx"
test -f "$out/models/mnist/test_data_set_0/input_0.pb"
test -f "$out/models/mnist/test_data_set_0/output_0.pb"
deps=$(LD_LIBRARY_PATH="$out/lib" ldd "$out/bin/kiln")
grep "libonnx\.so.* => $out/lib/" <<< "$deps" > /dev/null
"$out/kiln" validate "$out/models/mnist/model.onnx" --test-data \
  "$out/models/mnist/test_data_set_0" > /dev/null
rm -rf "$out"
