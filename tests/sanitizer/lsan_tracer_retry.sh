#!/usr/bin/env bash
# Runs a test command once more when, and only when, LeakSanitizer's own stop-the-world tracer
# crashed at exit ("Tracer caught signal 11" then "LeakSanitizer has encountered a fatal
# error") after the tests themselves passed and no leak was reported: an intermittent fault of
# the sanitizer runtime in processes with many driver threads (PoCL), not of the code under test
# (google/sanitizers#1353). Any other failure, and a second crash, fail as they are.
# The sanitizer tree's OpenCL test binary runs through it (tests/CMakeLists.txt,
# CROSSCOMPILING_EMULATOR).
#   lsan_tracer_retry.sh COMMAND [ARGS...]
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" > "$log" 2>&1
rc=$?
cat "$log"
if [[ $rc -ne 0 ]] && grep -q 'Tracer caught signal' "$log" &&
    grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
    ! grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$log" &&
    ! grep -qE '^\[  FAILED  \]' "$log"; then
  echo "lsan_tracer_retry: LeakSanitizer's tracer crashed after the tests passed; running again"
  "$@"
  exit $?
fi
exit $rc
