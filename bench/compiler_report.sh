#!/usr/bin/env bash
# The compiler's figures (issue 6) on the shared models, from the built `kiln`:
#   1. nodes after fusion against the ONNX node count; arena against the lower bound and
#      against one buffer per value (compiled graph, and the imported graph as the runtime
#      allocated it before the memory planner);
#   2. streams on branchy models: streams, events, arena growth, and latency at 2 threads with
#      1 vs 2 streams (`kiln bench`: median of RUNS warm runs per round, rounds alternating
#      between the two files, the median of the round medians; same binary);
#   3. latency fused vs unfused on the reference kernels (`kiln bench --isa reference`, RUNS_FUSION
#      runs per round, alternating rounds as above);
#   4. peak RSS of `kiln run` on uncompressed .kiln files, with the memory plan vs one buffer
#      per value.
# Usage: bench/compiler_report.sh [BUILD_DIR] [RUNS] [RUNS_FUSION]   (KILN_SHARED_DIR as usual)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-20}
runs_fusion=${3:-5}
shared=${KILN_SHARED_DIR:-../shared}
kiln="$build/kiln"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source scripts/lib/model_shapes.sh

json_field() {  # json_field FILE python-expression-over-d
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
rounds=${ROUNDS:-3}
bench_ms() {  # bench_ms RUNS ARGS... -> median latency (ms) of RUNS warm runs in one process
  local n=$1
  shift
  "$kiln" bench "$@" --runs "$n" --warmup 2 --json |
    python3 -c "import json,sys; print(json.load(sys.stdin)['latency_ms']['median'])"
}

echo "== 1. fusion and memory (default level, 1 stream) =="
printf "%-20s %6s %6s %10s %10s %8s %12s %8s %14s %8s\n" model onnx nodes arena_KiB lower_KiB \
  arena/lb no_reuse_KiB ratio imported_KiB ratio
for m in mobilenetv2 squeezenet resnet18_rw googlenet_rw densenet121_rw efficientnet_b0_rw \
         shufflenetv2_rw mnist super_resolution ppocr_det ppocr_cls ppocr_rec; do
  onnx="$shared/models/$m/model.onnx"
  shape_args=($(model_shape_args "$m"))
  "$kiln" inspect "$onnx" "${shape_args[@]}" --json > "$tmp/c.json"
  "$kiln" inspect "$onnx" "${shape_args[@]}" --json --opt-level 0 --disable-pass memory-plan \
    > "$tmp/i.json"
  read -r onnx_nodes nodes arena lb nr < <(json_field "$tmp/c.json" \
    "d['onnx_nodes'], d['num_nodes'], d['memory']['arena_bytes'], d['memory']['lower_bound_bytes'], d['memory']['no_reuse_bytes']")
  imported=$(json_field "$tmp/i.json" "d['memory']['no_reuse_bytes']")
  awk -v m="$m" -v o="$onnx_nodes" -v n="$nodes" -v a="$arena" -v l="$lb" -v r="$nr" -v i="$imported" \
    'BEGIN { printf "%-20s %6d %6d %10.0f %10.0f %8.3f %12.0f %7.1fx %14.0f %7.1fx\n",
             m, o, n, a/1024, l/1024, a/l, r/1024, r/a, i/1024, i/a }'
done

echo
echo "== 2. streams (2 threads; kiln bench, $rounds alternating rounds of $runs runs each) =="
printf "%-16s %7s %6s %10s %10s %8s %10s %10s %7s\n" model streams events arena1_KiB arena2_KiB \
  growth 1s_ms 2s_ms speedup
