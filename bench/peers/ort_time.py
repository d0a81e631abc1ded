#!/usr/bin/env python3
"""Median batch-1 latency of ONNX models in ONNX Runtime, configured as in
../shared/perf/peers.md: intra-op threads N, inter-op 1, sequential execution, all graph
optimisations, 10 warm-ups, then --runs timed runs in one process. Also prints the session
creation time (load + optimise) and the process's peak RSS.

  python3 bench/peers/ort_time.py MODEL_DIR... [--threads 1] [--runs 40] [--cpu-time]

MODEL_DIR holds model.onnx and test_data_set_0/input_0.pb (the shared model layout).
Needs onnxruntime, onnx and numpy (bench/peers/compare.py sets up a venv with them).
"""
import argparse
import os
import resource
import statistics
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def load_input(model_dir, session):
    path = os.path.join(model_dir, "test_data_set_0", "input_0.pb")
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return {session.get_inputs()[0].name: numpy_helper.to_array(tensor)}


def time_model(model_dir, threads, runs, warmup=10, cpu_time=False):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    t0 = time.perf_counter()
    session = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), so,
                                   providers=["CPUExecutionProvider"])
    session_ms = (time.perf_counter() - t0) * 1e3
    feeds = load_input(model_dir, session)
    for _ in range(warmup):
        session.run(None, feeds)
    # With one intra-op thread ORT runs on the calling thread, so its CPU clock measures the run
    # without the time slices other processes take.
    clock = time.thread_time if cpu_time else time.perf_counter
    times = []
    for _ in range(runs):
        t0 = clock()
        session.run(None, feeds)
        times.append((clock() - t0) * 1e3)
    return statistics.median(times), min(times), session_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--cpu-time", action="store_true",
                    help="time with the thread's CPU clock (1 thread only)")
    args = ap.parse_args()
    if args.cpu_time and args.threads != 1:
        ap.error("--cpu-time needs --threads 1")
    print(f"onnxruntime {ort.__version__}, threads {args.threads}")
    for m in args.models:
        median, best, session_ms = time_model(m, args.threads, args.runs, cpu_time=args.cpu_time)
        rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        print(f"{os.path.basename(m.rstrip('/')):24s} median {median:8.3f} ms  min {best:8.3f} ms"
              f"  session {session_ms:8.2f} ms  peak_rss {rss_kb} KiB")


if __name__ == "__main__":
    main()
