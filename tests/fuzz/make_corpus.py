#!/usr/bin/python3
"""Writes the fuzz harnesses' seed corpora, tests/fuzz/corpus/<harness>/: small valid files of every format
(and a few near misses), from the repository's fixtures and configs and made here with numpy and PIL. Deterministic;
absolute paths are written relative. Usage: make_corpus.py [BUILD_DIR] (a build whose tests ran, for a real
sweep.json and checkpoint.json; without one those two corpora keep the files they have)."""
import gzip
import io
import json
import pathlib
import shutil
import struct
import sys

import numpy as np
from PIL import Image

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"


def put(harness, name, data):
    d = CORPUS / harness
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def relative(text):
    return text.replace(str(ROOT) + "/", "").replace(str(ROOT), ".")


def idx(array, code=0x08):
    head = bytes([0, 0, code, array.ndim]) + b"".join(struct.pack(">I", s) for s in array.shape)
    dtype = {0x08: ">u1", 0x0D: ">f4", 0x0E: ">f8"}[code]
    return head + array.astype(dtype).tobytes()


def npy(array):
    b = io.BytesIO()
    np.save(b, array)
    return b.getvalue()


def image(img, fmt, **kw):
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()


def safetensors(tensors, metadata=None):
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, (dtype, a) in tensors.items():
        raw = a.tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def main():
    rng = np.random.default_rng(29)
    shutil.rmtree(CORPUS / "idx_file", ignore_errors=True)
    images = rng.integers(0, 256, (3, 4, 4)).astype(np.uint8)
    put("idx_file", "images.idx3", idx(images))
    put("idx_file", "labels.idx1", idx(np.array([1, 0, 9], np.uint8)))
    put("idx_file", "images.idx3.gz", gzip.compress(idx(images), mtime=0))
    put("idx_file", "truncated.idx3", idx(images)[:-5])

    shutil.rmtree(CORPUS / "image_decode", ignore_errors=True)
    rgb = Image.fromarray(rng.integers(0, 256, (6, 5, 3)).astype(np.uint8), "RGB")
    put("image_decode", "rgb.png", image(rgb, "PNG"))
    put("image_decode", "gray.png", image(rgb.convert("L"), "PNG"))
    put("image_decode", "rgba.png", image(rgb.convert("RGBA"), "PNG"))
    put("image_decode", "palette.png", image(rgb.convert("P"), "PNG"))
    put("image_decode", "gray16.png", image(Image.fromarray(rng.integers(0, 65535, (4, 4)).astype(np.uint16)), "PNG"))
    put("image_decode", "bits1.png", image(rgb.convert("1"), "PNG"))
    put("image_decode", "rgb.jpg", image(rgb, "JPEG", quality=90))
    put("image_decode", "gray.jpg", image(rgb.convert("L"), "JPEG", quality=90))
    put("image_decode", "progressive.jpg", image(rgb, "JPEG", quality=75, progressive=True))
    put("image_decode", "cmyk.jpg", image(rgb.convert("CMYK"), "JPEG"))

    for harness in ("embedding_file", "class_tree_input"):
        shutil.rmtree(CORPUS / harness, ignore_errors=True)
        x = rng.standard_normal((6, 3))
        put(harness, "f4.npy", npy(x.astype("<f4")))
        put(harness, "f8.npy", npy(x.astype("<f8")))
        put(harness, "f4.idx", idx(x, 0x0D))
        put(harness, "u8.idx", idx(rng.integers(0, 256, (6, 2, 2)), 0x08))
        put(harness, "header.csv", "a,b,c\n" + "".join(",".join(f"{v:.4f}" for v in r) + "\n" for r in x))
        put(harness, "spaces.txt", "".join(" ".join(f"{v:.4f}" for v in r) + "\n" for r in x))
        put(harness, "features.csv", (ROOT / "tests/fixtures/htl/features.csv").read_bytes())
    put("embedding_file", "labels.csv", (ROOT / "tests/fixtures/htl/labels.csv").read_bytes())
    put("embedding_file", "labels.txt", (ROOT / "tests/fixtures/eval/labels6.txt").read_bytes())
    put("embedding_file", "levels.csv", "class,super\n0,0\n1,0\n2,1\n3,1\n")
    put("embedding_file", "labels.npy", npy(np.array([0, 1, 1, 2], "<i8")))
    put("embedding_file", "nan.csv", (ROOT / "tests/fixtures/eval/line7_nan.csv").read_bytes())

    copies = {
        "run_config": sorted((ROOT / "experiments/configs").glob("*.json")),
        "reproduction": sorted((ROOT / "experiments/reproductions").glob("*.json")),
        "tuned_results": [ROOT / "experiments/tuned/lcc_table1.json"],
        "sweep_grid": sorted((ROOT / "experiments/sweeps").glob("*.json")) + [ROOT / "tests/fixtures/sweep/collapse4.json",
                                                                             ROOT / "tests/fixtures/sweep/fx_sweep_grid.json"],
    }
    for harness, files in copies.items():
        shutil.rmtree(CORPUS / harness, ignore_errors=True)
        for f in files:
            put(harness, f.name, relative(f.read_text()))

    shutil.rmtree(CORPUS / "safetensors_header", ignore_errors=True)
    put("safetensors_header", "two.safetensors",
        safetensors({"w": ("F32", rng.standard_normal((2, 3)).astype("<f4")), "n": ("I64", np.arange(3, dtype="<i8"))},
                    {"format": "pt"}))
    put("safetensors_header", "empty_shape.safetensors", safetensors({"s": ("F64", np.zeros((), "<f8"))}))
    put("safetensors_header", "bf16.safetensors", safetensors({"h": ("BF16", np.zeros((4,), "<u2"))}))

    build = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None
    if build:
        found = {"sweep_state": sorted(build.glob("tests/sweep-local/*/sweep.json")),
                 "checkpoint_state": sorted(build.glob("tests/tune-cli/study/trials/*/0000/fold0/checkpoint.json"))}
        for harness, files in found.items():
            if not files:
                continue
            shutil.rmtree(CORPUS / harness, ignore_errors=True)
            for i, f in enumerate(files):
                put(harness, f"{i}-{f.name}", relative(f.read_text()))


if __name__ == "__main__":
    main()
