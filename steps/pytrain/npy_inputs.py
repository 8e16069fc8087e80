"""The programs' input .npy files: memory-mapped, never unpickled, and each failure one InputError
naming the file (missing, unreadable, not of an integer dtype, the wrong number of dimensions),
so the trainers and readers say the same thing in the same words."""
import os

import numpy as np

from pytrain.errors import InputError


def load_npy(path, fix, expected=None, required=True, ndim=None):
    """The array at `path`, memory-mapped; None when the file is absent and not `required`.
    `fix` says how to write a missing file; `expected` (what the file holds, e.g. "int32 [Nq]
    index into passages") ends the messages; `ndim`, when given, is checked."""
    want = f"expected {expected}" if expected else None
    if not os.path.isfile(path):
        if required:
            raise InputError("missing input file" + (f", {want}" if want else ""), file=path, fix=fix)
        return None
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError as e:
        raise InputError(f"not a readable .npy ({e})" + (f"; {want}" if want else ""), file=path) from e
    if ndim is not None and arr.ndim != ndim:
        raise InputError(f"has {arr.ndim} dimensions, expected {ndim}", file=path)
    return arr


def load_int_npy(path, expected, fix, required=True):
    """load_npy of token ids or row indexes: a dtype other than a signed or unsigned integer is an InputError."""
    arr = load_npy(path, fix, expected, required)
    if arr is not None and arr.dtype.kind not in "iu":
        raise InputError(f"dtype {arr.dtype} is not an integer type; expected {expected}", file=path)
    return arr
