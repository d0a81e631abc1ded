#!/usr/bin/env python3
"""Writes models quantized by ONNX Runtime's own tools, with ONNX Runtime reference outputs.

    gen_quantized_models.py OUT_DIR [SHARED_DIR]

A small float convnet (opset 13: Conv+Relu, depthwise Conv+Clip(0,6), 1x1 Conv, a residual Add,
a Concat of two branches, Sigmoid, GlobalAveragePool, Flatten, MatMul + Add classifier) is
quantized by onnxruntime.quantization.quantize_static, calibrated on 16 random inputs, in both
formats ORT writes:
- qdq_convnet: QuantFormat.QDQ, per-channel int8 weights, uint8 activations (QuantizeLinear /
  DequantizeLinear pairs around float ops);
- qop_convnet: QuantFormat.QOperator, the same settings (QLinearConv, QLinearMatMul and the
  com.microsoft QLinearAdd / QLinearConcat / QLinearGlobalAveragePool / QLinearSigmoid);
and integer_ops, built by hand: ConvInteger and MatMulInteger on a uint8 input (int32 outputs).
Each goes to OUT_DIR/<name>/model.onnx with test_data_set_0/{input,output}_0.pb: an input that
was not calibrated on and ONNX Runtime's output for it (its int8 kernels, made exact on CPUs
without VNNI by session.x64quantprecision).
With SHARED_DIR (../shared), also zoo_mobilenetv2_layers/<k>/: every QOperator node of the zoo's
mobilenetv2-12-int8 as a one-node model, fed the codes ONNX Runtime computes for its inputs on
that model's test_data_set_0, with ONNX Runtime's output codes (a per-layer check: end to end,
one rounding difference early on grows through the later layers).
"""
import hashlib
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)

rng = np.random.default_rng(20251124)


def script_digest():
    """What the stamp keys on besides the pinned versions: this script's own text, so that data
    made by an older generator is made anew rather than found warm (scripts/test.sh)."""
    with open(__file__, "rb") as f:
        return "script " + hashlib.sha256(f.read()).hexdigest()[:16]


