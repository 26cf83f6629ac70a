#!/usr/bin/python3
"""Writes a torchvision ResNet's weights for dmlbench (model.pretrained in a run config; EmbeddingModel::load_pretrained).

The file is safetensors (https://github.com/huggingface/safetensors): an 8-byte little-endian header length, a JSON
header {name: {dtype, shape, data_offsets}, "__metadata__": {"arch", "source", ...}}, then the raw little-endian
tensors. It holds the model's whole state_dict (parameters and buffers) under torchvision's names; the C++ side
loads every backbone tensor by name and ignores fc.* (its own embedding head replaces the classifier). Written here
without the safetensors package, with Debian's python3-torch and python3-torchvision (0.14) only; nothing is
downloaded.

  --weights-file F   a state_dict saved with torch.save (e.g. torchvision's resnet50-0676ba61.pth, fetched by the
                     user beforehand); loaded into torchvision's model strictly, so a file of another architecture
                     fails here, naming the tensors. torch.load unpickles: use files you trust.
  --random --seed S  torchvision's own random initialisation under torch.manual_seed(S)

For the tests (tests/CMakeLists.txt runs this as a fixture):
  --calibrate-bn K   (with --random) draws the batch-norm affine weights from U(0.5, 1.5) and biases from N(0, 0.1),
                     then runs K training-mode forward passes on seeded N(0, 1) inputs so that the running
                     statistics are not the 0 / 1 of a fresh model: every tensor in the file then changes the
                     eval-mode output, and the activations stay O(1) through the depth
  --reference-out R  also writes R (safetensors): "input", a seeded N(0, 1) batch of --reference-shape, and
                     "features", the model's eval-mode output with fc replaced by the identity (the globally pooled
                     512-d or 2048-d vector), computed here in float32 with --threads threads

Usage: /usr/bin/python3 scripts/export_torchvision_weights.py --arch resnet18|resnet50
           (--weights-file F | --random [--seed S] [--calibrate-bn K]) --out OUT.safetensors
           [--reference-out R [--reference-shape 2,3,67,53]] [--threads 1]
"""
import argparse
import json
import os
import struct
import sys

try:
    import torch
    import torchvision
except ImportError as e:
    sys.exit(f"export_torchvision_weights.py: error: {e}: this script needs Debian's python3-torch and "
             "python3-torchvision (scripts/setup.sh installs them)")

ARCHS = ("resnet18", "resnet50")
DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
          torch.int64: "I64", torch.int32: "I32", torch.uint8: "U8", torch.bool: "BOOL"}


def write_safetensors(path, tensors, metadata):
    """tensors: name -> tensor (any of DTYPES), written in the given order; the file is replaced atomically"""
    header, chunks, offset = {"__metadata__": {k: str(v) for k, v in metadata.items()}}, [], 0
    for name, t in tensors.items():
        t = t.detach().cpu().contiguous()
        if t.dtype not in DTYPES:
            raise ValueError(f"tensor {name}: dtype {t.dtype} has no safetensors name here")
        data = t.reshape(-1).view(torch.uint8).numpy().tobytes()  # raw little-endian bytes (x86, ARM)
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # tensor data 8-byte aligned, as the format recommends
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)
    os.replace(path + ".tmp", path)


def calibrate_bn(model, passes, seed, size=64):
    g = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
        model.train()
        for _ in range(passes):
            model(torch.randn(8, 3, size, size, generator=g))
    model.eval()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", required=True, choices=ARCHS)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--weights-file", help="a torchvision state_dict (.pth) on this machine")
    src.add_argument("--random", action="store_true", help="torchvision's random initialisation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--calibrate-bn", type=int, default=0, metavar="K")
    ap.add_argument("--out", required=True)
    ap.add_argument("--reference-out")
    ap.add_argument("--reference-shape", default="2,3,67,53")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    if a.calibrate_bn and not a.random:
        ap.error("--calibrate-bn changes the weights: only with --random")
    torch.set_num_threads(a.threads)

    torch.manual_seed(a.seed)
    model = getattr(torchvision.models, a.arch)(weights=None)  # no download
    if a.random:
        source = f"torchvision {torchvision.__version__} random initialisation, torch.manual_seed({a.seed})"
        if a.calibrate_bn:
            calibrate_bn(model, a.calibrate_bn, a.seed)
            source += f", batch norm calibrated ({a.calibrate_bn} passes)"
    else:
        state = torch.load(a.weights_file, map_location="cpu")
        if isinstance(state, torch.nn.Module):
            state = state.state_dict()
        if isinstance(state, dict) and "state_dict" in state and isinstance(state["state_dict"], dict):
            state = state["state_dict"]
        try:
            model.load_state_dict(state, strict=True)
        except (RuntimeError, TypeError) as e:
            sys.exit(f"export_torchvision_weights.py: error: {a.weights_file} is not a torchvision {a.arch} "
                     f"state_dict: {e}")
        source = os.path.basename(a.weights_file)
    model.eval()
    write_safetensors(a.out, dict(model.state_dict()),
                      {"arch": a.arch, "source": source, "torch": torch.__version__,
                       "format": "dmlbench torchvision weights 1"})
    print(f"wrote {a.out}: {a.arch}, {len(model.state_dict())} tensors ({source})")

    if a.reference_out:
        shape = [int(s) for s in a.reference_shape.split(",")]
        x = torch.randn(shape, generator=torch.Generator().manual_seed(a.seed + 2))
        model.fc = torch.nn.Identity()
        with torch.no_grad():
            features = model(x)
        write_safetensors(a.reference_out, {"input": x, "features": features},
                          {"arch": a.arch, "threads": a.threads})
        print(f"wrote {a.reference_out}: input {shape}, features {list(features.shape)}")


if __name__ == "__main__":
    main()
