#!/usr/bin/env python3
"""Writes the small hand-made seed corpus of the ONNX import fuzzer (tests/fuzz/corpus/onnx_import).

Run once by a developer (needs the Python `onnx` package) when the corpus should change; the
files are committed so CI replays exactly them. Each seed is a few hundred bytes and aims at one
part of the import path: old and new opsets, IR 10, structural faults, hostile attributes.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "onnx_import")
I64_MAX = 2**63 - 1


def model(nodes, inputs, outputs, inits=(), opset=17, ir=8, name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def save(m, name):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


rng = np.random.default_rng(7)
w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)

# A conv net at opset 13 (IR 7).
save(model([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
            helper.make_node("Flatten", ["p"], ["f"]),
            helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1),
            helper.make_node("Softmax", ["y"], ["s"])],
           [vi("x", [1, 2, 6, 6])], [vi("s", [1, 3])],
           [const("w", w), const("fc", rng.standard_normal((3, 36)).astype(np.float32))],
           opset=13, ir=7), "convnet_opset13")

# Opset-18 forms at IR 10: Reduce axes as an input, Split num_outputs, Pad axes.
save(model([helper.make_node("ReduceMean", ["x", "axes"], ["m"], keepdims=1),
            helper.make_node("Sub", ["x", "m"], ["d"]),
            helper.make_node("Split", ["d"], ["a", "b"], axis=1, num_outputs=2),
            helper.make_node("Pad", ["a", "pads", "", "pax"], ["y"]),
            helper.make_node("Mul", ["b", "b"], ["z"])],
           [vi("x", [2, 4])], [vi("y", [2, 4]), vi("z", [2, 2])],
           [const("axes", np.array([1], np.int64)), const("pads", np.array([1, 1], np.int64)),
            const("pax", np.array([1], np.int64))], opset=18, ir=10), "opset18_forms")

# A transformer-style block at opset 21, IR 10.
d = 8
save(model([helper.make_node("Gather", ["emb", "ids"], ["e"]),
            helper.make_node("LayerNormalization", ["e", "g", "bta"], ["n"], axis=-1, epsilon=1e-5),
            helper.make_node("MatMul", ["n", "wq"], ["q"]),
            helper.make_node("Transpose", ["q"], ["qt"], perm=[0, 2, 1]),
            helper.make_node("MatMul", ["q", "qt"], ["s"]),
            helper.make_node("Softmax", ["s"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "n"], ["o"]),
            helper.make_node("Gelu", ["o"], ["gl"]),
            helper.make_node("Reshape", ["gl", "shp"], ["y"])],
           [vi("ids", [1, 4], TensorProto.INT64)], [vi("y", [4, d])],
           [const("emb", rng.standard_normal((10, d)).astype(np.float32)),
            const("g", np.ones(d, np.float32)), const("bta", np.zeros(d, np.float32)),
            const("wq", rng.standard_normal((d, d)).astype(np.float32)),
            const("shp", np.array([4, d], np.int64))], opset=21, ir=10), "transformer_opset21")

# Opset 7: attribute forms the importer upgrades (Clip min/max, Slice, Pad, Upsample, Dropout).
save(model([helper.make_node("Clip", ["x"], ["c"], min=-1.0, max=1.0),
            helper.make_node("Slice", ["c"], ["s"], starts=[0, 1], ends=[1, 3], axes=[0, 1]),
            helper.make_node("Pad", ["s"], ["p"], pads=[0, 1, 0, 1], mode="constant", value=0.5),
            helper.make_node("Upsample", ["p"], ["u"], scales=[1.0, 2.0], mode="nearest"),
            helper.make_node("Dropout", ["u"], ["y"], ratio=0.3)],
           [vi("x", [2, 4])], [vi("y", [1, 8])], opset=7, ir=3), "opset7_attribute_forms")

# The crash of issue 11: test_gather_0 with its output renamed so that no node produces it.
m = model([helper.make_node("Gather", ["data", "indices"], ["y"], axis=0)],
          [vi("data", [5, 4, 3]), vi("indices", [3], TensorProto.INT64)], [vi("G", [3, 4, 3])],
          opset=13, ir=7)
save(m, "gather_output_not_produced")

# Structural faults: an undefined node input, a value defined twice, a duplicate initializer
# and an initializer whose data does not match its dims.
save(model([helper.make_node("Relu", ["nope"], ["y"])], [vi("x", [2])], [vi("y", [2])]),
     "undefined_input")
save(model([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["x"], ["y"])],
           [vi("x", [2])], [vi("y", [2])]), "defined_twice")
bad = const("w", np.zeros(4, np.float32))
bad.dims[:] = [5]
save(model([helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", [4])], [vi("y", [4])],
           [bad, const("w", np.zeros(4, np.float32))]), "initializer_faults")

# Hostile attributes: the overflow the loader fuzzer found, reached from ONNX.
save(model([helper.make_node("Conv", ["x", "w"], ["y"], pads=[I64_MAX - 5] * 4,
                             dilations=[I64_MAX, I64_MAX])],
           [vi("x", [1, 2, 6, 6])], [vi("y", [1, 4, 6, 6])], [const("w", w)]), "conv_pads_int64_max")
save(model([helper.make_node("Tile", ["x", "r"], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3])],
           [const("r", np.array([I64_MAX, 2], np.int64))]), "tile_repeats_int64_max")

# A symbolic batch dim (defaults to 1) and a newer TensorProto type (BFLOAT16) on an input.
save(model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", ["N", 3])], [vi("y", ["N", 3])],
           opset=19, ir=9), "symbolic_batch")
save(model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [3], TensorProto.BFLOAT16)],
           [vi("y", [3], TensorProto.BFLOAT16)], opset=21, ir=10), "bfloat16_input")
print("wrote", len(os.listdir(OUT)), "seeds to", OUT)
