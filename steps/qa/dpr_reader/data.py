"""The reader's input directory (written by the prepare-dpr-reader-inputs step, steps/qa/steps.ts):

    meta.json                    {vocabDigest, vocabSize, sepId, maxLength, ...}
    passage_ids.npy              int32 [Np, Lp] `title [SEP] text [SEP]` rows, pad 0
    passage_word.npy             int32 [Np, Lp] word index of each text token, -1 elsewhere
    train/question_ids.npy       int32 [Q, Lq] `[CLS] X_t [SEP]`, pad 0
    train/candidates.npy         int32 [Q, P] passage rows in rank order, -1 pad
    train/has_answer.npy         int8  [Q, P]
    train/spans.npy              int32 [Q, P, S, 2] answer token spans in the passage row, -1 pad
    dev/question_ids.npy, dev/candidates.npy   the dev questions and their top passages
    dev/has_answer.npy           int8  [Q, P] whether each dev candidate holds the answer (for the
                                 dev diagnostics only: dev_right_passage; absent in older inputs)
    dev/answers.json             [[gold answers] per dev question]
    dev/texts.jsonl              {"row", "text", "words": [[start, end], ...]} per passage row the dev set reads
"""
import json
import os

import numpy as np

from pytrain.errors import InputError
from pytrain.npy_inputs import load_npy


def _npy(path, ndim):
    return load_npy(path, "write the inputs with the prepare-dpr-reader-inputs step", ndim=ndim)


def strip(row):
    n = int(np.count_nonzero(row))
    return [int(x) for x in row[:n]]


class Split:
    def __init__(self, d, with_labels):
        self.question_ids = _npy(os.path.join(d, "question_ids.npy"), 2)
        self.candidates = _npy(os.path.join(d, "candidates.npy"), 2)
        if self.candidates.shape[0] != self.question_ids.shape[0]:
            raise InputError(f"{self.candidates.shape[0]} rows but question_ids.npy has {self.question_ids.shape[0]}", os.path.join(d, "candidates.npy"))
        labels = os.path.join(d, "has_answer.npy")
        self.has_answer = _npy(labels, 2) if with_labels or os.path.isfile(labels) else None
        self.spans = _npy(os.path.join(d, "spans.npy"), 4) if with_labels else None


class ReaderInputs:
    def __init__(self, d):
        self.dir = d
        with open(os.path.join(d, "meta.json"), encoding="utf-8") as f:
            self.meta = json.load(f)
        self.passage_ids = _npy(os.path.join(d, "passage_ids.npy"), 2)
        self.passage_word = _npy(os.path.join(d, "passage_word.npy"), 2)
        self.train = Split(os.path.join(d, "train"), True)
        self.dev = Split(os.path.join(d, "dev"), False)
        with open(os.path.join(d, "dev", "answers.json"), encoding="utf-8") as f:
            self.dev_answers = json.load(f)
        self.dev_texts = {}
        with open(os.path.join(d, "dev", "texts.jsonl"), encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                self.dev_texts[r["row"]] = (r["text"], r["words"])
        self.sep = int(self.meta["sepId"])
        n = self.passage_ids.shape[0]
        for split in (self.train, self.dev):
            c = np.asarray(split.candidates)
            if c.size and (c.max() >= n or c.min() < -1):
                raise InputError(f"candidate rows {c.min()}..{c.max()} outside [-1, {n - 1}]", os.path.join(d, "candidates.npy"))


def pair(question, passage_row, passage_word_row, max_length, sep):
    """ids of `question + passage row` cut to max_length (a cut row ends in [SEP]), the offset of
    the row, and for each position whether it is an answer-eligible text token."""
    room = max_length - len(question)
    row = passage_row if len(passage_row) <= room else passage_row[:max(0, room - 1)] + [sep]
    words = list(passage_word_row[:len(row)])
    if len(row) < len(passage_row) and words:
        words[-1] = -1
    ids = list(question) + row
    eligible = [False] * len(question) + [w >= 0 for w in words]
    return ids, len(question), eligible, words
