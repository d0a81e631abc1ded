#!/usr/bin/env bash
# Model-file figures: size of every shared model as ONNX, .kiln uncompressed and .kiln zstd;
# load+verify time of mobilenetv2 (median of 20, mmap'd, both forms); SHA-256 throughput;
# peak RSS while loading mobilenetv2. Usage: bench/model_file_report.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shared=${KILN_SHARED_DIR:-../shared}
source scripts/lib/model_shapes.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/kiln" keygen --out "$work/bench" >/dev/null
printf '%-20s %14s %16s %14s %7s\n' model "onnx bytes" "kiln none" "kiln zstd" "zstd/onnx"
for dir in "$shared"/models/*/; do
  name=$(basename "$dir")
  [[ -f $dir/model.onnx && -d $dir/test_data_set_0 ]] || continue
  read -r -a shape_args <<< "$(model_shape_args "$name")"
  for c in none zstd; do
    if ! "$build/kiln" compile "$dir/model.onnx" -o "$work/$name.$c.kiln" --compress "$c" \
         --sign-key "$work/bench.key" "${shape_args[@]}" >/dev/null 2>"$work/err"; then
      echo "$name: compile --compress $c failed: $(tail -1 "$work/err")"; continue 2
    fi
  done
  onnx=$(stat -c %s "$dir/model.onnx"); none=$(stat -c %s "$work/$name.none.kiln")
  zstd=$(stat -c %s "$work/$name.zstd.kiln")
  printf '%-20s %14s %16s %14s %7.3f\n' "$name" "$onnx" "$none" "$zstd" "$(echo "$zstd/$onnx" | bc -l)"
done

m=$work/mobilenetv2
echo
echo "load+verify of signed mobilenetv2 (Google Benchmark, 20 repetitions, median):"
KILN_BENCH_MODELS="$m.none.kiln:$m.zstd.kiln" KILN_BENCH_PUB="$work/bench.pub" \
  "$build/bench/kiln_loader_bench" --benchmark_repetitions=20 \
  --benchmark_report_aggregates_only=true 2>/dev/null | grep -E "median|Benchmark" | sed "s|$work/||"
echo
echo "peak RSS while loading mobilenetv2 (runtime-only example binary):"
for c in none zstd; do
  size=$(stat -c %s "$m.$c.kiln")
  line=$("$build/kiln_runtime_example" "$m.$c.kiln" --pub "$work/bench.pub" | grep '^rss:')
  added=$(echo "$line" | sed -n 's/.*load added \([0-9]*\) KiB.*/\1/p')
  peak=$(echo "$line" | sed -n 's/.*peak \([0-9]*\) KiB.*/\1/p')
  printf '  %-5s file %9d B  %s  -> added/file = %.3f, peak/file = %.3f\n' "$c" "$size" "$line" \
    "$(echo "$added*1024/$size" | bc -l)" "$(echo "$peak*1024/$size" | bc -l)"
done