def f32(*shape, scale=0.3):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def convnet():
    c = 8
    inits = [const("w1", f32(c, 3, 3, 3)), const("b1", f32(c, scale=0.1)),
             const("wd", f32(c, 1, 3, 3)), const("bd", f32(c, scale=0.1)),
             const("w2", f32(c, c, 1, 1)), const("b2", f32(c, scale=0.1)),
             const("w3", f32(4, c, 1, 1)), const("b3", f32(4, scale=0.1)),
             const("lo", np.float32(0)), const("hi", np.float32(6)),
             const("fc_w", f32(c + 4, 10)), const("fc_b", f32(10, scale=0.1))]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "wd", "bd"], ["cd"], pads=[1, 1, 1, 1], group=c),
        helper.make_node("Clip", ["cd", "lo", "hi"], ["r2"]),
        helper.make_node("Conv", ["r2", "w2", "b2"], ["c2"]),
        helper.make_node("Add", ["c2", "r1"], ["res"]),
        helper.make_node("Conv", ["r1", "w3", "b3"], ["c3"]),
        helper.make_node("Sigmoid", ["c3"], ["s3"]),
        helper.make_node("Concat", ["res", "s3"], ["cat"], axis=1),
        helper.make_node("GlobalAveragePool", ["cat"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"]),
        helper.make_node("MatMul", ["flat", "fc_w"], ["mm"]),
        helper.make_node("Add", ["mm", "fc_b"], ["y"]),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])
    graph = helper.make_graph(nodes, "convnet", [x], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


class Reader(CalibrationDataReader):
    def __init__(self, samples):
        self.samples, self.i = samples, 0

    def get_next(self):
        if self.i >= len(self.samples):
            return None
        self.i += 1
        return {"x": self.samples[self.i - 1]}


def integer_ops():
    inits = [const("w", rng.integers(0, 256, size=(4, 2, 3, 3)).astype(np.uint8)),
             const("x_zp", np.uint8(120)), const("w_zp", np.uint8(131)),
             const("m", rng.integers(-127, 128, size=(5, 6)).astype(np.int8)),
             const("m_zp", np.int8(-3))]
    nodes = [
        helper.make_node("ConvInteger", ["x", "w", "x_zp", "w_zp"], ["y_conv"], pads=[1, 1, 1, 1]),
        helper.make_node("Reshape", ["x", "shape"], ["x2"]),
        helper.make_node("MatMulInteger", ["x2", "m", "x_zp", "m_zp"], ["y_mm"]),
    ]
    inits.append(const("shape", np.array([10, 5], dtype=np.int64)))
    x = helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 2, 5, 5])
    outs = [helper.make_tensor_value_info("y_conv", TensorProto.INT32, [1, 4, 5, 5]),
            helper.make_tensor_value_info("y_mm", TensorProto.INT32, [10, 6])]
    graph = helper.make_graph(nodes, "integer_ops", [x], outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model, {"x": rng.integers(0, 256, size=(1, 2, 5, 5)).astype(np.uint8)}


def exact_session(model):
    """An ONNX Runtime session whose integer products are exact on every x86 CPU: without VNNI,
    its u8s8 kernels use vpmaddubsw, which saturates int16 pair sums (on an AVX2-only AMD EPYC
    integer_ops' MatMulInteger came out 8051 off ONNX's reference evaluator, zoo layers up to 44
    codes); session.x64quantprecision widens them to int16 instead (matches the reference)."""
    so = ort.SessionOptions()
    so.add_session_config_entry("session.x64quantprecision", "1")
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def save(out_dir, name, model, feed):
    sess = exact_session(model)
    outputs = sess.run(None, feed)
    d = os.path.join(out_dir, name)
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, (k, v) in enumerate(feed.items()):
        onnx.save_tensor(numpy_helper.from_array(v, k), os.path.join(ds, f"input_{i}.pb"))
    for i, (info, v) in enumerate(zip(model.graph.output, outputs)):
        onnx.save_tensor(numpy_helper.from_array(v, info.name), os.path.join(ds, f"output_{i}.pb"))


def zoo_layers(out_dir, shared):
    d = os.path.join(shared, "models", "quantized", "mobilenetv2-12-int8")
    if not os.path.exists(os.path.join(d, "model.onnx")):
        return 0
    m = onnx.load(os.path.join(d, "model.onnx"))
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "test_data_set_0", "input_0.pb")))
    inits = {t.name: t for t in m.graph.initializer}
    ops = ("QLinearConv", "QLinearAdd", "QLinearGlobalAveragePool", "QLinearMatMul")
    nodes = [n for n in m.graph.node if n.op_type in ops]
    # One ORT run gives the input codes of every node.
    wanted = sorted({i for n in nodes for i in n.input if i not in inits})
    probe = helper.make_model(
        helper.make_graph(list(m.graph.node), "probe", list(m.graph.input),
                          [helper.make_tensor_value_info(i, TensorProto.UINT8, None) for i in wanted],
                          list(m.graph.initializer)), opset_imports=m.opset_import)
    probe.ir_version = m.ir_version
    values = dict(zip(wanted, exact_session(probe).run(None, {"input": x})))
    for k, n in enumerate(nodes):
        ins = [i for i in n.input if i not in inits]
        g = helper.make_graph(
            [n], f"layer{k}",
            [helper.make_tensor_value_info(i, TensorProto.UINT8, list(values[i].shape)) for i in ins],
            [helper.make_tensor_value_info(n.output[0], TensorProto.UINT8, None)],
            [inits[i] for i in n.input if i in inits])
        model = helper.make_model(g, opset_imports=m.opset_import)
        model.ir_version = m.ir_version
        save(out_dir, os.path.join("zoo_mobilenetv2_layers", f"{k:02d}"), model, {i: values[i] for i in ins})
    return len(nodes)


def main():
    out_dir = sys.argv[1]
    stamp = os.path.join(out_dir, "VERSION")
    shared = sys.argv[2] if len(sys.argv) > 2 else ""
    zoo = os.path.exists(os.path.join(shared, "models", "quantized", "mobilenetv2-12-int8"))
    tag = f"onnx {onnx.__version__} onnxruntime {ort.__version__} {script_digest()} zoo={int(zoo)}"
    if os.path.exists(stamp) and open(stamp).read().strip() == tag:
        print(f"gen_quantized_models: models already in {out_dir}")
        return
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    calib = [rng.uniform(-1, 1, size=(1, 3, 16, 16)).astype(np.float32) for _ in range(16)]
    test = {"x": rng.uniform(-1, 1, size=(1, 3, 16, 16)).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = os.path.join(tmp, "convnet.onnx")
        onnx.save(convnet(), fp32)
        for name, fmt in (("qdq_convnet", QuantFormat.QDQ), ("qop_convnet", QuantFormat.QOperator)):
            q = os.path.join(tmp, name + ".onnx")
            quantize_static(fp32, q, Reader(calib), quant_format=fmt, per_channel=True,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
            save(out_dir, name, onnx.load(q), test)
    model, feed = integer_ops()
    onnx.checker.check_model(model, full_check=True)
    save(out_dir, "integer_ops", model, feed)
    layers = zoo_layers(out_dir, shared) if zoo else 0
    with open(stamp, "w") as f:
        f.write(tag + "\n")
    print(f"gen_quantized_models: wrote qdq_convnet, qop_convnet, integer_ops and {layers} zoo "
          f"mobilenetv2-12-int8 layers to {out_dir}")


if __name__ == "__main__":
    main()
