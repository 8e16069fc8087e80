"""The input directory of .npy files: loading and checking shapes, dtypes and index ranges."""
import os

import numpy as np

from pytrain.errors import InputError
from pytrain.npy_inputs import load_int_npy

# name -> (expected shape text, required?)
FILES = {
    "train_query_ids.npy": ("int [Nq, Lq] token ids, pad 0", True),
    "passage_ids.npy": ("int [Np, Lp] token ids, pad 0", True),
    "passage_type_ids.npy": ("int8 [Np, Lp] token types", False),
    "train_pos.npy": ("int32 [Nq] index into passages", True),
    "train_neg.npy": ("int32 [Nq, k] mined negatives, -1 padded", False),
    "train_gold.npy": ("int32 [Nq, g] all gold passages, -1 padded", False),
    "dev_query_ids.npy": ("int [Nd, Lq] token ids", True),
    "dev_passage_ids.npy": ("int [Ndp, Lp] token ids", True),
    "dev_passage_type_ids.npy": ("int8 [Ndp, Lp] token types", False),
    "dev_gold.npy": ("int32 [Nd, g] index into dev passages, -1 padded", True),
}


class Inputs:
    def __init__(self, arrays):
        self.query_ids = arrays["train_query_ids.npy"]
        self.passage_ids = arrays["passage_ids.npy"]
        self.passage_types = arrays.get("passage_type_ids.npy")
        self.pos = arrays["train_pos.npy"]
        self.neg = arrays.get("train_neg.npy")
        self.gold = arrays.get("train_gold.npy")
        self.dev_query_ids = arrays["dev_query_ids.npy"]
        self.dev_passage_ids = arrays["dev_passage_ids.npy"]
        self.dev_passage_types = arrays.get("dev_passage_type_ids.npy")
        self.dev_gold = arrays["dev_gold.npy"]


# --passages DIR: the tokenized collection as the tokenize-passages step writes it.
PASSAGE_DIR_FILES = {"passage_ids.npy": "ids.npy", "passage_type_ids.npy": "type_ids.npy"}


def _load(d, name, passages_dir=None):
    path = os.path.join(d, name)
    if passages_dir is not None and name in PASSAGE_DIR_FILES:
        path = os.path.join(passages_dir, PASSAGE_DIR_FILES[name])
    shape_text, required = FILES[name]
    return load_int_npy(path, shape_text, "write it with numpy.save (see steps/training/README.md)", required)


def _shape(arrays, d, name, ndim, rows=None, cols_like=None):
    a = arrays.get(name)
    if a is None:
        return
    path = os.path.join(d, name)
    if a.ndim != ndim:
        raise InputError(f"has shape {list(a.shape)}, expected {FILES[name][0]}", file=path)
    if rows is not None and a.shape[0] != rows[1]:
        raise InputError(f"has {a.shape[0]} rows but {rows[0]} has {rows[1]}; expected {FILES[name][0]}", file=path)
    if cols_like is not None and a.shape != cols_like[1]:
        raise InputError(f"has shape {list(a.shape)} but {cols_like[0]} has {list(cols_like[1])}", file=path)


def _range(arrays, d, name, n, allow_pad):
    a = arrays.get(name)
    if a is None or a.size == 0:
        return
    lo, hi = int(np.min(a)), int(np.max(a))
    if hi >= n or lo < (-1 if allow_pad else 0):
        raise InputError(f"values {lo}..{hi} fall outside [{'-1' if allow_pad else '0'}, {n - 1}]",
                                 file=os.path.join(d, name), fix="indexes are row numbers of the passage file")


def load_inputs(d, passages_dir=None):
    """Loads the input directory; with `passages_dir`, the collection's token ids come from
    `<passages_dir>/ids.npy` and `type_ids.npy` instead (no copy of a large matrix)."""
    for path in (d, passages_dir):
        if path is not None and not os.path.isdir(path):
            raise InputError("input directory not found", file=path)
    arrays = {name: _load(d, name, passages_dir) for name in FILES}
    arrays = {k: v for k, v in arrays.items() if v is not None}
    nq = arrays["train_query_ids.npy"].shape[0] if arrays["train_query_ids.npy"].ndim == 2 else -1
    _shape(arrays, d, "train_query_ids.npy", 2)
    _shape(arrays, d, "passage_ids.npy", 2)
    _shape(arrays, d, "passage_type_ids.npy", 2, cols_like=("passage_ids.npy", arrays["passage_ids.npy"].shape))
    _shape(arrays, d, "train_pos.npy", 1, rows=("train_query_ids.npy", nq))
    _shape(arrays, d, "train_neg.npy", 2, rows=("train_query_ids.npy", nq))
    _shape(arrays, d, "train_gold.npy", 2, rows=("train_query_ids.npy", nq))
    _shape(arrays, d, "dev_query_ids.npy", 2)
    _shape(arrays, d, "dev_passage_ids.npy", 2)
    _shape(arrays, d, "dev_passage_type_ids.npy", 2, cols_like=("dev_passage_ids.npy", arrays["dev_passage_ids.npy"].shape))
    _shape(arrays, d, "dev_gold.npy", 2, rows=("dev_query_ids.npy", arrays["dev_query_ids.npy"].shape[0]))
    n_p, n_dp = arrays["passage_ids.npy"].shape[0], arrays["dev_passage_ids.npy"].shape[0]
    _range(arrays, d, "train_pos.npy", n_p, allow_pad=False)
    _range(arrays, d, "train_neg.npy", n_p, allow_pad=True)
    _range(arrays, d, "train_gold.npy", n_p, allow_pad=True)
    _range(arrays, d, "dev_gold.npy", n_dp, allow_pad=True)
    if nq == 0:
        raise InputError("no training queries", file=os.path.join(d, "train_query_ids.npy"))
    return Inputs(arrays)
