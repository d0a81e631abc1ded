#!/usr/bin/env bash
# What CI runs: install dependencies (Debian packages; a pip venv with onnx/onnxruntime and the
# test data generated with it, tests/setup_python_tools.sh); build and run the whole suite under AddressSanitizer +
# UBSan (KILN_ASAN=0 skips it); the deterministic fuzz gate (scripts/fuzz.sh, fixed seed: the
# repository's seed corpora replayed plus a bounded number of new inputs per target:
# KILN_FUZZ_RUNS for the .kiln loader, KILN_ONNX_FUZZ_RUNS for the ONNX import path; 0 skips
# both); then build everything (Release, with tests) and run ctest, whose summary closes the log.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${KILN_BUILD_DIR:-build}
jobs=${KILN_JOBS:-$(nproc)}
fuzz_runs=${KILN_FUZZ_RUNS:-200000}
onnx_fuzz_runs=${KILN_ONNX_FUZZ_RUNS:-100000}
asan=${KILN_ASAN:-1}

bash scripts/install-deps.sh --fuzz
# pip onnx/onnxruntime venv, the current onnx node suite and the exporter-style models, read by
# the OnnxCurrentNodeSuite and ExporterModels tests of both builds below.
bash tests/setup_python_tools.sh "$PWD/$build_dir-pytools"
export KILN_PYTOOLS_DIR="$PWD/$build_dir-pytools"
if [[ $asan != 0 ]]; then
  # -O1 -g1 (line tables, no variable info): what the sanitizers need for their reports, and
  # about half the compile time of -O2 -g (24 instead of about 45 minutes on 2 cores, the
  # longest step of CI); the suite then runs in about 7-15 minutes.
  cmake -S . -B "$build_dir-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_SANITIZE=ON \
    -DKILN_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
  cmake --build "$build_dir-asan" -j"$jobs"
  # Each real model's second and later reference data sets run only in the Release suite
  # below: under the sanitizers they take the same code paths as the first with other
  # numbers, and cost about 6 minutes of the 2-core CI budget (densenet121_rw's second set
  # alone 160 s).
  ctest --test-dir "$build_dir-asan" --output-on-failure -j2 \
    -E 'RealModelTest\.MatchesReferenceOutputs/.*_test_data_set_[1-9]'
fi
if [[ $fuzz_runs -gt 0 ]]; then
  bash scripts/fuzz.sh loader --runs "$fuzz_runs" --build "$build_dir-fuzz"
  bash scripts/fuzz.sh onnx_import --runs "$onnx_fuzz_runs" --build "$build_dir-fuzz"
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=ON
cmake --build "$build_dir" -j"$jobs"
# Unit tests, the cross-module suites (conformance, real models, CLI bad input, model-file
# security) and the runtime link check.
ctest --test-dir "$build_dir" --output-on-failure -j2
