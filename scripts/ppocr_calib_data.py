#!/usr/bin/env python3
"""Text calibration data for the PaddleOCR models, made the way PaddleOCR's own pipeline feeds them.

ppocr_det sees whole photos; ppocr_cls and ppocr_rec see the text lines that det finds. The
shared photos (../shared/images/calib and eval) are ImageNet photos; some show text (signs,
labels, displays). This script:

  1. preprocesses every photo as ppocr_det's test data was made (../shared/models/MANIFEST.md:
     whole image resized to 320x320, PIL bilinear, BGR, /255, ImageNet mean/std);
  2. runs the float ppocr_det with ONNX Runtime, thresholds its map at 0.3 (PaddleOCR's
     default), takes the connected components as text boxes (enlarged like DB's unclip), crops
     each box from the original photo and preprocesses it as cls/rec's test data were made
     (height 48, width ceil(48*w/h) capped at 192 / 320, BGR, (x/255-0.5)/0.5), padding to the
     fixed width with zeros as PaddleOCR does; writes cls/<photo>_<k>.npy and rec/<photo>_<k>.npy;
  3. writes det/<photo>.npy for the photos in which it found at least one text line (the
     "text images" a text detector is calibrated on).

The photos the ppocr test data were made from (MANIFEST.md: eval/n04200800_shoe_shop.JPEG for
det and rec, eval/n04357314_sunscreen.JPEG for cls) are left out, so no model is calibrated on
the input it is measured on.

Usage: scripts/ppocr_calib_data.py --shared ../shared --out build/ppocr-calib
Needs numpy, Pillow and onnxruntime (build/venv-ort or bench/peers' venv).
"""
import argparse
import os
import sys

import numpy as np
from PIL import Image
import onnxruntime as ort

EXCLUDED = {"n04200800_shoe_shop.JPEG", "n04357314_sunscreen.JPEG"}
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)[::-1]  # BGR order
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)[::-1]


def det_input(img):
    x = np.asarray(img.resize((320, 320), Image.BILINEAR), dtype=np.float32)[:, :, ::-1]
    x = (x / np.float32(255) - MEAN) / STD
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None].astype(np.float32))


def line_input(crop, width):
    w, h = crop.size
    nw = min(width, int(np.ceil(48 * w / h)))
    x = np.asarray(crop.resize((nw, 48), Image.BILINEAR), dtype=np.float32)[:, :, ::-1]
    x = (x / np.float32(255) - 0.5) / 0.5
    out = np.zeros((1, 3, 48, width), dtype=np.float32)
    out[0, :, :, :nw] = x.transpose(2, 0, 1)
    return out


def components(mask):
    """Bounding boxes (x0, y0, x1, y1, area) of the 4-connected components of mask."""
    seen = np.zeros_like(mask, dtype=bool)
    h, w = mask.shape
    boxes = []
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        stack = [(y, x)]
        seen[y, x] = True
        x0 = x1 = x
        y0 = y1 = y
        area = 0
        while stack:
            cy, cx = stack.pop()
            area += 1
            x0, x1, y0, y1 = min(x0, cx), max(x1, cx), min(y0, cy), max(y1, cy)
            for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
                if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        boxes.append((x0, y0, x1 + 1, y1 + 1, area))
    return boxes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.environ.get("KILN_SHARED_DIR", "../shared"))
    ap.add_argument("--out", default="build/ppocr-calib")
    ap.add_argument("--threshold", type=float, default=0.3)
    ap.add_argument("--min-area", type=int, default=30, help="smallest box, in 320x320 map pixels")
    args = ap.parse_args()
    for d in ("det", "cls", "rec"):
        os.makedirs(os.path.join(args.out, d), exist_ok=True)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    det = ort.InferenceSession(os.path.join(args.shared, "models/ppocr_det/model.onnx"), so,
                               providers=["CPUExecutionProvider"])
    photos = []
    for split in ("calib", "eval"):
        d = os.path.join(args.shared, "images", split)
        photos += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f not in EXCLUDED]
    lines = 0
    with_text = 0
    for path in photos:
        stem = os.path.splitext(os.path.basename(path))[0]
        img = Image.open(path).convert("RGB")
        x = det_input(img)
        prob = det.run(None, {"x": x})[0][0, 0]
        boxes = [b for b in components(prob > args.threshold) if b[4] >= args.min_area]
        W, H = img.size
        k = 0
        for x0, y0, x1, y1, _ in boxes:
            # DB's unclip ratio 1.5 grows a box by about its height on each side; half of it
            # here keeps the crop on one line.
            bh = y1 - y0
            pad = 0.5 * bh
            x0, x1 = max(0, x0 - pad), min(320, x1 + pad)
            y0, y1 = max(0, y0 - pad), min(320, y1 + pad)
            bx0, bx1 = x0 * W / 320, x1 * W / 320
            by0, by1 = y0 * H / 320, y1 * H / 320
            if bx1 - bx0 < 1.5 * (by1 - by0) or by1 - by0 < 8:
                continue  # not a horizontal text line
            crop = img.crop((int(bx0), int(by0), int(np.ceil(bx1)), int(np.ceil(by1))))
            np.save(os.path.join(args.out, "cls", f"{stem}_{k}.npy"), line_input(crop, 192))
            np.save(os.path.join(args.out, "rec", f"{stem}_{k}.npy"), line_input(crop, 320))
            k += 1
        if k:
            np.save(os.path.join(args.out, "det", stem + ".npy"), x)
        lines += k
        with_text += k > 0
    print(f"{len(photos)} photos, {with_text} with text lines (det samples), {lines} line crops "
          f"(cls/rec samples) in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
