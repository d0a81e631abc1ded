#!/usr/bin/env python3
"""Per-node time, Kiln against ONNX Runtime, for one model: where the gap is.

ONNX Runtime runs with its profiler on (SessionOptions.enable_profiling; intra-op threads N,
inter-op 1, sequential, all graph optimisations, 10 warm-ups, then --runs runs); every
"<node>_kernel_time" event is charged to the ONNX nodes its name carries (ORT renames the nodes
it rewrites, e.g. "Conv_0_nchwc" or "Relu_1_fused"). Kiln runs `kiln bench --profile --json`
(its ops list the ONNX nodes they came from). Both sides are grouped by the first ONNX node of
each Kiln op, so a fused Kiln op is compared with the ORT nodes it replaced. Prints the
groups sorted by Kiln time minus ORT time, and the sums.

  build-peers/venv/bin/python bench/peers/op_compare.py MODEL_DIR [--threads 1] [--runs 30]
      [--kiln build/kiln] [--top 25] [--rounds 1]

Profiles of the two runtimes are taken in separate processes one after the other. On a noisy
machine (one whose speed drifts between processes) give --rounds R: the two then alternate R
times and every op keeps its lowest per-round mean, on each side.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def ort_node_times(model_dir, threads, runs):
    """Mean ms per run of every ORT kernel, keyed by ORT node name, and op type per node."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    with tempfile.TemporaryDirectory() as tmp:
        so.enable_profiling = True
        so.profile_file_prefix = os.path.join(tmp, "ort")
        session = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), so,
                                       providers=["CPUExecutionProvider"])
        tensor = onnx.TensorProto()
        with open(os.path.join(model_dir, "test_data_set_0", "input_0.pb"), "rb") as f:
            tensor.ParseFromString(f.read())
        feeds = {session.get_inputs()[0].name: numpy_helper.to_array(tensor)}
        for _ in range(10 + runs):
            session.run(None, feeds)
        path = session.end_profiling()
        events = json.load(open(path))
    per_node = collections.defaultdict(list)
    op_type = {}
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        name = e["name"][: -len("_kernel_time")]
        per_node[name].append(e["dur"] / 1e3)
        op_type[name] = e.get("args", {}).get("op_name", "?")
    times = {}
    for name, durs in per_node.items():
        # Each node ran 10 warm-ups + runs times; the timed runs are the last ones.
        timed = durs[-runs:] if len(durs) >= runs else durs
        times[name] = float(np.mean(timed))
    return times, op_type


def kiln_ops(kiln, model_dir, threads, runs):
    out = subprocess.run([kiln, "bench", os.path.join(model_dir, "model.onnx"), "--threads",
                          str(threads), "--warmup", "10", "--runs", str(runs), "--profile",
                          "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["profile"]["ops"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "kiln"))
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()

    ort_times, ort_types, ops = {}, {}, None
    for _ in range(max(1, args.rounds)):
        times, ort_types = ort_node_times(args.model_dir, args.threads, args.runs)
        for name, ms in times.items():
            ort_times[name] = min(ms, ort_times.get(name, ms))
        round_ops = kiln_ops(args.kiln, args.model_dir, args.threads, args.runs)
        if ops is None:
            ops = round_ops
        else:
            for op, again in zip(ops, round_ops):
                op["avg_ms"] = min(op["avg_ms"], again["avg_ms"])

    # ONNX node -> the Kiln op (index) that ran it. Kiln names an unnamed node "<op>_<index>";
    # ORT names it after an output, so every node answers to its outputs' names too.
    owner = {}
    for i, op in enumerate(ops):
        for src in op["sources"]:
            owner[src] = i
    model = onnx.load(os.path.join(args.model_dir, "model.onnx"), load_external_data=False)
    for index, node in enumerate(model.graph.node):
        kiln_name = node.name or f"{node.op_type}_{index}"
        if kiln_name not in owner:
            continue
        for alias in list(node.output) + ([node.name] if node.name else []):
            owner.setdefault(alias, owner[kiln_name])
    group_ort = collections.defaultdict(float)
    group_ort_names = collections.defaultdict(list)
    unmatched = 0.0
    for name, ms in ort_times.items():
        # ORT keeps the ONNX name and may add a suffix; take the longest ONNX name it starts with.
        candidates = [n for n in owner if name == n or name.startswith(n + "_")]
        if not candidates:
            # Fused nodes are often named "fused <first>" or carry the name inside.
            candidates = [n for n in owner if re.search(r"(^|[^A-Za-z0-9])" + re.escape(n) +
                                                         r"($|[^A-Za-z0-9])", name)]
        if not candidates:
            unmatched += ms
            continue
        src = max(candidates, key=len)
        group_ort[owner[src]] += ms
        group_ort_names[owner[src]].append(f"{name}({ort_types.get(name, '?')})")

    rows = []
    for i, op in enumerate(ops):
        rows.append((op["avg_ms"] - group_ort.get(i, 0.0), i, op))
    rows.sort(key=lambda r: -r[0])
    print(f"{'kiln op':<28} {'type':<14} {'shape':<20} {'kiln ms':>8} {'ort ms':>8} "
          f"{'diff':>7}  ort nodes")
    for diff, i, op in rows[: args.top]:
        print(f"{op['name'][:28]:<28} {op['type'][:14]:<14} {op['output_shape'][:20]:<20} "
              f"{op['avg_ms']:8.3f} {group_ort.get(i, 0.0):8.3f} {diff:7.3f}  "
              f"{' '.join(group_ort_names.get(i, []))[:60]}")
    kiln_total = sum(op["avg_ms"] for op in ops)
    ort_total = sum(ort_times.values())
    print(f"sum of op times: kiln {kiln_total:.3f} ms, ort {ort_total:.3f} ms "
          f"(ort nodes matched to no kiln op: {unmatched:.3f} ms)")
    by_type_k = collections.defaultdict(float)
    by_type_o = collections.defaultdict(float)
    for i, op in enumerate(ops):
        by_type_k[op["type"]] += op["avg_ms"]
        by_type_o[op["type"]] += group_ort.get(i, 0.0)
    print("by kiln op type: " + ", ".join(
        f"{t} {by_type_k[t]:.2f}/{by_type_o[t]:.2f}"
        for t in sorted(by_type_k, key=lambda t: -by_type_k[t])))


if __name__ == "__main__":
    main()
