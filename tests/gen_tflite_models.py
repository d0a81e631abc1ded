#!/usr/bin/env python3
"""Writes the TFLite test fixtures of tests/tflite/ with LiteRT reference outputs.

    gen_tflite_models.py OUT_DIR

Needs tensorflow-cpu (the TFLite converter) and ai-edge-litert (LiteRT, the reference
interpreter) in the Python running it: a venv of its own outside the tree, never CI's, e.g.

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu ai-edge-litert
    /tmp/tfvenv/bin/python tests/gen_tflite_models.py tests/tflite

CI does not run it: the models and outputs it writes are committed (a few KB each), so the
tests need nothing beyond what the tree has. Measured with tensorflow-cpu 2.21.0 and
ai-edge-litert 2.3.0.

Two small NHWC float graphs, written as tf.functions so that each TF op maps to one TFLite
builtin:
- cnn: CONV_2D (SAME, fused RELU6), DEPTHWISE_CONV_2D (stride 2, fused RELU), MAX_POOL_2D,
  AVERAGE_POOL_2D (SAME), CONCATENATION, PAD (asymmetric), CONV_2D (VALID, dilation 2),
  RESIZE_BILINEAR (half-pixel), RESIZE_NEAREST_NEIGHBOR, TRANSPOSE_CONV, STRIDED_SLICE,
  ADD / MUL / SUB with broadcasting, HARD_SWISH, LOGISTIC, TANH;
- head: CONV_2D (stride 2), MEAN over H and W, RESHAPE (flattening NHWC), FULLY_CONNECTED
  (fused RELU), ADD, SOFTMAX, and a second output that keeps NHWC rank 4.
Each is written three ways: float32 (<name>_float), float16 weights with DEQUANTIZE
(<name>_f16), and full-integer int8 (<name>_int8: per-channel int8 weights, int32 biases,
int8 activations, int8 input and output), calibrated on 32 random inputs.
Then one model per op on a [1, 8, 8, 4] input: int8_op_<op> for the int8 form of every op of
the two graphs, float_op_<op> for the float builtins they do not use; and dsp_int8, an int8
network large enough for the DSP target.
Each model gets a folder, OUT_DIR/<model>/, with model.tflite, input_0.npy (an
input not calibrated on) and output_<k>.npy (the outputs of LiteRT's builtin reference kernels,
in the model's output order): the layout `kiln validate MODEL --test-data FOLDER` reads.
"""
import os
import sys

import numpy as np
import tensorflow as tf
from ai_edge_litert.interpreter import Interpreter, OpResolverType

rng = np.random.default_rng(20261129)


def const(shape, scale=0.3):
    return tf.constant(rng.normal(0.0, scale, shape).astype(np.float32))


class Cnn(tf.Module):
    def __init__(self):
        self.w1 = const([3, 3, 3, 8])
        self.b1 = const([8], 0.1)
        self.dw = const([3, 3, 8, 1])
        self.db = const([8], 0.1)
        self.w2 = const([1, 1, 8, 8])
        self.w3 = const([3, 3, 16, 8], 0.15)
        self.tw = const([3, 3, 4, 8], 0.2)  # conv2d_transpose: [H, W, out, in]
        self.scale = const([1, 1, 1, 4], 0.5)
        self.shift = const([4], 0.2)

    @tf.function(input_signature=[tf.TensorSpec([1, 16, 16, 3], tf.float32)])
    def __call__(self, x):
        y = tf.nn.relu6(tf.nn.conv2d(x, self.w1, 1, "SAME") + self.b1)
        y = tf.nn.relu(tf.nn.depthwise_conv2d(y, self.dw, [1, 2, 2, 1], "SAME") + self.db)
        a = tf.nn.max_pool2d(y, 2, 2, "VALID")
        b = tf.nn.avg_pool2d(tf.nn.conv2d(y, self.w2, 2, "VALID"), 3, 1, "SAME")
        y = tf.concat([a, b], axis=3)  # [1, 4, 4, 16]
        y = tf.pad(y, [[0, 0], [1, 2], [2, 1], [0, 0]])  # not SAME: stays a PAD
        y = tf.nn.conv2d(y, self.w3, 1, "VALID", dilations=2)  # [1, 3, 3, 8]
        y = tf.image.resize(y, [8, 8], method="bilinear")
        n = tf.image.resize(y, [16, 16], method="nearest")
        y = tf.nn.conv2d_transpose(y, self.tw, [1, 16, 16, 4], 2, "SAME")
        n4 = n[:, :, :, :4]
        y = y * tf.sigmoid(n4) - n4 * self.scale + self.shift
        h = y * tf.nn.relu6(y + 3.0) / 6.0
        return {"out": tf.sigmoid(h) + tf.tanh(y)}


