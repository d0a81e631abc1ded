#!/usr/bin/env python3
"""Writes the node test suite of the installed `onnx` package (pip) in the ONNX test-data layout.

    gen_onnx_node_tests.py OUT_DIR

OUT_DIR/<test name>/model.onnx and OUT_DIR/<test name>/test_data_set_0/{input,output}_N.pb, as
Debian's libonnx-testdata lays out onnx 1.12's suite. The cases come from onnx's own test
generator (onnx.backend.test.case.node), so they match the installed onnx release exactly.
Non-tensor inputs/outputs (sequences, maps, optionals) are skipped: Kiln has tensors only.
OUT_DIR/VERSION records the onnx version; an existing complete suite of the same version is
kept (a second run costs nothing).
"""
import hashlib
import os
import shutil
import sys

import onnx
from onnx import numpy_helper


def script_digest():
    """What the stamp keys on besides the pinned versions: this script's own text, so that data
    made by an older generator is made anew rather than found warm (scripts/test.sh)."""
    with open(__file__, "rb") as f:
        return "script " + hashlib.sha256(f.read()).hexdigest()[:16]


def write_case(case, out_dir):
    d = os.path.join(out_dir, case.name)
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(d)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        ds = os.path.join(d, f"test_data_set_{i}")
        os.makedirs(ds)
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                if j >= len(infos) or not infos[j].type.HasField("tensor_type"):
                    return False
                if isinstance(value, onnx.TensorProto):
                    proto = value
                else:
                    proto = numpy_helper.from_array(value, infos[j].name)
                with open(os.path.join(ds, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(proto.SerializeToString())
    return True


def main():
    out_dir = sys.argv[1]
    stamp = os.path.join(out_dir, "VERSION")
    tag = f"{onnx.__version__} {script_digest()}"
    if os.path.exists(stamp) and open(stamp).read().strip() == tag:
        print(f"gen_onnx_node_tests: onnx {onnx.__version__} suite already in {out_dir}")
        return
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    from onnx.backend.test.case.node import collect_testcases

    written = skipped = 0
    for case in collect_testcases():
        if case.kind != "node":
            continue
        try:
            ok = write_case(case, out_dir)
        except Exception:  # a value numpy_helper cannot write (e.g. a sequence): not a tensor case
            ok = False
        if ok:
            written += 1
        else:
            shutil.rmtree(os.path.join(out_dir, case.name), ignore_errors=True)
            skipped += 1
    with open(stamp, "w") as f:
        f.write(tag + "\n")
    print(f"gen_onnx_node_tests: onnx {onnx.__version__}: wrote {written} node tests to {out_dir} "
          f"({skipped} with non-tensor values skipped)")


if __name__ == "__main__":
    main()
