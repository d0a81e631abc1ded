#!/usr/bin/env bash
# What CI runs: install dependencies, build everything (Release, with tests), run ctest, then
# fuzz the .kiln loader for a short time (KILN_FUZZ_SECONDS, default 60; 0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${KILN_BUILD_DIR:-build}
jobs=${KILN_JOBS:-$(nproc)}
fuzz_seconds=${KILN_FUZZ_SECONDS:-60}

bash scripts/install-deps.sh --fuzz
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=ON
cmake --build "$build_dir" -j"$jobs"
# Unit tests, the cross-module suites (conformance, real models, CLI bad input, model-file
# security) and the runtime link check.
ctest --test-dir "$build_dir" --output-on-failure -j2
if [[ $fuzz_seconds -gt 0 ]]; then
  bash scripts/fuzz-loader.sh "$fuzz_seconds" "$build_dir-fuzz"
fi
