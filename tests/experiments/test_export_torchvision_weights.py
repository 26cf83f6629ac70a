#!/usr/bin/python3
"""ctest scripts.export_torchvision_weights_options: scripts/export_torchvision_weights.py with --weights-file on a
state_dict saved here with torch.save (the path of a user's pretrained weights, no download) writes exactly the
tensors --random writes for the same seed; the file reads back (a safetensors reader written here from the format's
specification) with torchvision's names and values; a resnet50 state_dict given as --arch resnet18 is refused with a
message naming the architecture; --calibrate-bn without --random is refused. No python3-torchvision: the test fails.

Usage: test_export_torchvision_weights.py EXPORT_SCRIPT
"""
import json
import struct
import subprocess
import sys
import tempfile

import torch
import torchvision

SCRIPT = sys.argv[1]
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAILED: " + what)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    dtypes = {"F32": torch.float32, "I64": torch.int64}
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        raw = bytearray(data[8 + n + b:8 + n + end])
        out[name] = torch.frombuffer(raw, dtype=dtypes[e["dtype"]]).reshape(e["shape"]) if raw else \
            torch.empty(e["shape"], dtype=dtypes[e["dtype"]])
    return header.get("__metadata__", {}), out


def export(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    torch.manual_seed(5)
    model = torchvision.models.resnet18(weights=None)
    torch.save(model.state_dict(), f"{tmp}/r18.pth")
    r = export("--arch", "resnet18", "--weights-file", f"{tmp}/r18.pth", "--out", f"{tmp}/from_file.safetensors")
    check(r.returncode == 0, f"--weights-file export runs: {r.stderr}")
    r = export("--arch", "resnet18", "--random", "--seed", "5", "--out", f"{tmp}/random.safetensors")
    check(r.returncode == 0, f"--random export runs: {r.stderr}")
    meta, from_file = read_safetensors(f"{tmp}/from_file.safetensors")
    _, random = read_safetensors(f"{tmp}/random.safetensors")
    check(meta.get("arch") == "resnet18" and meta.get("source") == "r18.pth", f"metadata {meta}")
    state = model.state_dict()
    check(list(from_file) == list(state), "the file holds the state_dict's names in its order")
    check(all(torch.equal(from_file[k], v) for k, v in state.items()), "the file's values are the state_dict's")
    check(all(torch.equal(random[k], v) for k, v in state.items()), "--random --seed 5 is torchvision's init")
    other = torchvision.models.resnet18(weights=None).state_dict()  # negative control: another draw differs
    check(not torch.equal(random["conv1.weight"], other["conv1.weight"]), "the value comparison can fail")
    check(from_file["bn1.num_batches_tracked"].dtype == torch.int64, "num_batches_tracked stays int64")

    torch.save(torchvision.models.resnet50(weights=None).state_dict(), f"{tmp}/r50.pth")
    r = export("--arch", "resnet18", "--weights-file", f"{tmp}/r50.pth", "--out", f"{tmp}/wrong.safetensors")
    check(r.returncode != 0 and "is not a torchvision resnet18 state_dict" in r.stderr,
          f"a resnet50 state_dict as resnet18 is refused: rc {r.returncode}, {r.stderr[-300:]}")
    r = export("--arch", "resnet18", "--weights-file", f"{tmp}/r18.pth", "--calibrate-bn", "2", "--out",
               f"{tmp}/x.safetensors")
    check(r.returncode != 0 and "only with --random" in r.stderr, "--calibrate-bn needs --random")

print("FAILED" if failures else "PASSED")
sys.exit(1 if failures else 0)