for m in squeezenet googlenet_rw densenet121_rw; do
  onnx="$shared/models/$m/model.onnx"
  shape_args=($(model_shape_args "$m"))
  "$kiln" compile "$onnx" "${shape_args[@]}" -o "$tmp/$m.1.kiln" > /dev/null
  "$kiln" compile "$onnx" "${shape_args[@]}" --streams 2 -o "$tmp/$m.2.kiln" > /dev/null
  "$kiln" inspect "$tmp/$m.1.kiln" --allow-unsigned --json > "$tmp/s1.json"
  "$kiln" inspect "$tmp/$m.2.kiln" --allow-unsigned --json > "$tmp/s2.json"
  read -r streams events a2 < <(json_field "$tmp/s2.json" \
    "d['streams']['count'], d['streams']['events'], d['memory']['arena_bytes']")
  a1=$(json_field "$tmp/s1.json" "d['memory']['arena_bytes']")
  : > "$tmp/t1"; : > "$tmp/t2"
  for ((r = 0; r < rounds; ++r)); do
    bench_ms "$runs" "$tmp/$m.1.kiln" --allow-unsigned --threads 2 >> "$tmp/t1"
    bench_ms "$runs" "$tmp/$m.2.kiln" --allow-unsigned --threads 2 >> "$tmp/t2"
  done
  t1=$(median < "$tmp/t1"); t2=$(median < "$tmp/t2")
  awk -v m="$m" -v s="$streams" -v e="$events" -v a1="$a1" -v a2="$a2" -v t1="$t1" -v t2="$t2" \
    'BEGIN { printf "%-16s %7d %6d %10.0f %10.0f %7.2fx %10.1f %10.1f %6.2fx\n",
             m, s, e, a1/1024, a2/1024, a2/a1, t1, t2, t1/t2 }'
done

echo
echo "== 3. reference kernels: unfused (--opt-level 0) vs fused (default); kiln bench, $rounds alternating rounds of $runs_fusion runs =="
printf "%-20s %12s %12s %8s\n" model unfused_ms fused_ms speedup
for m in mobilenetv2 squeezenet resnet18_rw googlenet_rw densenet121_rw efficientnet_b0_rw \
         shufflenetv2_rw mnist super_resolution ppocr_det ppocr_cls ppocr_rec; do
  onnx="$shared/models/$m/model.onnx"
  shape_args=($(model_shape_args "$m"))
  "$kiln" compile "$onnx" "${shape_args[@]}" --opt-level 0 --target reference -o "$tmp/u.kiln" > /dev/null
  "$kiln" compile "$onnx" "${shape_args[@]}" --target reference -o "$tmp/f.kiln" > /dev/null
  : > "$tmp/tu"; : > "$tmp/tf"
  for ((r = 0; r < rounds; ++r)); do
    bench_ms "$runs_fusion" "$tmp/u.kiln" --allow-unsigned --isa reference >> "$tmp/tu"
    bench_ms "$runs_fusion" "$tmp/f.kiln" --allow-unsigned --isa reference >> "$tmp/tf"
  done
  tu=$(median < "$tmp/tu"); tf=$(median < "$tmp/tf")
  awk -v m="$m" -v u="$tu" -v f="$tf" 'BEGIN { printf "%-20s %12.2f %12.2f %7.2fx\n", m, u, f, u/f }'
done

echo
echo "== 4. peak RSS of kiln run on an uncompressed .kiln: compiled vs the unfused graph with one buffer per value (what the runtime did before) =="
printf "%-16s %14s %14s %10s\n" model per_value_KiB planned_KiB saved
for m in resnet18_rw densenet121_rw; do
  onnx="$shared/models/$m/model.onnx"
  shape_args=($(model_shape_args "$m"))
  input="$shared/models/$m/test_data_set_0/input_0.pb"
  "$kiln" compile "$onnx" "${shape_args[@]}" --opt-level 0 --target reference \
    --disable-pass memory-plan -o "$tmp/n.kiln" > /dev/null
  "$kiln" compile "$onnx" "${shape_args[@]}" -o "$tmp/p.kiln" > /dev/null
  rss() { /usr/bin/time -f %M "$kiln" run "$1" --allow-unsigned -i "$input" 2>&1 >/dev/null | tail -1; }
  n=$(rss "$tmp/n.kiln"); p=$(rss "$tmp/p.kiln")
  awk -v m="$m" -v n="$n" -v p="$p" 'BEGIN { printf "%-16s %14d %14d %9.1f%%\n", m, n, p, 100*(n-p)/n }'
done
