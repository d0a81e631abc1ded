#!/usr/bin/env bash
# What CI runs (.ci/run), and what a new machine runs first (README.md):
#   1. dependencies: Debian packages (scripts/install-deps.sh) and a pip venv with onnx and
#      onnxruntime and the test data made with it (tests/setup_python_tools.sh);
#   2. the sanitizer tree, BUILD-asan (clang, AddressSanitizer + UBSan, -O1): the whole suite
#      (each real model on its first reference data set), then the deterministic fuzz gate
#      (scripts/fuzz.sh: the repository's seed corpora replayed plus a bounded number of new
#      inputs, KILN_FUZZ_RUNS for the .kiln loader, KILN_ONNX_FUZZ_RUNS for the ONNX import
#      path, KILN_TFLITE_FUZZ_RUNS for the TFLite import path and KILN_TRUST_FUZZ_RUNS for the
#      trust files; KILN_FUZZ_RUNS=0 skips all four), whose targets are built in the same tree: the libraries are compiled
#      once for both;
#   3. the Release tree, BUILD (GCC, -O3, with the benchmarks, which must keep compiling): the
#      tests labelled `suite` and `binary` (ctest -L), in the build that ships: the cross-module
#      suites (conformance, every real model on every data set, the command line, model-file
#      security, the DSP sweep, the Slurm job array) and the checks of the built files. The
#      `unit` and `opencl` tests run once, in the sanitizer tree. Its ctest summary closes the log.
# KILN_ASAN=0 skips the sanitizer tree: the Release tree then builds and runs every test, and the
# fuzz gate builds its targets in a tree of their own (BUILD-fuzz).
# Every run starts from cold caches, as a new machine does: PoCL's kernel cache, Kiln's OpenCL
# program cache and anything else under XDG_CACHE_HOME point at a new folder, and each tree's
# test-cache (tests/test_environment.cmake) is emptied before its suite. What is kept between
# runs, and why it cannot change an outcome: the build trees (CMake rebuilds what changed), the
# compiler cache (ccache: scripts/lib/build_env.sh) and the Python venv (kept only while its
# pinned versions match; the data made with it carries a stamp of those versions and of the
# generator script's text).
# The time of each step is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/build_env.sh

build_dir=${KILN_BUILD_DIR:-build}
jobs=${KILN_JOBS:-$(nproc)}
fuzz_runs=${KILN_FUZZ_RUNS:-200000}
onnx_fuzz_runs=${KILN_ONNX_FUZZ_RUNS:-100000}
tflite_fuzz_runs=${KILN_TFLITE_FUZZ_RUNS:-100000}
trust_fuzz_runs=${KILN_TRUST_FUZZ_RUNS:-100000}
asan=${KILN_ASAN:-1}

step_names=()
step_seconds=()
step_start=$SECONDS
# step NAME: closes the step before (recording its time) and opens NAME.
step() {
  if ((${#step_names[@]})); then step_seconds+=($((SECONDS - step_start))); fi
  step_names+=("$1")
  step_start=$SECONDS
  echo "== test.sh: $1"
}
report_steps() {
  step_seconds+=($((SECONDS - step_start)))
  echo "== test.sh: step times"
  local i
  for i in "${!step_names[@]}"; do
    printf '  %-34s %4d:%02d\n' "${step_names[$i]}" $((step_seconds[i] / 60)) $((step_seconds[i] % 60))
  done
  printf '  %-34s %4d:%02d\n' total $((SECONDS / 60)) $((SECONDS % 60))
}

# Cold caches for everything this run starts (the compiler cache's folder was fixed above).
run_state=$(mktemp -d "${TMPDIR:-/tmp}/kiln-test.XXXXXX")
trap 'rm -rf "$run_state"' EXIT
export XDG_CACHE_HOME=$run_state/xdg POCL_CACHE_DIR=$run_state/pocl KILN_CACHE_DIR=$run_state/kiln
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/lsan.supp"
# Settings a developer's shell may carry that change what the runtime trusts, which OpenCL
# platform or tuning it takes, or what it logs: the tests set what they need themselves.
unset KILN_TRUST_DIR KILN_OPENCL_PLATFORM KILN_OPENCL_TUNE KILN_LOG_LEVEL SOURCE_DATE_EPOCH

step "dependencies"
bash scripts/install-deps.sh --fuzz
bash tests/setup_python_tools.sh "$PWD/$build_dir-pytools"
# Read by the OnnxCurrentNodeSuite, ExporterModels and quantized-import tests of both trees.
export KILN_PYTOOLS_DIR="$PWD/$build_dir-pytools"

if [[ $asan != 0 ]]; then
  step "sanitizer tree: build"
  # -O1 -g1 (line tables, no variable info): what the sanitizers' reports need, at about half
  # the compile time of -O2 -g.
  cmake -S . -B "$build_dir-asan" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_SANITIZE=ON -DKILN_FUZZ=ON -DKILN_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" "${kiln_cmake_launcher[@]}" >/dev/null
  cmake --build "$build_dir-asan" -j"$jobs"
  step "sanitizer tree: suite"
  rm -rf "$build_dir-asan/test-cache"
  # In the Release suite only: each real model's second and later reference data sets (under the
  # sanitizers they take the same code paths as the first with other numbers), and the three
  # largest random-weight architectures, whose convolutions, pools, concatenations and residual
  # adds the other models and the kernel tests already take through the sanitizers (together
  # 3.6 minutes of CPU under them).
  ctest --test-dir "$build_dir-asan" --output-on-failure -j2 \
    -E 'RealModelTest\.MatchesReferenceOutputs/(.*_test_data_set_[1-9]|(densenet121|resnet18|googlenet)_rw_)'
fi
if [[ $fuzz_runs -gt 0 ]]; then
  fuzz_tree=$build_dir-asan
  [[ $asan != 0 ]] || fuzz_tree=$build_dir-fuzz
  step "fuzz gate ($fuzz_tree)"
  bash scripts/fuzz.sh loader --runs "$fuzz_runs" --build "$fuzz_tree"
  bash scripts/fuzz.sh onnx_import --runs "$onnx_fuzz_runs" --build "$fuzz_tree"
  bash scripts/fuzz.sh tflite_import --runs "$tflite_fuzz_runs" --build "$fuzz_tree"
  bash scripts/fuzz.sh trust_files --runs "$trust_fuzz_runs" --build "$fuzz_tree"
fi

# With the sanitizer tree, the Release tree builds and runs only what that suite left to it.
release_target=(--target kiln_release_suite)
release_labels=(-L 'suite|binary')
if [[ $asan == 0 ]]; then release_target=() release_labels=(); fi
step "Release tree: build"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=ON -DKILN_BUILD_BENCH=ON \
  "${kiln_cmake_launcher[@]}" >/dev/null
cmake --build "$build_dir" -j"$jobs" "${release_target[@]}"
step "Release tree: suite"
rm -rf "$build_dir/test-cache"
set +e
ctest --test-dir "$build_dir" --output-on-failure -j2 "${release_labels[@]}" |
  tee "$run_state/release-ctest.log"
rc=${PIPESTATUS[0]}
set -e
report_steps
# ctest's summary again, so that it closes the log.
sed -n '/tests passed, /,$p' "$run_state/release-ctest.log"
exit "$rc"
