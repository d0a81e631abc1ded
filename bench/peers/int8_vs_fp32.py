#!/usr/bin/env python3
"""Kiln int8 vs Kiln fp32, batch-1 latency, alternating in rounds on the same machine.

For every NAME=FP32_MODEL:INT8_KILN pair and thread count: `rounds` times, `kiln bench` the fp32
model (an .onnx, compiled in-process as compare.py does) and then the int8 .kiln file (made by
`kiln quantize`, e.g. with bench/peers/make_int8_models.sh), each in its own process with 10
warm-ups and `runs` timed runs; print the median of the per-round medians for both, the
speed-up fp32 / int8, and the load average before and after.

  python3 bench/peers/int8_vs_fp32.py NAME=FP32.onnx:INT8.kiln... [--threads 1,2]
      [--rounds 3] [--runs 20] [--kiln build/kiln] [--isa auto] [--fp32-arg=ARG ...]

--fp32-arg passes ARG to `kiln bench` of every fp32 model (repeatable): e.g.
--fp32-arg=--input-shape --fp32-arg=x=1,3,320,320 for a model with symbolic input dims (the
.kiln files have their shapes fixed when quantized).
"""
import argparse
import json
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def bench(binary, model, threads, runs, isa, extra=()):
    cmd = [binary, "bench", model, "--threads", str(threads), "--runs", str(runs), "--warmup",
           "10", "--isa", isa, "--json", *extra]
    if model.endswith(".kiln"):
        cmd.append("--allow-unsigned")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["latency_ms"]["median"], j["session_ms"], j["peak_rss_kb"]


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pairs", nargs="+", help="NAME=FP32_MODEL:INT8_KILN")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--isa", default="auto")
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "kiln"))
    ap.add_argument("--fp32-arg", action="append", default=[],
                    help="an argument for kiln bench of the fp32 models (repeatable)")
    args = ap.parse_args()
    print(f"load average {loadavg()}")
    print(f"{'model':14s} {'T':>2s} {'fp32 ms':>9s} {'int8 ms':>9s} {'fp32/int8':>9s} "
          f"{'int8 sess':>9s} {'int8 RSS':>9s}")
    for pair in args.pairs:
        name, models = pair.split("=", 1)
        fp32, int8 = models.split(":", 1)
        for threads in [int(t) for t in args.threads.split(",")]:
            f_ms, i_ms = [], []
            for _ in range(args.rounds):
                f_ms.append(bench(args.kiln, fp32, threads, args.runs, args.isa, args.fp32_arg)[0])
                i, i_sess, i_rss = bench(args.kiln, int8, threads, args.runs, args.isa)
                i_ms.append(i)
            f, i = statistics.median(f_ms), statistics.median(i_ms)
            print(f"{name:14s} {threads:2d} {f:9.3f} {i:9.3f} {f / i:9.3f} {i_sess:9.1f} "
                  f"{i_rss:9d}", flush=True)
    print(f"load average {loadavg()}")


if __name__ == "__main__":
    main()
