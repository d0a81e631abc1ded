#!/usr/bin/env bash
# Fetches the TFLite models that the mediapipe 0.10.21 wheel ships (mediapipe/modules/*/*.tflite,
# Apache-2.0: face, hand, palm, pose, iris, selfie models) for measuring Kiln's TFLite import on
# real models. Not run in CI; nothing it writes is committed.
#   scripts/fetch_mediapipe_models.sh OUT_DIR
# Needs pip (PyPI). The wheel is pinned by version and sha256.
set -euo pipefail
OUT="${1:?usage: scripts/fetch_mediapipe_models.sh OUT_DIR}"
WHEEL=mediapipe-0.10.21-cp311-cp311-manylinux_2_28_x86_64.whl
SHA256=05dc4a9e593655a79558d05d6227d31018c2537a4bd3362b51e230cf22aecfe3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pip download mediapipe==0.10.21 --no-deps --only-binary :all: --python-version 3.11 \
  --platform manylinux_2_28_x86_64 -q -d "$tmp"
echo "$SHA256  $tmp/$WHEEL" | sha256sum -c --quiet
mkdir -p "$OUT"
python3 - "$tmp/$WHEEL" "$OUT" <<'PY'
import os, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("mediapipe/modules/") and name.endswith(".tflite"):
            target = os.path.join(out, os.path.basename(name))
            with z.open(name) as src, open(target, "wb") as dst:
                dst.write(src.read())
            print(target)
PY