class Head(tf.Module):
    def __init__(self):
        self.w = const([3, 3, 4, 12], 0.25)
        self.fw = const([12, 10], 0.3)
        self.fb = const([10], 0.1)
        self.fw2 = const([192, 10], 0.05)

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 4], tf.float32)])
    def __call__(self, x):
        f = tf.nn.relu(tf.nn.conv2d(x, self.w, 2, "SAME"))  # [1, 4, 4, 12]
        m = tf.reduce_mean(f, axis=[1, 2])  # [1, 12]
        z = tf.nn.relu(tf.matmul(m, self.fw) + self.fb)
        z = z + tf.matmul(tf.reshape(f, [1, 192]), self.fw2)  # flattens in NHWC order
        return {"probs": tf.nn.softmax(z), "features": f}


class OneOp(tf.Module):
    """One TFLite builtin (or its fused form) on a [1, 8, 8, 4] NHWC input: the per-op int8
    checks (end to end, a one-code difference early can grow through later layers) and the
    float builtins the two graphs do not use."""

    def __init__(self, fn):
        self.fn = fn

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 4], tf.float32)])
    def __call__(self, x):
        return {"y": self.fn(x)}


def one_op_models():
    w = const([3, 3, 4, 6])
    b = const([6], 0.1)
    dw = const([3, 3, 4, 2])
    tw = const([3, 3, 4, 4], 0.2)
    fw = const([256, 10], 0.05)
    c4 = const([4], 0.3)
    return {
        "conv": lambda x: tf.nn.relu6(tf.nn.conv2d(x, w, 1, "SAME") + b),
        "conv_stride2": lambda x: tf.nn.conv2d(x, w, 2, "VALID") + b,
        "depthwise": lambda x: tf.nn.relu(tf.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME")),
        "transpose_conv": lambda x: tf.nn.conv2d_transpose(x, tw, [1, 16, 16, 4], 2, "SAME"),
        "fully_connected": lambda x: tf.matmul(tf.reshape(x, [1, 256]), fw),
        "max_pool": lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"),
        "average_pool": lambda x: tf.nn.avg_pool2d(x, 3, 1, "SAME"),
        "add": lambda x: x + tf.nn.relu(x) * 0.5 + c4,
        "mul": lambda x: x * tf.sigmoid(x),
        "sub": lambda x: x - tf.nn.relu(x) * 0.25,
        "concatenation": lambda x: tf.concat([x, tf.nn.relu(x)], axis=3),
        "pad": lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]),
        "resize_bilinear": lambda x: tf.image.resize(x, [16, 16], method="bilinear"),
        "resize_nearest": lambda x: tf.image.resize(x, [16, 16], method="nearest"),
        "hard_swish": lambda x: x * tf.nn.relu6(x + 3.0) / 6.0,
        "logistic": tf.sigmoid,
        "tanh": tf.tanh,
        "mean": lambda x: tf.reduce_mean(x, axis=[1, 2]),
        "softmax": lambda x: tf.nn.softmax(tf.reshape(x, [1, 64, 4]) * 4.0),
        "strided_slice": lambda x: x[:, 1:7:2, ::3, 1:],
    }


def float_op_models():
    """Float one-op models for the builtins the two graphs above do not use."""
    m3 = const([4, 5])
    alpha = tf.constant(np.linspace(0.05, 0.4, 4).astype(np.float32))
    idx = tf.constant([3, 0, 2], dtype=tf.int32)
    prelu = tf.keras.layers.PReLU(alpha_initializer=tf.constant_initializer(alpha.numpy()),
                                  shared_axes=[1, 2])
    prelu.build([1, 8, 8, 4])
    return {
        "prelu": lambda x: prelu(x),
        "leaky_relu": lambda x: tf.nn.leaky_relu(x, 0.15),
        "exp": tf.exp,
        "abs_neg": lambda x: -tf.abs(x),
        "sqrt": lambda x: tf.sqrt(x + 1.5),
        "relu6": tf.nn.relu6,
        "relu_n1_to_1": lambda x: tf.clip_by_value(x * 2.0, -1.0, 1.0),
        "maximum_minimum": lambda x: tf.minimum(tf.maximum(x, -0.25), x * x),
        "div": lambda x: x / (tf.abs(x) + 1.0),
        "batch_matmul": lambda x: tf.matmul(tf.reshape(x, [8, 8, 4]), tf.reshape(x, [8, 8, 4]),
                                            transpose_b=True),
        "fully_connected_3d": lambda x: tf.matmul(tf.reshape(x, [1, 64, 4]), m3[None]),
        "gather": lambda x: tf.gather(x, idx, axis=3),
        "transpose": lambda x: tf.transpose(x, [0, 3, 1, 2]),
        "sum_keepdims": lambda x: tf.reduce_sum(x, axis=[2], keepdims=True),
        "reduce_max": lambda x: tf.reduce_max(x, axis=[1, 3]),
        "padv2": lambda x: tf.pad(x, [[0, 0], [1, 1], [0, 2], [0, 0]], constant_values=0.5),
        "squeeze_expand": lambda x: tf.expand_dims(tf.squeeze(x[:, :1], axis=1), 2),
        "softmax_beta": lambda x: tf.nn.softmax(x * 2.5),
        "depth_to_space": lambda x: tf.nn.depth_to_space(x, 2),
        "space_to_depth": lambda x: tf.nn.space_to_depth(x, 2),
    }


