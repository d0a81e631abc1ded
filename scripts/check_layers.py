#!/usr/bin/env python3
"""Checks that Kiln's production #includes only point down the layer order (issue 38).

Reads `#include "folder/..."` in every *.cc and *.h that git knows (tracked, or untracked and not
ignored) and maps each file and include to a node: its top-level folder, a backend's folder
(backends/<name>/), or the writer side of serializer/ (WRITER). Test code (tests/, bench/, *_test.cc, *_fuzz.cc, *_bench.cc,
*test_util*) may include anything and is left out of the graph; production may not include it,
and test helpers (*test_util*) live under tests/.
With a strict layer order every include cycle has an edge that points up or between peers, so
the check also rules out cycles between nodes; it also fails on a cycle between plain top-level
folders.

  scripts/check_layers.py                    exit 1 on an edge that points up or between peers
      and is not in scripts/layering_exceptions.txt, or on a listed edge that no longer occurs.
  scripts/check_layers.py --graph [--folders]  the include graph and its cycles (--folders:
      plain top-level folders).
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXCEPTIONS_FILE = "scripts/layering_exceptions.txt"

# The layer order, lowest first. A node may include nodes of lower layers only; the nodes of one
# layer are peers that include none of each other (so no backend reaches into another one).
# A new top-level folder fails the check until it has a place here: choose its layer on purpose.
LAYERS = (
    ("ir",),
    # The portable kernels (kernel interface, registry, thread pool, reference kernels), and the
    # file format's reader side (kiln_format: read, verify signatures), which the loader needs.
    ("kernels", "serializer"),
    # The backend interface (backends/backend.h, executor.h), the build's list of backends and
    # the cost placement over their claims: what the runtime core and the compiler ask of any
    # backend, naming none.
    ("backends",),
    # Loader, Session, executor interface and factory, placement: the device runtime's core.
    ("runtime",),
    # One node per target (backends/<name>/): its Backend object, kernels and executor. Above
    # the runtime core, so the core registry, placement and executor factory may not include
    # them (backends register themselves through the build's list); a backend may include the
    # core.
    ("backends/cpu", "backends/opencl", "backends/dsp"),
    # The toolchain's leaves, above the runtime: the ONNX parser (the runtime never links ONNX or
    # protobuf), calibration (runs Sessions to observe ranges), the file format's writer side
    # (kiln_writer: the compiler writes, the runtime only reads), and the runtime API example,
    # which links kiln_runtime alone and so may include nothing of the toolchain; so is the C
    # API (api/), part of kiln_runtime, over the runtime core and the backends' option structs.
    ("parsers", "calibration", "serializer/*_writer", "examples", "api"),
    # Quantization arithmetic, range algorithms and the quantization config, which both the
    # compiler's quantize passes and the quantizer use (ranges come from calibration's stats).
    ("quant",),
    # The compiler imports through parsers/ (compiler/frontend.h).
    ("compiler",),
    # The quantizer drives the compiler pipeline (quantize_driver.h -> compiler/pipeline.h).
    ("quantizer",),
    ("tools",),
)
RANK = {node: rank for rank, layer in enumerate(LAYERS) for node in layer}

# Edges the layer order allows but issue 38 forbids outright (done when no `#include "runtime/`
# is in compiler/): placement uses the backends' claims, constant folding the CPU backend's kernels.
FORBIDDEN = {("compiler", "runtime"): "forbidden by issue 38"}

# The writer side of serializer/, split off as serializer/CMakeLists.txt does (kiln_writer).
WRITER = re.compile(r"^serializer/[^/]*_writer\.(cc|h)$")

TEST_NAME = re.compile(r"(_test\.cc|_fuzz\.cc|_bench\.cc)$|test_util")
# `kiln bench` is a CLI subcommand: CMakeLists.txt adds it back after filtering *_bench.cc out.
PRODUCTION_DESPITE_NAME = {"tools/kiln/cmd_bench.cc"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def is_test(path):
    if path in PRODUCTION_DESPITE_NAME:
        return False
    return path.startswith(("tests/", "bench/")) or bool(TEST_NAME.search(path.split("/")[-1]))


def node_of(path, folders_only=False):
    if not folders_only:
        if WRITER.match(path):
            return "serializer/*_writer"
        if path.startswith("backends/") and path.count("/") >= 2:
            return "/".join(path.split("/")[:2])  # backends/<name>/: one node per backend.
    return path.split("/")[0]


def layer_order(node):
    return (RANK.get(node, len(LAYERS)), node)


def edge_order(edge):
    return (layer_order(edge[0]), layer_order(edge[1]))


def source_files():
    """Repository-relative paths of the C++ files git knows, build trees left out."""
    try:
        out = subprocess.run(
            ["git", "-C", ROOT, "ls-files", "-z", "-co", "--exclude-standard", "--", "*.cc", "*.h"],
            capture_output=True, text=True, check=True).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        out = []  # Not a git checkout (a source tarball): walk the tree instead.
        for top, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            out += [os.path.relpath(os.path.join(top, name), ROOT) for name in names]
    return sorted(p for p in out if p.endswith((".cc", ".h")) and "/" in p and
                  not p.startswith("build") and os.path.isfile(os.path.join(ROOT, p)))


def production_graph(files, folders_only=False):
    """Returns ({(from, to): [(file, line, include)]}, [production includes of test code])."""
    folders = {p.split("/")[0] for p in files}  # Other quoted includes: third-party, generated.
    edges, test_includes = collections.defaultdict(list), []
    for path in files:
        if is_test(path):
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            for line_no, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m or m.group(1).split("/")[0] not in folders:
                    continue
                site = (path, line_no, m.group(1))
                if is_test(m.group(1)):
                    test_includes.append(site)
                    continue
                a, b = node_of(path, folders_only), node_of(m.group(1), folders_only)
                if a != b:
                    edges[(a, b)].append(site)
    return edges, test_includes


def why_not_allowed(a, b):
    """None when the layer order allows a -> b, else a short reason."""
    if a not in RANK or b not in RANK:
        return None  # Reported on its own: the node needs a place in LAYERS.
    if (a, b) in FORBIDDEN:
        return FORBIDDEN[(a, b)]
    if RANK[a] < RANK[b]:
        return "points up"
    return "between peers" if RANK[a] == RANK[b] else None


def cycles(edges):
    """Strongly connected components of more than one node, each in layer order."""
    succ = collections.defaultdict(set)
    for a, b in edges:
        succ[a].add(b)

    def reach(start):  # The graph has a dozen nodes: plain reachability is enough.
        seen, stack = set(), [start]
        while stack:
            for n in succ[stack.pop()] - seen:
                seen.add(n)
                stack.append(n)
        return seen

    reachable = {n: reach(n) for edge in edges for n in edge}
    comps = {frozenset(m for m in reachable if m in reachable[n] and n in reachable[m]) | {n}
             for n in reachable}
    return sorted((sorted(c, key=layer_order) for c in comps if len(c) > 1),
                  key=lambda c: layer_order(c[0]))


def print_graph(edges, files, folders_only):
    print(f"Production include graph ({sum(not is_test(p) for p in files)} production files; "
          "from -> to  (#include lines)):")
    if not folders_only:
        print("  nodes: top-level folders, backends/<name>/, and")
        print("    serializer/*_writer = serializer/*_writer.{cc,h}")
    for a, b in sorted(edges, key=edge_order):
        count = len(edges[(a, b)])
        reason = None if folders_only else why_not_allowed(a, b)
        print(f"  {a} -> {b}  ({count} include{'s' if count > 1 else ''})" +
              (f"  [{reason}]" if reason else ""))
    comps = cycles(edges)
    print(f"Cycles (strongly connected components): {len(comps) or 'none'}")
    for comp in comps:
        closing = [f"{a} -> {b}" for a, b in sorted(edges, key=edge_order)
                   if a in comp and b in comp and RANK.get(a, -1) <= RANK.get(b, -1)]
        print(f"  {{{', '.join(comp)}}}" +
              (f"; closed by {', '.join(closing)}" if closing else ""))


def read_exceptions(errors):
    """{(from, to): line number} from the exceptions file; malformed lines go to errors."""
    listed = {}
    with open(os.path.join(ROOT, EXCEPTIONS_FILE), encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = re.match(r"^(\S+)\s*->\s*(\S+)\s+#.*\bissue \d+", line)
            where = f"{EXCEPTIONS_FILE}:{line_no}"
            if not m:
                errors.append(f'{where}: want "from -> to  # why, naming the issue": {line}')
            elif (m.group(1), m.group(2)) in listed:
                errors.append(f"{where}: {m.group(1)} -> {m.group(2)} is listed twice")
            else:
                listed[(m.group(1), m.group(2))] = line_no
    return listed


def check(edges, test_includes):
    """Returns (error lines, number of listed exceptions)."""
    errors = []
    listed = read_exceptions(errors)
    for (a, b) in sorted(edges, key=edge_order):
        sites = edges[(a, b)]
        for node in (a, b):
            if node not in RANK:
                errors.append(f"{node} is on no layer: place it in LAYERS in "
                              f"scripts/check_layers.py (seen at {sites[0][0]}:{sites[0][1]})")
        reason = why_not_allowed(a, b)
        if reason and (a, b) not in listed:
            errors.append(f"{a} -> {b} is not allowed ({reason}), at:")
            errors += [f'  {path}:{line_no}: #include "{inc}"' for path, line_no, inc in sites]
    for (a, b), line_no in sorted(listed.items(), key=lambda item: item[1]):
        where = f"{EXCEPTIONS_FILE}:{line_no}"
        if (a, b) not in edges:
            errors.append(f"{where}: exception {a} -> {b} is gone: remove it from the list")
        elif not why_not_allowed(a, b):
            errors.append(f"{where}: {a} -> {b} is allowed by the layer order: "
                          "remove it from the list")
    for path, line_no, inc in test_includes:
        errors.append(f'{path}:{line_no}: production code includes test code "{inc}"')
    return errors, len(listed)


def misplaced_test_helpers(files):
    """Test helpers outside tests/: a production folder holds production code only (issue 38)."""
    return [f"{path}: a test helper in a production folder: move it under tests/"
            for path in files if "test_util" in path.split("/")[-1] and
            not path.startswith("tests/")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graph", action="store_true", help="print the include graph, cycles")
    parser.add_argument("--folders", action="store_true",
                        help="with --graph: plain top-level folders, no sub-folder nodes")
    args = parser.parse_args()
    start = time.monotonic()
    files = source_files()
    edges, test_includes = production_graph(files, args.graph and args.folders)
    if args.graph:
        print_graph(edges, files, args.folders)
        return 0
    errors, n_listed = check(edges, test_includes)
    errors += misplaced_test_helpers(files)
    # The layer order rules out cycles between nodes; between plain top-level folders too, as
    # backends/ holds both the interface (below runtime/) and the backends (above it).
    folder_edges, _ = production_graph(files, True)
    for comp in cycles(folder_edges):
        errors.append(f"include cycle between top-level folders: {{{', '.join(comp)}}} "
                      "(scripts/check_layers.py --graph --folders shows the edges)")
    seconds = time.monotonic() - start
    if errors:
        print("\n".join(errors))
        print(f"check_layers: FAILED ({len(files)} files, {seconds:.2f} s). The layers and why: "
              f"scripts/check_layers.py; the allowed exceptions: {EXCEPTIONS_FILE}.")
        return 1
    print(f"check_layers: OK: {len(files)} files, {len(edges)} edges between layered nodes, "
          f"{n_listed} listed exceptions, all still needed ({seconds:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
