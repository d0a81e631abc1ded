#!/usr/bin/env python3
"""Kiln vs ONNX Runtime, batch-1 fp32 latency, alternating in rounds on the same machine.

On first use, installs ONNX Runtime (pip, pinned as in ../shared/perf/peers.md) into a local
venv (build-peers/venv, ignored by git) and re-runs itself with it. For every model and thread
count: `rounds` times, run ONNX Runtime (bench/peers/ort_time.py: intra-op N, inter-op 1,
sequential, all graph optimisations, 10 warm-ups, `runs` timed runs) and then Kiln
(`kiln bench MODEL.onnx --threads N --warmup 10 --runs R --json`: import, compile, session, the
same warm-ups and runs), each in its own process; print the median of the per-round medians
for both and the ratio Kiln / ORT, plus session creation and peak RSS (last round). `paired`
is the median over the rounds of each round's Kiln / ORT: on a machine whose speed drifts
from process to process, the two runs of one round are the likeliest to share a mode.

  python3 bench/peers/compare.py [--models a,b] [--threads 1,2] [--rounds 3] [--runs 20]
      [--kiln build/kiln] [--models-dir ../shared/models] [--isa auto]
      [--cpu-time] [--venv DIR | --python PY]

--python runs ONNX Runtime with an interpreter that already has onnxruntime, onnx and numpy
(any versions; a machine without network access, such as the device host, docs/performance.md)
instead of the pinned venv. The first line names the ONNX Runtime version that ran.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_MODELS = ("mobilenetv2,squeezenet,resnet18_rw,googlenet_rw,efficientnet_b0_rw,"
                  "shufflenetv2_rw,densenet121_rw,super_resolution")
PINS = ["onnxruntime==1.32.0", "onnx==1.23.2", "numpy==2.4.6"]


# What ONNX Runtime's side imports; prints the onnxruntime version.
PROBE = "import onnxruntime, onnx, numpy; print(onnxruntime.__version__)"


def ensure_venv(venv):
    """Returns the venv's python, creating the venv and installing PINS once."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    have = subprocess.run([python, "-c", PROBE], capture_output=True, text=True)
    if have.returncode != 0 or have.stdout.strip() != PINS[0].split("==")[1]:
        subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
                       + PINS, check=True)
    return python


def ort_version(python):
    """The onnxruntime version `python` imports (it must import onnx and numpy too)."""
    have = subprocess.run([python, "-c", PROBE], capture_output=True, text=True)
    if have.returncode != 0:
        sys.exit(f"compare.py: {python} cannot import onnxruntime, onnx and numpy:\n"
                 + have.stderr.strip())
    return have.stdout.strip()


def run_ort(python, model_dir, threads, runs, cpu_time):
    cmd = [python, os.path.join(HERE, "ort_time.py"), model_dir, "--threads", str(threads),
           "--runs", str(runs)] + (["--cpu-time"] if cpu_time else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"median\s+([0-9.]+) ms.*session\s+([0-9.]+) ms\s+peak_rss (\d+) KiB", out)
    return float(m.group(1)), float(m.group(2)), int(m.group(3))


def shape_args(model):
    """--input-shape flags for models with symbolic input dims (scripts/lib/model_shapes.sh)."""
    lib = os.path.join(ROOT, "scripts", "lib", "model_shapes.sh")
    out = subprocess.run(["bash", "-c", f'source "{lib}"; model_shape_args "$1"', "-", model],
                         check=True, capture_output=True, text=True).stdout
    return out.split()


MODEL_BENCH = os.path.join(ROOT, "build", "bench", "kiln_model_bench")


def check_model_bench(kiln):
    """--cpu-time times Kiln through kiln_model_bench, built only with -DKILN_BUILD_BENCH=ON: a
    copy left from an earlier configuration would time old kernels beside the current kiln."""
    if not os.path.exists(MODEL_BENCH):
        sys.exit(f"compare.py: --cpu-time needs {MODEL_BENCH}: configure the build with "
                 "-DKILN_BUILD_BENCH=ON and build it")
    if os.path.exists(kiln) and os.path.getmtime(MODEL_BENCH) < os.path.getmtime(kiln):
        sys.exit(f"compare.py: {MODEL_BENCH} is older than {kiln} (stale kernels): configure "
                 "the build with -DKILN_BUILD_BENCH=ON and rebuild it, or leave out --cpu-time")


def run_kiln_cpu_time(model_dir, runs, isa):
    """1 thread timed with the thread's CPU clock (build/bench/kiln_model_bench --cpu-time)."""
    cmd = [MODEL_BENCH, model_dir, "--threads", "1",
           "--runs", str(runs), "--warmup", "10", "--isa", isa, "--cpu-time"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1)), float("nan"), 0


def run_kiln(binary, model_dir, threads, runs, isa):
    cmd = [binary, "bench", os.path.join(model_dir, "model.onnx"), "--threads", str(threads),
           "--runs", str(runs), "--warmup", "10", "--isa", isa, "--json"]
    cmd += shape_args(os.path.basename(model_dir.rstrip("/")))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["latency_ms"]["median"], j["session_ms"], j["peak_rss_kb"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--isa", default="auto")
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "kiln"))
    ap.add_argument("--models-dir", default=os.environ.get(
        "KILN_SHARED_DIR", os.path.join(ROOT, "..", "shared")) + "/models")
    ap.add_argument("--venv", default=os.path.join(ROOT, "build-peers", "venv"))
    ap.add_argument("--python", help="an interpreter with onnxruntime, onnx and numpy, used "
                                     "instead of the pinned venv (nothing installed)")
    ap.add_argument("--cpu-time", action="store_true",
                    help="1-thread rows timed with each runner's thread CPU clock (a machine "
                         "shared with other work; Kiln through build/bench/kiln_model_bench, "
                         "no session/RSS figures); multi-thread rows stay wall-clock")
    args = ap.parse_args()
    if args.cpu_time:
        check_model_bench(args.kiln)
    python = args.python or ensure_venv(args.venv)
    print(f"ONNX Runtime {ort_version(python)} ({python})")
    print(f"{'model':20s} {'T':>2s} {'ORT ms':>9s} {'Kiln ms':>9s} {'Kiln/ORT':>9s} "
          f"{'paired':>7s} {'ORT sess':>9s} {'Kiln sess':>9s} {'ORT RSS':>9s} {'Kiln RSS':>9s}")
    for model in args.models.split(","):
        model_dir = os.path.join(args.models_dir, model)
        for threads in [int(t) for t in args.threads.split(",")]:
            ort_ms, kiln_ms = [], []
            for _ in range(args.rounds):
                cpu = args.cpu_time and threads == 1
                o_ms, o_sess, o_rss = run_ort(python, model_dir, threads, args.runs, cpu)
                if cpu:
                    k_ms, k_sess, k_rss = run_kiln_cpu_time(model_dir, args.runs, args.isa)
                else:
                    k_ms, k_sess, k_rss = run_kiln(args.kiln, model_dir, threads, args.runs,
                                                   args.isa)
                ort_ms.append(o_ms)
                kiln_ms.append(k_ms)
            o, k = statistics.median(ort_ms), statistics.median(kiln_ms)
            paired = statistics.median(km / om for km, om in zip(kiln_ms, ort_ms))
            print(f"{model:20s} {threads:2d} {o:9.3f} {k:9.3f} {k / o:9.3f} {paired:7.3f} "
                  f"{o_sess:9.1f} {k_sess:9.1f} {o_rss:9d} {k_rss:9d}", flush=True)


if __name__ == "__main__":
    main()
