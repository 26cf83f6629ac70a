#!/usr/bin/python3
"""Converts the official Cars196 annotations (Krause et al. 2013, cars_annos.mat) to the plain lists dmlbench reads.

Usage: /usr/bin/python3 scripts/convert_cars_annos.py ROOT

ROOT is the unpacked dataset (cars_annos.mat and car_ims/). Writes, next to the .mat:
  ROOT/cars_annos.txt     "# converted from cars_annos.mat" then "<relative_im_path> <class 1..196>" per image,
                          in the .mat's order;
  ROOT/cars_classes.txt   "<class> <name>" per class (from the .mat's class_names, when it has them).
The .mat's per-image `test` flag is not written: deep metric learning splits Cars196 by class (1-98 train, 99-196
test), which the C++ reader (`read_cars196`) applies. Needs Debian's python3-scipy (scipy.io.loadmat).
Exit status 1 with one line "convert_cars_annos: error: ..." for a missing or malformed file.
"""
import os
import sys


def fail(message):
    print("convert_cars_annos: error: " + message, file=sys.stderr)
    sys.exit(1)


def scalar(value):
    """A MATLAB scalar or string as loadmat gives it (0-d or 1-element array, possibly nested) -> Python value."""
    import numpy as np
    a = np.asarray(value)
    while a.dtype == object and a.size == 1:
        a = np.asarray(a.reshape(-1)[0])
    if a.size != 1:
        raise ValueError("expected one value, got shape %s" % (a.shape,))
    return a.reshape(-1)[0].item()


def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    mat_path = os.path.join(root, "cars_annos.mat")
    if not os.path.isfile(mat_path):
        fail("%s not found (the official Cars196 layout: cars_annos.mat and car_ims/ under the root)" % mat_path)
    try:
        import numpy as np
        import scipy.io
    except ImportError as e:
        fail("needs python3-scipy (apt-get install python3-scipy): %s" % e)
    try:
        mat = scipy.io.loadmat(mat_path, squeeze_me=True, struct_as_record=True)
    except Exception as e:  # scipy raises several types for a file that is not a .mat
        fail("%s: cannot read as a MATLAB file: %s" % (mat_path, e))
    if "annotations" not in mat:
        fail("%s has no 'annotations' variable (has: %s)" % (mat_path, ", ".join(k for k in mat if not k.startswith("__"))))
    annotations = np.atleast_1d(mat["annotations"])
    names = annotations.dtype.names or ()
    for field in ("relative_im_path", "class"):
        if field not in names:
            fail("%s: annotations have no field '%s' (fields: %s)" % (mat_path, field, ", ".join(names)))
    lines = ["# converted from cars_annos.mat by scripts/convert_cars_annos.py: <relative_im_path> <class>"]
    for i, record in enumerate(annotations):
        try:
            path = str(scalar(record["relative_im_path"]))
            cls = scalar(record["class"])
        except ValueError as e:
            fail("%s: annotation %d: %s" % (mat_path, i + 1, e))
        if not path or any(c in path for c in "\r\n"):
            fail("%s: annotation %d: relative_im_path %r is empty or spans lines" % (mat_path, i + 1, path))
        if isinstance(cls, float) and cls.is_integer():
            cls = int(cls)
        if not isinstance(cls, int) or cls < 1:
            fail("%s: annotation %d (%s): class %r is not a positive integer" % (mat_path, i + 1, path, cls))
        lines.append("%s %d" % (path, cls))
    if len(lines) == 1:
        fail("%s: no annotations" % mat_path)
    write_atomically(os.path.join(root, "cars_annos.txt"), "\n".join(lines) + "\n")
    if "class_names" in mat:
        classes = ["%d %s" % (i + 1, str(scalar(n)).strip()) for i, n in enumerate(np.atleast_1d(mat["class_names"]))]
        write_atomically(os.path.join(root, "cars_classes.txt"), "\n".join(classes) + "\n")
    print("convert_cars_annos: wrote %d images to %s" % (len(lines) - 1, os.path.join(root, "cars_annos.txt")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
