#!/usr/bin/env bash
# Two Kiln binaries on one model, alternating per round (a before/after of a change measured in
# the same window): median of each binary's per-round `kiln bench` medians, and their ratio.
#
#   bench/peers/ab_kiln.sh OLD_KILN NEW_KILN MODEL [THREADS] [ROUNDS] [extra kiln bench flags...]
# OLD_FLAGS, if set, go to the OLD side only: one binary with and without a compiler pass,
#   OLD_FLAGS="--disable-pass blocked-layout" bench/peers/ab_kiln.sh build/kiln build/kiln M
set -euo pipefail
old=$1 new=$2 model=$3 threads=${4:-1} rounds=${5:-5}
shift $(( $# < 5 ? $# : 5 ))
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
run() {
  local bin=$1
  shift
  "$bin" bench "$model" --runs 20 --warmup 5 --threads "$threads" "$@" 2>&1 |
    grep -oP 'median \K[0-9.]+' || echo nan
}
a=() b=()
for ((i = 0; i < rounds; ++i)); do
  # shellcheck disable=SC2086  # OLD_FLAGS is a list of flags
  a+=("$(run "$old" "$@" ${OLD_FLAGS:-})")
  b+=("$(run "$new" "$@")")
done
ma=$(printf '%s\n' "${a[@]}" | median)
mb=$(printf '%s\n' "${b[@]}" | median)
awk -v m="$model" -v t="$threads" -v a="$ma" -v b="$mb" \
  'BEGIN { printf "%-45s T%s before %8.3f  now %8.3f  before/now %.2f\n", m, t, a, b, a / b }'
