"""Dev Recall@k for model selection: exact inner-product search over a small dev collection."""
import numpy as np
import torch


def trim(ids, types=None):
    """Drops trailing all-padding columns; results are unchanged (pad id 0 is masked)."""
    nz = np.nonzero((ids != 0).any(axis=0))[0]
    width = int(nz[-1]) + 1 if len(nz) else 1
    return ids[:, :width], (types[:, :width] if types is not None else None)


def to_batch(ids, types, device):
    ids, types = trim(np.asarray(ids), None if types is None else np.asarray(types))
    t_ids = torch.as_tensor(ids.astype(np.int64), device=device)
    t_types = torch.zeros_like(t_ids) if types is None else torch.as_tensor(types.astype(np.int64), device=device)
    return t_ids, (t_ids != 0).long(), t_types


@torch.no_grad()
def encode(model, ids, types, batch_size, device):
    was_training = model.training
    model.eval()
    out = []
    for s in range(0, len(ids), batch_size):
        e = min(s + batch_size, len(ids))
        a, m, t = to_batch(ids[s:e], None if types is None else types[s:e], device)
        out.append(model(a, m, t).float().cpu().numpy())
    model.train(was_training)
    return np.concatenate(out, axis=0) if out else np.zeros((0, model.config.hidden_size), np.float32)


def recall_at_k(q, p, gold, k):
    """Mean over queries with gold of |gold ∩ top-k| / |gold|; ties broken by lower passage index.

    Returns (recall, number of queries scored); queries whose gold row is all -1 are skipped.
    """
    scores = q.astype(np.float64) @ p.astype(np.float64).T
    total, counted = 0.0, 0
    for i in range(scores.shape[0]):
        g = {int(x) for x in gold[i] if int(x) >= 0}
        if not g:
            continue
        order = np.argsort(-scores[i], kind="stable")[:k]
        total += len(g.intersection(int(x) for x in order)) / len(g)
        counted += 1
    return (total / counted if counted else 0.0), counted
