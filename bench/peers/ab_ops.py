#!/usr/bin/env python3
"""Two Kiln binaries on one model, per op: a before/after of a change on a noisy machine.

Runs `kiln bench MODEL --profile --json` with each binary in turn for --rounds rounds, the
order swapped every round, keeps each op's minimum of its per-round averages, and prints the
sums, the median per-op ratio before/after (how much the machine drifted between the two
binaries' runs: ops the change does not touch should sit at it), and the ratio per group of
ops with one type and output shape, largest first. Read a change against the median, not
against 1.0.

  python3 bench/peers/ab_ops.py OLD_KILN NEW_KILN MODEL [--threads 1] [--rounds 6] [--runs 20]
      [--top 20]
"""
import argparse
import collections
import json
import statistics
import subprocess


def profile(kiln, model, threads, runs):
    cmd = [kiln, "bench", model, "--runs", str(runs), "--threads", str(threads), "--profile",
           "--json"]
    if model.endswith(".kiln"):
        cmd.append("--allow-unsigned")
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    mins = [collections.defaultdict(lambda: float("inf")) for _ in range(2)]
    group_of = {}
    for r in range(args.rounds):
        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
            d = profile((args.old, args.new)[i], args.model, args.threads, args.runs)
            for op in d["profile"]["ops"]:
                mins[i][op["name"]] = min(mins[i][op["name"]], op["avg_ms"])
                group_of[op["name"]] = (op["type"], str(op.get("output_shape")))
    names = [k for k in mins[0] if k in mins[1] and mins[1][k] > 0]
    old_sum, new_sum = sum(mins[0][k] for k in names), sum(mins[1][k] for k in names)
    drift = statistics.median(mins[0][k] / mins[1][k] for k in names)
    print("sum of per-op minima: old %.3f ms, new %.3f ms, old/new %.3f; median op old/new %.3f"
          % (old_sum, new_sum, old_sum / new_sum, drift))
    groups = collections.defaultdict(list)
    for k in names:
        groups[group_of[k]].append(k)
    rows = sorted(groups.items(), key=lambda g: -sum(mins[0][k] for k in g[1]))
    for (op_type, shape), ks in rows[:args.top]:
        a, b = sum(mins[0][k] for k in ks), sum(mins[1][k] for k in ks)
        print("  %-18s %-22s n=%-3d old %8.3f  new %8.3f  old/new %.3f"
              % (op_type, shape, len(ks), a, b, a / b))


if __name__ == "__main__":
    main()
