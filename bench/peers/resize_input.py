#!/usr/bin/env python3
"""A copy of a fully convolutional-up-to-pooling ONNX model (the shared CNNs) with its image input
resized, in the shared model layout, so compare.py, op_compare.py and ab_ops.py can time it at
another resolution: 256x256 images give power-of-two planes (128, 64, 32, 16, 8), which stress
cache associativity where 224x224 (112, 56, 28, 14, 7) does not.

  build-peers/venv/bin/python bench/peers/resize_input.py SRC_DIR DST_DIR HEIGHT WIDTH

Writes DST_DIR/model.onnx (the first input's H and W replaced, intermediate shapes dropped for
re-inference) and DST_DIR/test_data_set_0/input_0.pb (uniform random, seed 0; no expected
output: for timing only). Models whose shapes do not follow the input (a Reshape to a fixed
spatial size) fail when Kiln or ONNX Runtime loads the copy.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("height", type=int)
    ap.add_argument("width", type=int)
    args = ap.parse_args()
    model = onnx.load(os.path.join(args.src, "model.onnx"))
    inp = model.graph.input[0]
    dims = inp.type.tensor_type.shape.dim
    if len(dims) != 4:
        raise SystemExit(f"resize_input.py: input '{inp.name}' is not NCHW ({len(dims)} dims)")
    dims[2].dim_value = args.height
    dims[3].dim_value = args.width
    del model.graph.value_info[:]
    data_dir = os.path.join(args.dst, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    onnx.save(model, os.path.join(args.dst, "model.onnx"))
    channels = dims[1].dim_value or 3
    x = np.random.RandomState(0).rand(1, channels, args.height, args.width).astype(np.float32)
    with open(os.path.join(data_dir, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, inp.name).SerializeToString())


if __name__ == "__main__":
    main()
