"""The DCSR trainer's input directory (steps/dcsr/README.md) and the marker-token collection:
loading, shapes, dtypes and index ranges, checked before any training step."""
import json
import os

import numpy as np

from pytrain.errors import InputError
from pytrain.npy_inputs import load_int_npy

# name -> (expected content, required?)
FILES = {
    "train_query_ids.npy": ("int [Nq, Lq] token ids, pad 0", True),
    "train_pos.npy": ("int32 [Nq] row of the positive passage", True),
    "train_labels.npy": ("int8 [Nq, M] per marker slot of the positive passage: 1 positive, 2 excluded, 0 in-passage candidate, -1 none", True),
    "train_gold.npy": ("int32 [Nq, g] gold passage rows, -1 padded", True),
    "train_neg.npy": ("int32 [Nq, k] mined negative passage rows, -1 padded", False),
    "train_neg_sentence_rows.npy": ("int32 [Nq, k] passage rows of mined negative sentences, -1 padded", False),
    "train_neg_sentence_slots.npy": ("int32 [Nq, k] marker slots of mined negative sentences", False),
    "dev_query_ids.npy": ("int [Nd, Lq] token ids", True),
    "dev_passage_ids.npy": ("int [Ndp, Lp] token ids", True),
    "dev_passage_type_ids.npy": ("int8 [Ndp, Lp] token types", False),
    "dev_markers.npy": ("int32 [Ndp, M] marker positions, -1 padded", True),
    "dev_gold.npy": ("int32 [Nd, g] rows of the dev passages, -1 padded", True),
}
# --passages DIR (tokenize-dcsr-passages)
PASSAGE_FILES = {"ids.npy": True, "type_ids.npy": False, "markers.npy": True}


def _load(path, what, required=True):
    return load_int_npy(path, what, "assemble it with assemble-dcsr-examples (steps/dcsr/README.md)", required)


class Inputs:
    def __init__(self, d, passages_dir):
        for path in (d, passages_dir):
            if not os.path.isdir(path):
                raise InputError("input directory not found", file=path)
        a = {n: _load(os.path.join(d, n), what, req) for n, (what, req) in FILES.items()}
        p = {n: _load(os.path.join(passages_dir, n), n, req) for n, req in PASSAGE_FILES.items()}
        self.query_ids, self.pos, self.labels, self.gold = a["train_query_ids.npy"], a["train_pos.npy"], a["train_labels.npy"], a["train_gold.npy"]
        self.neg, self.neg_rows, self.neg_slots = a["train_neg.npy"], a["train_neg_sentence_rows.npy"], a["train_neg_sentence_slots.npy"]
        self.dev_query_ids, self.dev_passage_ids, self.dev_passage_types = a["dev_query_ids.npy"], a["dev_passage_ids.npy"], a["dev_passage_type_ids.npy"]
        self.dev_markers, self.dev_gold = a["dev_markers.npy"], a["dev_gold.npy"]
        self.passage_ids, self.passage_types, self.markers = p["ids.npy"], p["type_ids.npy"], p["markers.npy"]
        self.marker_id = _marker_id(passages_dir)
        self._check(d, passages_dir)
        # Sentences with a vector per passage row: the markers that survived truncation.
        self.marked = np.asarray((np.asarray(self.markers) >= 0).sum(axis=1), dtype=np.int64)

    def _check(self, d, pdir):
        nq = self.query_ids.shape[0]
        n_p = self.passage_ids.shape[0]
        m = self.markers.shape[1] if self.markers.ndim == 2 else -1

        def bad(name, msg, where=d):
            raise InputError(msg, file=os.path.join(where, name))

        for name, arr, ndim in (("train_query_ids.npy", self.query_ids, 2), ("train_pos.npy", self.pos, 1), ("train_labels.npy", self.labels, 2), ("train_gold.npy", self.gold, 2)):
            if arr.ndim != ndim or arr.shape[0] != nq:
                bad(name, f"has shape {list(arr.shape)}; expected {FILES[name][0]} with Nq = {nq}")
        if self.markers.ndim != 2 or self.markers.shape[0] != n_p:
            bad("markers.npy", f"has shape {list(self.markers.shape)} for {n_p} passages", pdir)
        if self.labels.shape[1] != m or self.dev_markers.ndim != 2 or self.dev_markers.shape[1] != m:
            bad("train_labels.npy", f"label width {self.labels.shape[1]} / dev markers {list(self.dev_markers.shape)} differ from the collection's {m} marker slots")
        if (self.neg is None) == (self.neg_rows is None):
            bad("train_neg.npy", "exactly one of train_neg.npy (negative passages) and train_neg_sentence_rows.npy (mined sentences) is needed")
        if (self.neg_rows is None) != (self.neg_slots is None) or (self.neg_rows is not None and self.neg_rows.shape != self.neg_slots.shape):
            bad("train_neg_sentence_slots.npy", "must accompany train_neg_sentence_rows.npy with the same shape")
        for name, arr in (("train_pos.npy", self.pos), ("train_gold.npy", self.gold), ("train_neg.npy", self.neg), ("train_neg_sentence_rows.npy", self.neg_rows)):
            if arr is not None and arr.size and (int(np.max(arr)) >= n_p or int(np.min(arr)) < (0 if name == "train_pos.npy" else -1)):
                bad(name, f"values fall outside the {n_p} passage rows")
        if self.dev_gold.shape[0] != self.dev_query_ids.shape[0] or self.dev_markers.shape[0] != self.dev_passage_ids.shape[0]:
            bad("dev_gold.npy", "dev gold / markers rows do not match the dev queries / passages")
        if nq == 0:
            bad("train_query_ids.npy", "no training queries")


def _marker_id(passages_dir):
    path = os.path.join(passages_dir, "meta.json")
    try:
        with open(path, encoding="utf-8") as f:
            dcsr = json.load(f).get("dcsr") or {}
    except (OSError, ValueError) as e:
        raise InputError(f"not readable ({e})", file=path, fix="tokenize with tokenize-dcsr-passages") from e
    if not isinstance(dcsr.get("markerId"), int):
        raise InputError("no dcsr.markerId: not a DCSR token directory", file=path, fix="tokenize with tokenize-dcsr-passages")
    return dcsr["markerId"]
