#!/usr/bin/env bash
# ctest LeakSanitizerStillReportsKilnLeaks (sanitizer builds): runs tests/sanitizer/
# lsan_self_check.cc with the LSAN_OPTIONS every test gets (tests/test_environment.cmake), each
# run with an empty PoCL kernel cache:
#   1. no leak of ours: must pass, although PoCL's compiler leaks (reported without the
#      suppressions: the script says how many leak records they hid);
#   2. host memory leaked on purpose by Kiln code: LeakSanitizer must report it, naming the
#      function that leaked.
# Usage: lsan_self_check.sh BINARY. Exit 77 (skipped) without an OpenCL device.
set -uo pipefail
bin=${1:?usage: lsan_self_check.sh BINARY}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[[ ${LSAN_OPTIONS:-} == *suppressions=* ]] || {
  echo "LSAN_OPTIONS names no suppressions file (run it through ctest)" >&2
  exit 1
}

# run NAME [ARGS...]: runs the binary with a cold PoCL cache; its output goes to $work/NAME.log.
run() {
  local name=$1
  shift
  POCL_CACHE_DIR="$work/pocl-$name" "$bin" "$@" >"$work/$name.log" 2>&1
}

run clean
rc=$?
[[ $rc == 77 ]] && { cat "$work/clean.log"; exit 77; }
if [[ $rc != 0 ]]; then
  echo "FAIL: with no leak of Kiln's, the run failed ($rc): the suppressions miss a driver leak"
  cat "$work/clean.log"
  exit 1
fi
LSAN_OPTIONS=${LSAN_OPTIONS//suppressions=/unused=} run unsuppressed
hidden=$(grep -c '^\(Direct\|Indirect\) leak' "$work/unsuppressed.log")
echo "ok: no leak reported; PoCL's cold-cache compile left $hidden leak record(s) the suppressions hide"

failed=0
run host --leak-host
rc=$?
if [[ $rc != 0 ]] && grep -q 'LeakSanitizer: detected memory leaks' "$work/host.log" &&
   grep -q 'LeakHostMemoryOnPurpose' "$work/host.log"; then
  echo "ok: host memory leaked by Kiln code is reported (exit $rc)"
else
  echo "FAIL: host memory leaked by Kiln code was not reported (exit $rc)"
  cat "$work/host.log"
  failed=1
fi
exit $failed
