#!/usr/bin/env bash
# Fails when a per-ISA kernel object (backends/cpu/ukernels/<isa>/*.cc, built with -m flags)
# defines a weak/COMDAT symbol: the linker may then pick that AVX copy of an inline function
# for portable code, and the binary would execute illegal instructions on older CPUs.
# Exempt, being data (no code, the same bytes whatever the -m flags): DW.ref.__gxx_personality_v0,
# a word pointing at the C++ runtime's exception personality routine, and the RTTI of types
# (`typeinfo for`, `typeinfo name for`), which clang's UBSan emits for the function types it
# checks indirect calls against; sanitizer builds have both.
# Usage: check_isa_objects.sh path/to/libkiln_kernels.a
set -euo pipefail
lib=$(realpath "$1")  # absolute: the members are extracted in a temporary folder
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
all_members=$(ar t "$lib")  # a library ar cannot read fails here (set -e), never passes
members=$(echo "$all_members" | grep -E '_(avx2|avx512|avx512vnni|avx512vbmi)\.cc\.o$' || true)
if [[ -z $members ]]; then
  echo "no per-ISA objects in $lib (non-x86 build?)"
  exit 0
fi
status=0
for m in $members; do
  ar x "$lib" "$m"
  weak=$(nm -C --defined-only "$m" |
    awk '$2 ~ /^[WVu]$/ && $3 !~ /^DW\.ref\./ && !($2 == "V" && $3 == "typeinfo") { $1 = ""; print }')
  if [[ -n $weak ]]; then
    echo "$m defines weak symbols:"
    echo "$weak" | head -20
    status=1
  fi
done
[[ $status == 0 ]] && echo "ok: $(echo "$members" | wc -w) per-ISA objects, no weak symbols"
exit $status
