#!/usr/bin/python3
"""ctest scripts.convert_cars_annos: scripts/convert_cars_annos.py on a small cars_annos.mat written here with
scipy.io.savemat in the official shape (1 x N struct `annotations` with relative_im_path, bbox_*, class (uint8), test;
1 x C cell `class_names`), then the C++ reader on its output (test_data's hidden test "cars196 reader on the
output of convert_cars_annos.py"). Exit 77 (ctest: skipped) when python3-scipy is missing.

Usage: test_convert_cars_annos.py CONVERTER [TEST_DATA_EXECUTABLE]
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import scipy.io
except ImportError as e:
    print("SKIPPED: python3-scipy (and numpy) are needed to write a .mat fixture: %s" % e)
    sys.exit(77)

CONVERTER = sys.argv[1]
TEST_DATA = sys.argv[2] if len(sys.argv) > 2 else None
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAILED: " + what)
    return condition


def same_text(got, expected, what):
    """The checker of the converter's output; its negative control below must make it fail."""
    if got == expected:
        return True
    failures.append("%s:\n--- got\n%s--- expected\n%s" % (what, got, expected))
    return False


# (relative_im_path, class); classes on both sides of the 98 / 99 boundary, the first and the last.
IMAGES = [("car_ims/000001.jpg", 1), ("car_ims/000002.jpg", 1), ("car_ims/000003.jpg", 2),
          ("car_ims/000004.jpg", 98), ("car_ims/000005.jpg", 99), ("car_ims/000006.jpg", 99),
          ("car_ims/000007.jpg", 150), ("car_ims/000008.jpg", 196)]
NAMES = ["Class %03d with spaces" % c for c in range(1, 197)]
NAMES[0] = "AM General Hummer SUV 2000"


def write_mat(path, images, with_names=True, variable="annotations"):
    dtype = [(f, object) for f in ("relative_im_path", "bbox_x1", "bbox_y1", "bbox_x2", "bbox_y2", "class", "test")]
    records = np.empty((1, len(images)), dtype=dtype)
    for i, (p, c) in enumerate(images):
        records[0, i] = (np.array([p]), np.array([[10]], np.uint8), np.array([[20]], np.uint8),
                         np.array([[200]], np.uint8), np.array([[100]], np.uint8), np.array([[c]], np.uint8),
                         np.array([[i % 2]], np.uint8))
    content = {variable: records}
    if with_names:
        cell = np.empty((1, len(NAMES)), dtype=object)
        for i, n in enumerate(NAMES):
            cell[0, i] = np.array([n])
        content["class_names"] = cell
    scipy.io.savemat(path, content)


def convert(root):
    return subprocess.run(["/usr/bin/python3", CONVERTER, root], capture_output=True, text=True)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


with tempfile.TemporaryDirectory(prefix="dmlbench-cars-") as tmp:
    root = os.path.join(tmp, "cars")
    os.makedirs(os.path.join(root, "car_ims"))
    for p, _ in IMAGES:
        with open(os.path.join(root, p), "wb") as f:
            f.write(b"\xff\xd8\xff\xe0 not decoded by the reader")  # a JPEG's first bytes: the files exist
    write_mat(os.path.join(root, "cars_annos.mat"), IMAGES)

    r = convert(root)
    check(r.returncode == 0, "converter exit status %d: %s" % (r.returncode, r.stderr))
    expected = "# converted from cars_annos.mat by scripts/convert_cars_annos.py: <relative_im_path> <class>\n" + \
        "".join("%s %d\n" % (p, c) for p, c in IMAGES)
    same_text(read(os.path.join(root, "cars_annos.txt")), expected, "cars_annos.txt")
    classes = read(os.path.join(root, "cars_classes.txt")).splitlines()
    check(len(classes) == 196, "cars_classes.txt has %d lines, expected 196" % len(classes))
    check(classes[0] == "1 AM General Hummer SUV 2000", "first class line %r" % classes[0])
    check(classes[195] == "196 Class 196 with spaces", "last class line %r" % classes[195])

    # negative control: the same checker on a deliberately wrong expectation (one class off) must fail
    before = len(failures)
    same_text(read(os.path.join(root, "cars_annos.txt")), expected.replace("000004.jpg 98", "000004.jpg 99"), "control")
    check(len(failures) == before + 1, "negative control: the text checker accepted a wrong class")
    if len(failures) == before + 1:
        failures.pop()

    # the C++ reader on the converter's output
    if TEST_DATA:
        env = dict(os.environ, DMLBENCH_CARS_ROOT=root)
        r = subprocess.run([TEST_DATA, "cars196 reader on the output of convert_cars_annos.py"], env=env,
                           capture_output=True, text=True)
        check(r.returncode == 0, "the C++ reader on the converted list: exit %d\n%s" % (r.returncode, r.stdout))
        check("1 test case" in r.stdout or "All tests passed" in r.stdout, "the hidden C++ test did not run:\n" + r.stdout)

    # bad inputs: one line "convert_cars_annos: error: ..." naming the file, exit 1, nothing written
    bad = os.path.join(tmp, "bad")
    os.makedirs(bad)
    r = convert(bad)
    check(r.returncode == 1 and "cars_annos.mat not found" in r.stderr, "missing .mat: %d %r" % (r.returncode, r.stderr))
    write_mat(os.path.join(bad, "cars_annos.mat"), IMAGES, variable="boxes")
    r = convert(bad)
    check(r.returncode == 1 and "no 'annotations' variable" in r.stderr, "no annotations: %r" % r.stderr)
    write_mat(os.path.join(bad, "cars_annos.mat"), [("car_ims/000001.jpg", 0)])
    r = convert(bad)
    check(r.returncode == 1 and "annotation 1 (car_ims/000001.jpg): class 0" in r.stderr, "class 0: %r" % r.stderr)
    with open(os.path.join(bad, "cars_annos.mat"), "wb") as f:
        f.write(b"not a MATLAB file at all")
    r = convert(bad)
    check(r.returncode == 1 and "cannot read as a MATLAB file" in r.stderr, "garbage .mat: %r" % r.stderr)
    check(not os.path.exists(os.path.join(bad, "cars_annos.txt")), "a failed conversion wrote cars_annos.txt")

if failures:
    print("%d check(s) failed" % len(failures))
    for f in failures:
        print(f)
    sys.exit(1)
print("convert_cars_annos: all checks passed")