class DspNet(tf.Module):
    """Convolutions large enough (8.3 M MACs) that Kiln's cost placement keeps them on the DSP
    target; global pooling keeps the output small."""

    def __init__(self):
        # Its own generator: the models above keep the weights and inputs they had before it.
        own = np.random.default_rng(48)
        w = lambda shape, scale: tf.constant(own.normal(0.0, scale, shape).astype(np.float32))
        self.w1 = w([3, 3, 8, 32], 0.2)
        self.dw = w([3, 3, 32, 1], 0.3)
        self.w2 = w([1, 1, 32, 32], 0.2)

    @tf.function(input_signature=[tf.TensorSpec([1, 48, 48, 8], tf.float32)])
    def __call__(self, x):
        y = tf.nn.relu(tf.nn.conv2d(x, self.w1, 1, "SAME"))
        y = tf.nn.relu6(tf.nn.depthwise_conv2d(y, self.dw, [1, 1, 1, 1], "SAME"))
        y = tf.nn.relu(tf.nn.conv2d(y, self.w2, 1, "SAME"))
        return {"y": tf.reduce_mean(y, axis=[1, 2])}


class SparseConv(tf.Module):
    """A 1x1 convolution and a dense layer whose weights are 80 % zeros: the converter stores
    them as sparse tensors read through DENSIFY."""

    def __init__(self):
        w = rng.normal(0.0, 0.3, [1, 1, 4, 32]).astype(np.float32)
        w[rng.uniform(size=w.shape) < 0.8] = 0.0
        f = rng.normal(0.0, 0.3, [32, 16]).astype(np.float32)
        f[:, ::4] = 0.0
        f[rng.uniform(size=f.shape) < 0.8] = 0.0
        self.w, self.f = tf.constant(w), tf.constant(f)

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, 4], tf.float32)])
    def __call__(self, x):
        y = tf.nn.relu(tf.nn.conv2d(x, self.w, 1, "VALID"))
        return {"y": tf.matmul(tf.reshape(y, [64, 32]), self.f)}


def convert(module, mode, shape):
    fn = module.__call__.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
    if mode == "sparse":
        conv.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
    elif mode == "f16":
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.target_spec.supported_types = [tf.float16]
    elif mode == "int8":
        calib = [rng.uniform(-1.0, 1.0, shape).astype(np.float32) for _ in range(32)]
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = lambda: ([c] for c in calib)
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    return conv.convert()


def reference(model_bytes, x):
    """LiteRT's outputs with its builtin (reference-checked) kernels, not XNNPACK."""
    it = Interpreter(model_content=model_bytes,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    if inp["dtype"] == np.int8:
        s, z = inp["quantization"]
        x = np.clip(np.round(x / s) + z, -128, 127).astype(np.int8)
    it.set_tensor(inp["index"], x)
    it.invoke()
    outs = [it.get_tensor(o["index"]) for o in it.get_output_details()]
    return x, outs


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    cases = [(f"{name}_{mode}", module, shape, mode)
             for name, module, shape in (("cnn", Cnn(), [1, 16, 16, 3]), ("head", Head(), [1, 8, 8, 4]))
             for mode in ("float", "f16", "int8")]
    cases += [(f"int8_op_{name}", OneOp(fn), [1, 8, 8, 4], "int8")
              for name, fn in one_op_models().items()]
    cases += [(f"float_op_{name}", OneOp(fn), [1, 8, 8, 4], "float")
              for name, fn in float_op_models().items()]
    cases.append(("float_op_densify", SparseConv(), [1, 8, 8, 4], "sparse"))
    cases.append(("dsp_int8", DspNet(), [1, 48, 48, 8], "int8"))
    for folder_name, module, shape, mode in cases:
        x = rng.uniform(-1.0, 1.0, shape).astype(np.float32)
        model = convert(module, mode, shape)
        folder = os.path.join(out_dir, folder_name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "model.tflite"), "wb") as f:
            f.write(model)
        x_in, outs = reference(model, x)
        np.save(os.path.join(folder, "input_0.npy"), x_in)
        for k, o in enumerate(outs):
            np.save(os.path.join(folder, f"output_{k}.npy"), o)
        print(f"{folder}/model.tflite: {len(model)} bytes, outputs",
              [(o.dtype.name, list(o.shape)) for o in outs])


if __name__ == "__main__":
    main()
