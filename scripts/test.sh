#!/usr/bin/env bash
# What CI runs: install dependencies, build everything (Release, with tests) and run ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${KILN_BUILD_DIR:-build}
jobs=${KILN_JOBS:-$(nproc)}

bash scripts/install-deps.sh
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=ON
cmake --build "$build_dir" -j"$jobs"
# Unit tests, the cross-module suites (conformance, real models, CLI bad input) and the rest.
ctest --test-dir "$build_dir" --output-on-failure -j2
