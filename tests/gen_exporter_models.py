#!/usr/bin/env python3
"""Writes small models as a current exporter saves them, with ONNX Runtime reference outputs.

    gen_exporter_models.py OUT_DIR

Each model is saved at opset 18 and at opset 21, IR version 10 (what PyTorch's exporter writes
today), with a symbolic batch dim, in the ONNX test-data layout:
OUT_DIR/<name>_opset<N>/model.onnx and test_data_set_0/{input,output}_0.pb. The graphs are built
with onnx.helper (no torch needed), checked with onnx's full checker, and run with ONNX Runtime
for the reference outputs.
- convnet: Conv, BatchNormalization, Relu, MaxPool, a residual Add, GlobalAveragePool, Flatten,
  Gemm, Softmax;
- transformer: Gather on an embedding table, LayerNormalization, MatMul to q/k/v split with
  Split(num_outputs=3), Reshape/Transpose into heads, scaled dot-product attention with Softmax,
  an output projection and residual, a second LayerNormalization and an MLP with Gelu (opset 21:
  the Gelu op; opset 18: its Erf form), a ReduceMean with axes as an input (opset 18 form).
"""
import hashlib
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(20251123)


def script_digest():
    """What the stamp keys on besides the pinned versions: this script's own text, so that data
    made by an older generator is made anew rather than found warm (scripts/test.sh)."""
    with open(__file__, "rb") as f:
        return "script " + hashlib.sha256(f.read()).hexdigest()[:16]


def f32(*shape, scale=0.2):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def convnet(opset):
    c = 8
    inits = [const("w1", f32(c, 3, 3, 3)), const("b1", f32(c)),
             const("bn_s", 1 + f32(c)), const("bn_b", f32(c)), const("bn_m", f32(c)),
             const("bn_v", np.abs(1 + f32(c)).astype(np.float32)),
             const("w2", f32(c, c, 3, 3)), const("fc_w", f32(10, c)), const("fc_b", f32(10))]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c1", "bn_s", "bn_b", "bn_m", "bn_v"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "p1"], ["res"]),
        helper.make_node("Relu", ["res"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=-1),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32])
    y = helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 10])
    graph = helper.make_graph(nodes, "convnet", [x], [y], inits)
    feed = {"x": rng.standard_normal((1, 3, 32, 32)).astype(np.float32)}
    return graph, feed


def transformer(opset):
    vocab, seq, d, heads = 50, 8, 16, 2
    hd = d // heads
    inits = [const("emb", f32(vocab, d, scale=1.0)),
             const("ln1_s", 1 + f32(d)), const("ln1_b", f32(d)),
             const("w_qkv", f32(d, 3 * d)), const("w_o", f32(d, d)),
             const("ln2_s", 1 + f32(d)), const("ln2_b", f32(d)),
             const("w_1", f32(d, 4 * d)), const("w_2", f32(4 * d, d)),
             const("heads_shape", np.array([1, seq, heads, hd], np.int64)),
             const("model_shape", np.array([1, seq, d], np.int64)),
             const("inv_sqrt_hd", np.array(1 / np.sqrt(hd), np.float32)),
             const("mean_axes", np.array([-1], np.int64))]
    nodes = [
        helper.make_node("Gather", ["emb", "ids"], ["e"], axis=0),
        helper.make_node("LayerNormalization", ["e", "ln1_s", "ln1_b"], ["n1"], axis=-1),
        helper.make_node("MatMul", ["n1", "w_qkv"], ["qkv"]),
        helper.make_node("Split", ["qkv"], ["q", "k", "v"], axis=-1, num_outputs=3),
    ]
    for t in ("q", "k", "v"):
        nodes.append(helper.make_node("Reshape", [t, "heads_shape"], [t + "_h"]))
        nodes.append(helper.make_node("Transpose", [t + "_h"], [t + "_t"], perm=[0, 2, 1, 3]))
    nodes += [
        helper.make_node("Transpose", ["k_t"], ["k_tt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q_t", "k_tt"], ["scores"]),
        helper.make_node("Mul", ["scores", "inv_sqrt_hd"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["attn"], axis=-1),
        helper.make_node("MatMul", ["attn", "v_t"], ["ctx"]),
        helper.make_node("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ctx_t", "model_shape"], ["ctx_m"]),
        helper.make_node("MatMul", ["ctx_m", "w_o"], ["proj"]),
        helper.make_node("Add", ["e", "proj"], ["h1"]),
        helper.make_node("LayerNormalization", ["h1", "ln2_s", "ln2_b"], ["n2"], axis=-1),
        helper.make_node("MatMul", ["n2", "w_1"], ["up"]),
    ]
    if opset >= 20:
        nodes.append(helper.make_node("Gelu", ["up"], ["act"]))
    else:  # Gelu's Erf form, as exporters write it before opset 20
        inits += [const("inv_sqrt2", np.array(1 / np.sqrt(2), np.float32)),
                  const("one", np.array(1, np.float32)), const("half", np.array(0.5, np.float32))]
        nodes += [helper.make_node("Mul", ["up", "inv_sqrt2"], ["g0"]),
                  helper.make_node("Erf", ["g0"], ["g1"]),
                  helper.make_node("Add", ["g1", "one"], ["g2"]),
                  helper.make_node("Mul", ["up", "g2"], ["g3"]),
                  helper.make_node("Mul", ["g3", "half"], ["act"])]
    nodes += [
        helper.make_node("MatMul", ["act", "w_2"], ["down"]),
        helper.make_node("Add", ["h1", "down"], ["h2"]),
        helper.make_node("ReduceMean", ["h2", "mean_axes"], ["pooled"], keepdims=0),
    ]
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [1, seq])
    y = helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, seq])
    graph = helper.make_graph(nodes, "transformer_block", [ids], [y], inits)
    feed = {"ids": rng.integers(0, vocab, size=(1, seq)).astype(np.int64)}
    return graph, feed


def main():
    out_dir = sys.argv[1]
    stamp = os.path.join(out_dir, "VERSION")
    tag = f"onnx {onnx.__version__} onnxruntime {ort.__version__} {script_digest()}"
    if os.path.exists(stamp) and open(stamp).read().strip() == tag:
        print(f"gen_exporter_models: models already in {out_dir}")
        return
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    for build in (convnet, transformer):
        for opset in (18, 21):
            graph, feed = build(opset)
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                      producer_name="kiln-test-exporter")
            model.ir_version = 10
            onnx.checker.check_model(model, full_check=True)
            sess = ort.InferenceSession(model.SerializeToString(),
                                        providers=["CPUExecutionProvider"])
            outputs = sess.run(None, feed)
            d = os.path.join(out_dir, f"{build.__name__}_opset{opset}")
            ds = os.path.join(d, "test_data_set_0")
            os.makedirs(ds)
            onnx.save(model, os.path.join(d, "model.onnx"))
            for i, (name, value) in enumerate(feed.items()):
                onnx.save_tensor(numpy_helper.from_array(value, name), os.path.join(ds, f"input_{i}.pb"))
            for i, (info, value) in enumerate(zip(graph.output, outputs)):
                onnx.save_tensor(numpy_helper.from_array(value, info.name),
                                 os.path.join(ds, f"output_{i}.pb"))
    with open(stamp, "w") as f:
        f.write(tag + "\n")
    print(f"gen_exporter_models: wrote 4 models (convnet, transformer at opsets 18, 21; IR 10) to {out_dir}")


if __name__ == "__main__":
    main()
