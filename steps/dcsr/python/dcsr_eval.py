"""Model selection for DCSR: dev Recall@k of the HasAns passage ranking over the small dev
collection (every marked sentence of its passages indexed, top M sentences per query, softmax,
HasAns(P) = 1 - prod(1 - p_i)), the same ranking the pipeline's search-dcsr step applies."""
import numpy as np
import torch

from dcsr.python.dcsr_model import gather_markers
from pytrain.tensors import to_batch
from training.dpr.recall import encode


@torch.no_grad()
def encode_sentences(model, ids, types, markers, batch_size, device):
    """Sentence vectors of every marked slot, in (row, slot) order, and each vector's passage row."""
    was = model.training
    model.eval()
    vecs, rows = [], []
    for s in range(0, len(ids), batch_size):
        e = min(s + batch_size, len(ids))
        a, m, t = to_batch(ids[s:e], None if types is None else types[s:e], device)
        pos = np.asarray(markers[s:e], dtype=np.int64)
        if pos.size and pos.max() >= a.size(1):
            # to_batch trims trailing padding; a marker always sits on a real token, so this cannot happen
            raise ValueError("marker past the trimmed sequence")
        out = gather_markers(model.hidden_states(a, m, t), torch.as_tensor(pos, device=device)).float().cpu().numpy()
        keep = pos >= 0
        vecs.append(out[keep])
        rows.append(np.nonzero(keep)[0] + s)
    model.train(was)
    dim = model.config.hidden_size
    return (np.concatenate(vecs) if vecs else np.zeros((0, dim), np.float32)), (np.concatenate(rows) if rows else np.zeros(0, np.int64))


def hasans_order(scores, rows, m):
    """Passage rows ranked by HasAns over the top-m sentences of one query (ties: lower row first)."""
    top = np.argsort(-scores, kind="stable")[:m]
    s = scores[top].astype(np.float64)
    lse = s.max() + np.log(np.exp(s - s.max()).sum())
    p = np.exp(s - lse)
    log_not = np.log1p(-np.minimum(p, 1.0 - 1e-300))
    if len(s) > 1:
        others = s[1:]
        log_not[0] = others.max() + np.log(np.exp(others - others.max()).sum()) - lse
    passages = rows[top]
    uniq, inv = np.unique(passages, return_inverse=True)
    acc = np.zeros(len(uniq))
    np.add.at(acc, inv, log_not)
    return uniq[np.lexsort((uniq, acc))]


def dev_recall(q_model, p_model, inputs, cfg, device):
    """(mean Recall@k over dev queries with gold, queries counted)."""
    sv, srows = encode_sentences(p_model, inputs.dev_passage_ids, inputs.dev_passage_types, inputs.dev_markers, cfg["eval_batch_size"], device)
    # The DPR trainer's encode returns a tensor on the training device.
    qv = encode(q_model, inputs.dev_query_ids, None, cfg["eval_batch_size"], device).cpu().numpy()
    scores = qv.astype(np.float64) @ sv.astype(np.float64).T
    k, m = cfg["recall_k"], min(cfg["dev_top_m"], len(srows))
    total, counted = 0.0, 0
    for i in range(scores.shape[0]):
        g = {int(x) for x in inputs.dev_gold[i] if int(x) >= 0}
        if not g:
            continue
        ranked = hasans_order(scores[i], srows, m)[:k] if m > 0 else []
        total += len(g.intersection(int(x) for x in ranked)) / len(g)
        counted += 1
    return (total / counted if counted else 0.0), counted
