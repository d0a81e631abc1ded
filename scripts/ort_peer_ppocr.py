#!/usr/bin/env python3
"""ONNX Runtime's static quantization of the PaddleOCR models, as the peer of `kiln quantize`.

For each of ppocr_det / ppocr_cls / ppocr_rec: convert to opset 13 (per-channel QDQ needs it),
run onnxruntime's quantize_static (QDQ, per-channel int8 weights, uint8 activations) calibrating
on a folder of .npy samples (scripts/ppocr_calib_data.py writes them; the model's test input is
not among them), run the int8 model with ONNX Runtime on test_data_set_0 and print the output's
SQNR and cosine against the float reference output_0.pb.

Usage: scripts/ort_peer_ppocr.py --shared ../shared --calib build/ppocr-calib --out build/ort-ppocr
       [--models det cls rec] [--methods MinMax Percentile Entropy]
"""
import argparse
import json
import os

import numpy as np
import onnx
from onnx import numpy_helper, version_converter
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                      QuantType, quantize_static)


class Reader(CalibrationDataReader):
    def __init__(self, files):
        self.files, self.i = files, 0

    def get_next(self):
        if self.i >= len(self.files):
            return None
        self.i += 1
        return {"x": np.load(self.files[self.i - 1])}

    def rewind(self):
        self.i = 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.environ.get("KILN_SHARED_DIR", "../shared"))
    ap.add_argument("--calib", default="build/ppocr-calib")
    ap.add_argument("--out", default="build/ort-ppocr")
    ap.add_argument("--models", nargs="+", default=["det", "cls", "rec"])
    ap.add_argument("--methods", nargs="+", default=["MinMax", "Percentile"])
    ap.add_argument("--calib-count", type=int, default=0, help="first N samples (0: all)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ort.set_default_logger_severity(3)  # the converted models' unused-initializer warnings
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    for m in args.models:
        d = os.path.join(args.shared, "models", "ppocr_" + m)
        model = onnx.load(os.path.join(d, "model.onnx"))
        if model.opset_import[0].version < 13:
            model = version_converter.convert_version(model, 13)
        fp32 = os.path.join(args.out, f"ppocr_{m}_opset13.onnx")
        onnx.save(model, fp32)
        folder = os.path.join(args.calib, m)
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".npy"))
        if args.calib_count:
            files = files[: args.calib_count]
        x = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "test_data_set_0/input_0.pb")))
        ref = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "test_data_set_0/output_0.pb")))
        ref = ref.astype(np.float64)
        for method in args.methods:
            out = os.path.join(args.out, f"ppocr_{m}_{method}.onnx")
            quantize_static(fp32, out, Reader(files), quant_format=QuantFormat.QDQ,
                            per_channel=True, activation_type=QuantType.QUInt8,
                            weight_type=QuantType.QInt8,
                            calibrate_method=getattr(CalibrationMethod, method),
                            extra_options={"CalibMaxIntermediateOutputs": 8})
            y = ort.InferenceSession(out, so, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
            y = y.astype(np.float64)
            sqnr = 10 * np.log10((ref * ref).sum() / ((y - ref) ** 2).sum())
            cos = (ref * y).sum() / np.sqrt((ref * ref).sum() * (y * y).sum())
            print(json.dumps({"model": "ppocr_" + m, "method": method, "calib_samples": len(files),
                              "sqnr_db": round(float(sqnr), 2), "cosine": round(float(cos), 6),
                              "max_abs_diff": float(np.abs(y - ref).max()),
                              "ort": ort.__version__}), flush=True)


if __name__ == "__main__":
    main()
