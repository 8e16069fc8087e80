"""One step's examples: the global batch's passage columns and false-negative mask (sampled
identically by every data-parallel process), this process's slice as device tensors, and the
gathered embeddings of every process in the one-process layout."""
import numpy as np
import torch

from pytrain.gradcache import chunk_rows
from pytrain.tensors import to_batch
from training.dpr.losses import false_negative_mask
from training.dpr.negatives import gold_set, sample_negatives


class StepBatch:
    """A global batch of `n` examples: `cols` = [positive of each example, then n_neg hard
    negatives of each example], `mask` its false-negative mask (or None)."""

    def __init__(self, idx, cols, golds, mask, n_neg):
        self.idx, self.cols, self.golds, self.mask, self.n_neg = idx, cols, golds, mask, n_neg

    @property
    def n(self):
        return len(self.idx)


class Batcher:
    def __init__(self, inputs, cfg, device):
        self.inputs, self.cfg, self.device = inputs, cfg, device
        self.rng = np.random.default_rng([int(cfg["seed"]), 1])  # negatives stream, separate from the order
        self.n_passages = inputs.passage_ids.shape[0]
        self.fallbacks = 0

    def plan(self, idx):
        """Samples the global batch's negatives (the same stream in every process)."""
        inp, n = self.inputs, self.cfg["n_hard_negatives"]
        golds = [gold_set(inp.pos[i], None if inp.gold is None else inp.gold[i]) for i in idx]
        negs = []
        for i, g in zip(idx, golds):
            ns, fb = sample_negatives(self.rng, None if inp.neg is None else inp.neg[i], g, n, self.n_passages,
                                      self.cfg["filter_gold_negatives"])
            negs.extend(ns)
            self.fallbacks += fb
        cols = [int(inp.pos[i]) for i in idx] + negs
        mask = false_negative_mask(cols, golds) if self.cfg["mask_false_negatives"] else None
        return StepBatch(list(idx), cols, golds, mask, n)

    def tensors(self, batch, rows, chunk):
        """Device tensors of examples [rows[0], rows[1]) of `batch`: (query chunks, passage chunks),
        each chunk (input_ids, attention_mask, token_type_ids) trimmed to its longest row; the
        passages are the slice's positives, then its hard negatives. One chunk each without `chunk`."""
        a, b = rows
        inp = self.inputs
        q_rows = np.asarray(batch.idx[a:b], dtype=np.int64)
        p_cols = np.asarray(batch.cols[a:b] + batch.cols[batch.n + a * batch.n_neg: batch.n + b * batch.n_neg], dtype=np.int64)
        q_chunks = [to_batch(np.asarray(inp.query_ids[q_rows[s:e]]), None, self.device) for s, e in chunk_rows(len(q_rows), chunk)]
        p_chunks = []
        for s, e in chunk_rows(len(p_cols), chunk):
            sel = p_cols[s:e]
            types = None if inp.passage_types is None else np.asarray(inp.passage_types[sel])
            p_chunks.append(to_batch(np.asarray(inp.passage_ids[sel]), types, self.device))
        return q_chunks, p_chunks

    def mask_on_device(self, batch):
        if batch.mask is None or self.device.type != "cuda":
            return batch.mask
        return batch.mask.pin_memory().to(self.device, non_blocking=True)


def gather_pairs(group, q, p, n_examples, n_negatives):
    """(queries, passages) of the global batch from every process's slice, in the one-process
    layout: queries in example order; passages = every example's positive, then every example's
    hard negatives (each process holds its examples' positives, then their negatives)."""
    if group.world_size == 1:
        return q, p
    counts = group.counts(n_examples)
    qs = group.gather_parts(q, counts)
    ps = group.gather_parts(p, [c * (1 + n_negatives) for c in counts])
    positives = [part[:c] for part, c in zip(ps, counts)]
    negatives = [part[c:] for part, c in zip(ps, counts)]
    return torch.cat(qs), torch.cat(positives + negatives)
