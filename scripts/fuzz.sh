#!/usr/bin/env bash
# Builds a libFuzzer target (clang + libFuzzer + ASan/UBSan, tests/fuzz/) in its own build dir
# and runs it.
#   scripts/fuzz.sh TARGET [--runs N] [--seconds S] [--seed N] [--build DIR] [--keep-corpus]
# TARGET: loader (the .kiln loader), onnx_import (the ONNX import path of `kiln inspect`),
# tflite_import (the TFLite import path of `kiln inspect`) or trust_files (revoked.txt, the
# version counter file, ISO 8601 times: the trust policy's parsers).
#
# Gate mode (the default, what CI runs): deterministic. A fixed seed (1), a fresh empty working
# corpus, the replay of the seed corpus kept in the repository (tests/fuzz/corpus/TARGET) plus
# generated seeds (loader: valid signed/unsigned files the fuzzer writes; onnx_import: the
# ONNX node-test models of libonnx-testdata; tflite_import: the fixtures of tests/tflite), then a bounded number of new inputs (--runs,
# default 20000), with ASLR off. Same binary + same seeds => same inputs, so CI cannot fail by
# chance.
# Long mode: --runs/--seconds large, --keep-corpus keeps BUILD/fuzz-corpus-TARGET between runs
# (grows coverage; not for the gate), --seed 0 lets libFuzzer pick one.
# Exit status: 0 when the run found nothing; non-zero (libFuzzer's) when it crashed, leaked, hit
# undefined behaviour or timed out; the inputs are left in BUILD/fuzz-artifacts/ (add them to
# tests/fuzz/corpus/TARGET/ once fixed, as regression inputs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${1:?usage: scripts/fuzz.sh loader|onnx_import|tflite_import|trust_files [--runs N] [--seconds S] [--seed N] [--build DIR] [--keep-corpus]}"
shift
RUNS=20000
SECONDS_TO_RUN=0
SEED=1
BUILD="$ROOT/build-fuzz"
KEEP=0
while (($#)); do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --seconds) SECONDS_TO_RUN="$2"; RUNS=-1; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    --keep-corpus) KEEP=1; shift ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$TARGET" in
  loader | onnx_import | tflite_import | trust_files) ;;
  *) echo "fuzz.sh: unknown target '$TARGET' (loader, onnx_import, tflite_import, trust_files)" >&2; exit 2 ;;
esac
JOBS="${KILN_FUZZ_JOBS:-2}"
BINARY="kiln_${TARGET}_fuzz"

# A tree configured with KILN_FUZZ (scripts/test.sh's sanitizer tree) is used as it is: the
# target is built there, on the libraries its tests use. Otherwise the tree is configured for
# fuzzing alone: -O1 -g1 (line tables), as that sanitizer tree, what the reports need at about
# half the compile time of -O2 -g.
source "$ROOT/scripts/lib/build_env.sh"
if ! grep -qs '^KILN_FUZZ:BOOL=ON' "$BUILD/CMakeCache.txt"; then
  cmake -S "$ROOT" -B "$BUILD" -DKILN_SANITIZE=ON -DKILN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_BENCH=OFF "${kiln_cmake_launcher[@]}" >/dev/null
fi
cmake --build "$BUILD" -j"$JOBS" --target "$BINARY" >/dev/null

# Undefined behaviour is a finding too (the tree's -fno-sanitize-recover=undefined already stops
# at the first report; this also prints its stack).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

FUZZER="$BUILD/tests/fuzz/$BINARY"
ARTIFACTS="$BUILD/fuzz-artifacts"
SEEDS="$BUILD/fuzz-seeds-$TARGET"
WORK="$BUILD/fuzz-corpus-$TARGET"
mkdir -p "$ARTIFACTS"
rm -rf "$SEEDS"
mkdir -p "$SEEDS"
if [[ $KEEP == 0 ]]; then rm -rf "$WORK"; fi
mkdir -p "$WORK"

case "$TARGET" in
  loader) KILN_FUZZ_WRITE_SEEDS="$SEEDS" "$FUZZER" ;;
  onnx_import)
    # Node-test models of the ops Kiln imports (one small model per test; read-only system data).
    node_dir=/usr/share/libonnx-testdata/data/node
    if [[ -d $node_dir ]]; then
      for d in "$node_dir"/test_*/; do
        n=$(basename "$d")
        [[ -f $d/model.onnx ]] && cp "$d/model.onnx" "$SEEDS/$n.onnx"
      done
    fi
    ;;
  tflite_import)
    # The committed fixtures (float, float16-weight and int8 models of every imported op).
    for f in "$ROOT"/tests/tflite/*/model.tflite; do
      cp "$f" "$SEEDS/$(basename "$(dirname "$f")").tflite"
    done
    ;;
esac
REPO_CORPUS="$ROOT/tests/fuzz/corpus/$TARGET"
echo "fuzz.sh: $TARGET: seed $SEED, runs $RUNS, seconds $SECONDS_TO_RUN;" \
  "$(ls "$REPO_CORPUS" | wc -l) repository seeds, $(ls "$SEEDS" | wc -l) generated," \
  "$(ls "$WORK" | wc -l) kept"
# -reload=0: libFuzzer otherwise re-reads the corpus folder every second (wall-clock driven,
# so not reproducible).
args=(-seed="$SEED" -reload=0 -rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1
  -artifact_prefix="$ARTIFACTS/")
if ((RUNS >= 0)); then args+=(-runs="$RUNS"); fi
if ((SECONDS_TO_RUN > 0)); then args+=(-max_total_time="$SECONDS_TO_RUN"); fi
# With a fixed seed, address-space randomisation is switched off for the run: libFuzzer's
# comparison tracing records operand values, pointers among them, and with ASLR those (hence
# the mutations) differ from run to run.
runner=()
if [[ $SEED != 0 ]] && setarch "$(uname -m)" -R true 2>/dev/null; then
  runner=(setarch "$(uname -m)" -R)
fi
# New inputs go into the first folder (the working corpus), never into the repository.
"${runner[@]}" "$FUZZER" "${args[@]}" "$WORK" "$REPO_CORPUS" "$SEEDS"
