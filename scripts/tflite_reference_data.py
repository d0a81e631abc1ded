#!/usr/bin/env python3
"""Writes `kiln validate` folders for TFLite models, with LiteRT's outputs as the reference.

    tflite_reference_data.py OUT_DIR MODEL.tflite...

For each model: OUT_DIR/<model name>/ with a copy of the model, input_<k>.npy (seeded uniform
[0, 1) floats, or random codes for integer inputs) and output_<k>.npy (LiteRT's builtin
reference kernels; with --xnnpack, LiteRT's default CPU delegate). Then, per folder:

    kiln validate OUT_DIR/<name>/model.tflite --test-data OUT_DIR/<name>

Needs ai-edge-litert and numpy (a venv outside the tree). Not run in CI.
"""
import os
import shutil
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def main():
    args = [a for a in sys.argv[1:] if a != "--xnnpack"]
    resolver = (OpResolverType.AUTO if "--xnnpack" in sys.argv else OpResolverType.BUILTIN_REF)
    out_dir, models = args[0], args[1:]
    rng = np.random.default_rng(41)
    for path in models:
        name = os.path.splitext(os.path.basename(path))[0]
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        shutil.copy(path, os.path.join(folder, "model.tflite"))
        try:
            it = Interpreter(model_path=path, experimental_op_resolver_type=resolver)
            it.allocate_tensors()
        except (RuntimeError, ValueError) as e:  # custom ops LiteRT itself does not have
            print(f"{name}: skipped, LiteRT cannot run it: {str(e).splitlines()[0]}")
            shutil.rmtree(folder)
            continue
        for k, d in enumerate(it.get_input_details()):
            if np.issubdtype(d["dtype"], np.floating):
                x = rng.uniform(0.0, 1.0, d["shape"]).astype(d["dtype"])
            else:
                info = np.iinfo(d["dtype"])
                x = rng.integers(info.min, info.max, d["shape"], endpoint=True).astype(d["dtype"])
            it.set_tensor(d["index"], x)
            np.save(os.path.join(folder, f"input_{k}.npy"), x)
        it.invoke()
        for k, d in enumerate(it.get_output_details()):
            np.save(os.path.join(folder, f"output_{k}.npy"), it.get_tensor(d["index"]))
        print(folder)


if __name__ == "__main__":
    main()
