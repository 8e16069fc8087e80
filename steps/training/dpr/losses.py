"""DPR's in-batch negative log-likelihood.

Passage columns are laid out as [positive of example 0..B-1, hard negatives of example 0
(n of them), of example 1, ...]; example i's target column is i. Every other column is a
negative for query i: the other examples' positives and all hard negatives in the batch.
"""
import torch
from torch.nn import functional as F


def in_batch_scores(q, p):
    """Dot-product similarities, (B x D) @ (C x D)^T -> B x C, in float32 (or float64 for float64 inputs).

    Autocast is switched off here: under fp16/bf16 autocast a matmul runs in half precision
    even on float32 operands, and logits of ~100 in bf16 keep 2-3 significant digits.
    """
    dtype = torch.promote_types(torch.promote_types(q.dtype, p.dtype), torch.float32)  # float64 stays float64
    with torch.autocast(device_type=q.device.type, enabled=False):
        return q.to(dtype) @ p.to(dtype).t()


def false_negative_mask(column_pids, gold_sets):
    """True where column c holds a gold passage of query i other than its own target column.

    Two turns of one conversation can share a gold passage (OR-QuAC: all of them do); without
    the mask that passage would be pushed down as an in-batch negative of the other turn.
    """
    b = len(gold_sets)
    mask = torch.zeros(b, len(column_pids), dtype=torch.bool)
    for i, gold in enumerate(gold_sets):
        for c, pid in enumerate(column_pids):
            if c != i and pid in gold:
                mask[i, c] = True
    return mask


def in_batch_nll(q, p, mask=None):
    """Mean over queries of -log softmax(scores)[i, i]; masked columns get -inf. Float32 throughout."""
    scores = in_batch_scores(q, p)
    with torch.autocast(device_type=scores.device.type, enabled=False):
        if mask is not None:
            scores = scores.masked_fill(mask.to(scores.device, non_blocking=True), float("-inf"))
        targets = torch.arange(q.size(0), device=scores.device)
        return F.cross_entropy(scores, targets), scores
