#!/usr/bin/env bash
# Builds the .kiln loader fuzzer (clang + libFuzzer + ASan/UBSan) in its own build dir and runs
# it for N seconds (default 60) from a seed corpus of valid signed/unsigned files generated now.
#   scripts/fuzz-loader.sh [SECONDS] [BUILD_DIR]
# Exit status: 0 when the run found nothing; non-zero (libFuzzer's) when it crashed, leaked, hit
# undefined behaviour or timed out; the inputs are left in BUILD_DIR/fuzz-artifacts/.
# The corpus in BUILD_DIR/fuzz-corpus is kept between runs (it only grows coverage).
set -euo pipefail

SECONDS_TO_RUN="${1:-60}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${2:-$ROOT/build-fuzz}"
JOBS="${KILN_FUZZ_JOBS:-2}"

cmake -S "$ROOT" -B "$BUILD" -DKILN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_BENCH=OFF >/dev/null
make -C "$BUILD" -j"$JOBS" kiln_loader_fuzz

# Undefined behaviour is a finding too (the CMake flags let UBSan recover by default).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

FUZZER="$BUILD/serializer/kiln_loader_fuzz"
CORPUS="$BUILD/fuzz-corpus"
ARTIFACTS="$BUILD/fuzz-artifacts"
mkdir -p "$CORPUS" "$ARTIFACTS"
KILN_FUZZ_WRITE_SEEDS="$CORPUS" "$FUZZER"

echo "fuzz-loader: running for ${SECONDS_TO_RUN}s on $(ls "$CORPUS" | wc -l) corpus files"
"$FUZZER" "$CORPUS" -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 -timeout=10 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix="$ARTIFACTS/"
