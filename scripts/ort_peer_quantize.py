#!/usr/bin/env python3
"""ONNX Runtime's static quantization, measured as the peer of `kiln quantize`.

For each model: convert to opset 13 (per-channel QDQ needs it), run onnxruntime's
quantize_static (QDQ format, per-channel int8 weights) for every calibration method x
activation type, calibrating on the same calibration images Kiln uses (the first N of
../shared/images/calib, sorted by name), and evaluate the float and int8 models with ONNX
Runtime on ../shared/images/eval: top-1, top-5 and top-1 agreement with float. Images are
preprocessed with PIL exactly as ../shared/models/MANIFEST.md states.

Usage: scripts/ort_peer_quantize.py --shared ../shared --out build/ort-peer [--models squeezenet
mobilenetv2] [--methods MinMax Entropy Percentile Distribution] [--calib-count 90]
Prints one JSON line per configuration and a Markdown table at the end.
"""
import argparse
import json
import os
import sys

import numpy as np
from PIL import Image

import onnx
from onnx import version_converter
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                      QuantType, quantize_static)

MODELS = {
    # name: (path under shared/models, channel order, mean, std, scale)
    "squeezenet": ("squeezenet/model.onnx", "bgr", [104, 117, 123], [1, 1, 1], 1.0),
    "mobilenetv2": ("mobilenetv2/model.onnx", "rgb", [0.485, 0.456, 0.406],
                    [0.229, 0.224, 0.225], 1 / 255.0),
}


def preprocess(path, order, mean, std, scale):
    img = Image.open(path).convert("RGB")
    w, h = img.size
    s = 256 / min(w, h)
    nw, nh = (256, round(h * s)) if w <= h else (round(w * s), 256)
    img = img.resize((nw, nh), Image.BILINEAR)
    left, top = round((nw - 224) / 2), round((nh - 224) / 2)
    img = img.crop((left, top, left + 224, top + 224))
    x = np.asarray(img, dtype=np.float32)
    if order == "bgr":
        x = x[:, :, ::-1]
    x = x * np.float32(scale) if scale != 1.0 else x
    x = (x - np.array(mean, dtype=np.float32)) / np.array(std, dtype=np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None].astype(np.float32))


class Reader(CalibrationDataReader):
    def __init__(self, name, files, spec):
        self.name, self.files, self.spec, self.i = name, files, spec, 0

    def get_next(self):
        if self.i >= len(self.files):
            return None
        x = preprocess(self.files[self.i], *self.spec)
        self.i += 1
        return {self.name: x}

    def rewind(self):
        self.i = 0


def session(path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def evaluate(float_sess, int8_sess, inputs, labels):
    top1 = top5 = ftop1 = ftop5 = agree = 0
    name = float_sess.get_inputs()[0].name
    for x, label in zip(inputs, labels):
        f = float_sess.run(None, {name: x})[0].reshape(-1)
        q = int8_sess.run(None, {name: x})[0].reshape(-1)
        fo, qo = np.argsort(-f, kind="stable")[:5], np.argsort(-q, kind="stable")[:5]
        ftop1 += fo[0] == label
        ftop5 += label in fo
        top1 += qo[0] == label
        top5 += label in qo
        agree += fo[0] == qo[0]
    n = len(labels)
    return {"count": n, "top1": top1 / n, "top5": top5 / n, "float_top1": ftop1 / n,
            "float_top5": ftop5 / n, "agreement_top1": agree / n}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.environ.get("KILN_SHARED_DIR", "../shared"))
    ap.add_argument("--out", default="build/ort-peer")
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--methods", nargs="+",
                    default=["MinMax", "Entropy", "Percentile", "Distribution"])
    ap.add_argument("--acts", nargs="+", default=["QUInt8", "QInt8"])
    ap.add_argument("--calib-count", type=int, default=90)
    ap.add_argument("--reuse", action="store_true",
                    help="evaluate int8 models already in --out (made by an earlier run) "
                         "instead of quantizing again")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    images = os.path.join(args.shared, "images")
    calib = sorted(os.path.join(images, "calib", f) for f in os.listdir(os.path.join(images, "calib")))
    calib = calib[: args.calib_count]
    labels = {}
    for line in open(os.path.join(images, "labels.txt")):
        rel, idx = line.split()[:2]
        labels[os.path.basename(rel)] = int(idx)
    evals = sorted(f for f in os.listdir(os.path.join(images, "eval")))
    rows = []
    print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}", file=sys.stderr)
    for mname in args.models:
        rel, *spec = MODELS[mname]
        model = onnx.load(os.path.join(args.shared, "models", rel))
        if model.opset_import[0].version < 13:
            model = version_converter.convert_version(model, 13)
        fp32 = os.path.join(args.out, f"{mname}_opset13.onnx")
        onnx.save(model, fp32)
        inits = {t.name for t in model.graph.initializer}
        in_name = [i.name for i in model.graph.input if i.name not in inits][0]
        xs = [preprocess(os.path.join(images, "eval", f), *spec) for f in evals]
        ys = [labels[f] for f in evals]
        fsess = session(fp32)
        for method in args.methods:
            for act in args.acts:
                out = os.path.join(args.out, f"{mname}_{method}_{act}.onnx")
                if not (args.reuse and os.path.exists(out)):
                    quantize_static(fp32, out, Reader(in_name, calib, spec),
                                    quant_format=QuantFormat.QDQ, per_channel=True,
                                    activation_type=getattr(QuantType, act),
                                    weight_type=QuantType.QInt8,
                                    calibrate_method=getattr(CalibrationMethod, method))
                r = evaluate(fsess, session(out), xs, ys)
                r.update({"model": mname, "method": method, "activations": act,
                          "bytes": os.path.getsize(out)})
                print(json.dumps(r), flush=True)
                rows.append(r)
    print("\n| model | method | activations | top-1 int8 | top-1 float | drop (pp) | top-5 int8 | agreement |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['method']} | {r['activations']} | {100 * r['top1']:.1f} % | "
              f"{100 * r['float_top1']:.1f} % | {100 * (r['float_top1'] - r['top1']):.1f} | "
              f"{100 * r['top5']:.1f} % | {100 * r['agreement_top1']:.1f} % |")


if __name__ == "__main__":
    main()
