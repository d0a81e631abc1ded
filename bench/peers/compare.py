#!/usr/bin/env python3
"""Kiln vs ONNX Runtime, batch-1 fp32 latency, alternating in rounds on the same machine.

For every model and thread count: `rounds` times, run ONNX Runtime (bench/peers/ort_time.py
settings: intra-op N, inter-op 1, sequential, all optimisations, 10 warm-ups, `runs` timed
runs) and then Kiln (build/bench/kiln_model_bench, 10 warm-ups, `runs` timed runs), each in
its own process; report the median of the per-round medians and the ratio Kiln / ORT.

  python3 bench/peers/compare.py [--models a,b] [--threads 1,2] [--rounds 3] [--runs 20]
      [--kiln build/bench/kiln_model_bench] [--models-dir ../shared/models] [--isa auto]
      [--cpu-time]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_MODELS = ("mobilenetv2,squeezenet,resnet18_rw,googlenet_rw,efficientnet_b0_rw,"
                  "shufflenetv2_rw,densenet121_rw,super_resolution")


def run_ort(model_dir, threads, runs, cpu_time):
    cmd = [sys.executable, os.path.join(HERE, "ort_time.py"), model_dir, "--threads",
           str(threads), "--runs", str(runs)] + (["--cpu-time"] if cpu_time else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median\s+([0-9.]+) ms", out).group(1))


def run_kiln(binary, model_dir, threads, runs, isa, cpu_time):
    cmd = [binary, model_dir, "--threads", str(threads), "--runs", str(runs), "--isa", isa]
    out = subprocess.run(cmd + (["--cpu-time"] if cpu_time else []), check=True,
                         capture_output=True, text=True).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--isa", default="auto")
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "bench", "kiln_model_bench"))
    ap.add_argument("--models-dir", default=os.environ.get(
        "KILN_SHARED_DIR", os.path.join(ROOT, "..", "shared")) + "/models")
    ap.add_argument("--cpu-time", action="store_true",
                    help="1-thread rows timed with each runner's thread CPU clock (shared "
                         "machines); multi-thread rows stay wall-clock")
    args = ap.parse_args()
    print(f"{'model':20s} {'T':>2s} {'ORT ms':>9s} {'Kiln ms':>9s} {'Kiln/ORT':>9s}")
    for model in args.models.split(","):
        model_dir = os.path.join(args.models_dir, model)
        for threads in [int(t) for t in args.threads.split(",")]:
            ort_ms, kiln_ms = [], []
            for _ in range(args.rounds):
                cpu = args.cpu_time and threads == 1
                ort_ms.append(run_ort(model_dir, threads, args.runs, cpu))
                kiln_ms.append(run_kiln(args.kiln, model_dir, threads, args.runs, args.isa, cpu))
            o, k = statistics.median(ort_ms), statistics.median(kiln_ms)
            print(f"{model:20s} {threads:2d} {o:9.3f} {k:9.3f} {k / o:9.3f}", flush=True)


if __name__ == "__main__":
    main()
