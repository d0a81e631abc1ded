#!/usr/bin/env python3
"""Checks that parsers/tflite/schema/schema.fbs has LiteRT's binary layout.

LiteRT's wheel ships the schema only as generated Python (ai_edge_litert/schema_py_generated.py),
so this compiles the vendored .fbs with flatc --python and compares, class by class, every enum
and union value and every table field's vtable offset, scalar type and default. Any difference
is printed and the exit status is 1.

    python3 -m venv /tmp/litert && /tmp/litert/bin/pip install ai-edge-litert==2.3.0
    /tmp/litert/bin/python scripts/check_tflite_schema.py            # flatc from PATH

Not run in CI (the check is against a 21 MB wheel; the schema changes only when re-vendored).
"""
import importlib.util
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "parsers" / "tflite" / "schema" / "schema.fbs"


def layout(path):
    """{class: {name: (kind, offset-or-value, type, default)}} from flatc-generated Python."""
    out = {}
    cls = None
    body = pathlib.Path(path).read_text().split("\n")
    i = 0
    while i < len(body):
        line = body[i]
        m = re.match(r"^class (\w+)\(object\):", line)
        if m:
            cls = None if m.group(1).endswith("T") else m.group(1)
            if cls:
                out[cls] = {}
        elif cls:
            m = re.match(r"^    (\w+) = (-?\d+)\s*$", line)
            if m:
                out[cls][m.group(1)] = ("value", int(m.group(2)), None, None)
            m = re.match(r"^    def (\w+)\(self", line)
            if m and not m.group(1).endswith(("IsNone", "AsNumpy")):
                name = m.group(1)
                method = []
                i += 1
                while i < len(body) and not body[i].startswith(("    def ", "class ", "def ")):
                    method.append(body[i])
                    i += 1
                text = "\n".join(method)
                off = re.search(r"self\._tab\.Offset\((\d+)\)", text)
                if off:
                    kind = "length" if name.endswith("Length") else "field"
                    types = re.findall(r"number_types\.(\w+)Flags", text)
                    types = [t for t in types if t != "UOffsetT"]
                    default = re.findall(r"^        return (.+)$", text, re.M)
                    out[cls][name] = (kind, int(off.group(1)), types[:1] or None,
                                      default[-1] if default else None)
                continue
        i += 1
    return out


def main():
    spec = importlib.util.find_spec("ai_edge_litert")
    if spec is None:
        sys.exit("ai_edge_litert is not installed (pip install ai-edge-litert==2.3.0)")
    release = pathlib.Path(spec.origin).parent / "schema_py_generated.py"
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["flatc", "--python", "--gen-onefile", "-o", tmp, str(SCHEMA)], check=True)
        ours = layout(pathlib.Path(tmp) / "schema_generated.py")
    theirs = layout(release)
    differences = []
    for cls in sorted(set(ours) | set(theirs)):
        if cls not in ours or cls not in theirs:
            differences.append(f"{cls}: only in {'ours' if cls in ours else 'LiteRT'}")
            continue
        for name in sorted(set(ours[cls]) | set(theirs[cls])):
            if ours[cls].get(name) != theirs[cls].get(name):
                differences.append(f"{cls}.{name}: ours {ours[cls].get(name)} "
                                   f"LiteRT {theirs[cls].get(name)}")
    entries = sum(len(v) for v in theirs.values())
    for d in differences:
        print(d)
    print(f"{SCHEMA.relative_to(ROOT)} vs {release}: {len(theirs)} classes, {entries} entries, "
          f"{len(differences)} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
