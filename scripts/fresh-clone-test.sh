#!/usr/bin/env bash
# What a new machine meets: clones the committed HEAD into a new folder, with the shared corpus
# beside it as ../shared, and runs .ci/run there (scripts/test.sh) with an empty compiler cache.
# scripts/test.sh itself gives every run new PoCL, Kiln and XDG caches, so nothing of an earlier
# run is reused, and nothing of the caller's is deleted. Prints test.sh's step times and exit code.
#   scripts/fresh-clone-test.sh [WORK_DIR]   (default: a new folder under $TMPDIR; kept)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "${KILN_SHARED_DIR:-$root/../shared}" && pwd)
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/kiln-fresh.XXXXXX")}
mkdir -p "$work"
[[ ! -e $work/kiln ]] || { echo "fresh-clone-test: $work/kiln exists" >&2; exit 2; }
git clone -q "$root" "$work/kiln"
ln -sfn "$shared" "$work/shared"
echo "fresh-clone-test: $(git -C "$work/kiln" log --oneline -1) in $work/kiln"
start=$SECONDS
set +e
# KILN_SHARED_DIR unset, not empty: the clone finds ../shared as CI's does (an empty value is a
# path, and the tests would look for the corpus in the working folder).
(cd "$work/kiln" && CI=true CCACHE_DIR="$work/ccache" env -u KILN_SHARED_DIR bash .ci/run) \
  > "$work/ci.log" 2>&1
rc=$?
set -e
sed -n '/== test.sh: step times/,$p' "$work/ci.log"
echo "fresh-clone-test: exit $rc after $(((SECONDS - start) / 60)) min; log: $work/ci.log"
exit "$rc"
