"""Dev Recall@k for model selection: exact inner-product search over a small dev collection,
on the training device (one host sync per evaluation: the final number)."""
import numpy as np
import torch

from pytrain.tensors import to_batch


@torch.no_grad()
def encode(model, ids, types, batch_size, device):
    """float32 [N, hidden] embeddings on `device` (the model in eval mode, float32)."""
    was_training = model.training
    model.eval()
    out = []
    for s in range(0, len(ids), batch_size):
        e = min(s + batch_size, len(ids))
        a, m, t = to_batch(ids[s:e], None if types is None else types[s:e], device)
        out.append(model(a, m, t).float())
    model.train(was_training)
    if not out:
        return torch.zeros((0, model.config.hidden_size), dtype=torch.float32, device=device)
    return torch.cat(out, dim=0)


def unique_gold(gold):
    """int64 [N, g]: each row's distinct non-negative ids first (ascending), then -1 padding."""
    gold = np.asarray(gold)
    out = np.full(gold.shape, -1, dtype=np.int64)
    for i, row in enumerate(gold):
        u = np.unique(row[row >= 0])
        out[i, :len(u)] = u
    return out


def recall_at_k(q, p, gold, k, block=512):
    """Mean over queries with gold of |gold ∩ top-k| / |gold|; ties broken by lower passage index.

    q [Nq, D], p [Np, D] (tensors or arrays; scored in float64 on q's device), gold [Nq, g]
    rows of p, -1 padded. Returns (recall, number of queries scored); queries whose gold row
    is all -1 are skipped.
    """
    q = torch.as_tensor(q)
    device = q.device
    p = torch.as_tensor(p).to(device).double()
    g = torch.as_tensor(unique_gold(gold)).to(device)
    n_gold = (g >= 0).sum(dim=1)
    total = torch.zeros((), dtype=torch.float64, device=device)
    kk = min(int(k), p.shape[0])
    for s in range(0, q.shape[0], block):
        scores = q[s:s + block].double() @ p.t()
        # A stable sort keeps equal scores in passage order, as the tie rule says.
        top = torch.sort(scores, dim=1, descending=True, stable=True).indices[:, :kk]
        gb = g[s:s + block]
        hits = ((top[:, :, None] == gb[:, None, :]).any(dim=1) & (gb >= 0)).sum(dim=1)
        nb = n_gold[s:s + block]
        total += torch.where(nb > 0, hits.double() / nb.clamp(min=1).double(), torch.zeros_like(total)).sum()
    counted = int((n_gold > 0).sum().item()) if g.numel() else 0
    return (float(total.item()) / counted if counted else 0.0), counted
