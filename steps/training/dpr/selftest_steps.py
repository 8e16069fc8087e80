"""Selftests of the training step (see selftest.py for the protocol): the gradient cache,
activation checkpointing and data-parallel processes give the one-graph gradients; the loss
stays float32 under autocast; the step loop never waits for the device.

    gradients   {cases: [{strategy, chunk, dropout, seed, ref_chunk?, dtype?}]} -> {cases: [{max_abs_diff, max_abs_grad, loss, loss_ref}]}
    ddp         {world, chunks, seed}              -> {runs: [{chunk, max_abs_diff, loss}], max_abs_grad, loss_ref}
    autocast-loss {}                               -> {dtype, max_abs_diff, bf16_matmul_diff}
    host-syncs  {steps, chunks}                    -> {runs: [{calls: {name: count}, loss_sum}]}
    first-token {layers, checkpointing}            -> {max_abs_diff, max_abs_grad_diff, max_abs_grad, last_ffn_rows, last_ffn_rows_whole}
"""
import os
import tempfile
from types import SimpleNamespace

import numpy as np
import torch

from pytrain import distributed
from pytrain.amp import Amp
from pytrain.bert_model import build_random
from pytrain.checks import host_syncs
from pytrain.gradcache import Side, cached_step, chunk_rows, plain_step
from pytrain.model_configs import BertConfig
from pytrain.tensors import to_batch
from training.dpr.batches import gather_pairs
from training.dpr.losses import false_negative_mask, in_batch_nll

TINY = {"vocab_size": 60, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 32, "max_position_embeddings": 32}
CPU = torch.device("cpu")


def _no_autocast():
    return torch.autocast(device_type="cpu", enabled=False)


def _models(seed, dropout=0.0, checkpointing=False, dtype="float64"):
    """Float64 by default: the strategies' differences are then the algorithm's, not float32 rounding."""
    c = BertConfig.from_dict({**TINY, "hidden_dropout_prob": dropout, "attention_probs_dropout_prob": dropout})
    ms = (build_random(c, seed), build_random(c, seed + 1))
    for m in ms:
        m.configure(attention="math", checkpointing=checkpointing).to(getattr(torch, dtype)).train()
    return ms


def _batch(seed, n=6, n_neg=1):
    """n queries of varied lengths, their positives and n_neg negatives each; two share a gold passage."""
    rng = np.random.default_rng(seed)

    def rows(count, width):
        ids = rng.integers(1, TINY["vocab_size"], size=(count, width))
        for r in range(count):
            ids[r, 2 + (r * 5) % (width - 2):] = 0
        return ids

    q, p = rows(n, 12), rows(n * (1 + n_neg), 20)
    cols = list(range(n)) + [100 + j for j in range(n * n_neg)]
    golds = [{i} for i in range(n)]
    cols[1] = 0  # example 1's positive is example 0's: a false negative to mask
    golds[1] = {0}
    return q, p, false_negative_mask(cols, golds)


def _chunks(ids, size):
    return [to_batch(ids[s:e], None, CPU) for s, e in chunk_rows(len(ids), size)]


def _grads(models):
    return torch.cat([p.grad.reshape(-1) for m in models for p in m.parameters()])


def _run(strategy, models, q, p, mask, chunk, seed):
    torch.manual_seed(seed)  # the dropout stream
    chunks = (_chunks(q, chunk), _chunks(p, chunk))
    step = plain_step if strategy == "plain" else cached_step
    loss = step(_sides(models), chunks, lambda a, b: in_batch_nll(a, b, mask)[0], _no_autocast, lambda x: x, lambda a, b: (a, b))
    return float(loss), _grads(models)


def _sides(models):
    return Side(models[0]), Side(models[1])


def _gradients(a):
    """Each case against its reference: the plain step, whole batch in one chunk (or `ref_chunk`), no checkpointing."""
    return {"cases": [_gradient_case(c) for c in a["cases"]]}


def _gradient_case(a):
    seed, dropout, chunk, dtype = a.get("seed", 0), a.get("dropout", 0.0), a.get("chunk", 2), a.get("dtype", "float64")
    q, p, mask = _batch(seed)
    loss_ref, g_ref = _run("plain", _models(seed, dropout, dtype=dtype), q, p, mask, a.get("ref_chunk"), seed)
    strategy = a["strategy"]
    models = _models(seed, dropout, checkpointing=strategy.endswith("checkpointing"), dtype=dtype)
    loss, g = _run("plain" if strategy == "checkpointing" else "cached", models, q, p, mask,
                   None if strategy == "checkpointing" else chunk, seed)
    return {"max_abs_diff": float((g - g_ref).abs().max()), "max_abs_grad": float(g_ref.abs().max()),
            "loss": loss, "loss_ref": loss_ref}


def _ddp_worker(rank, world, port, chunks_per_run, seed, out):
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank),
                       "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank)})
    torch.set_num_threads(1)
    group = distributed.Group("cpu")
    q, p, mask = _batch(seed, n=5)  # 5 examples over 2 processes: slices of 3 and 2
    a, b = group.slice(5)
    local_p = np.concatenate([p[a:b], p[5 + a:5 + b]])
    results = []
    for chunk in chunks_per_run:
        models = _models(seed)
        chunks = (_chunks(q[a:b], chunk), _chunks(local_p, chunk))
        step = plain_step if chunk is None else cached_step
        loss = step(_sides(models), chunks, lambda x, y: in_batch_nll(x, y, mask)[0], _no_autocast, lambda x: x,
                    lambda x, y: gather_pairs(group, x, y, 5, 1))
        group.all_reduce_grads([t for m in models for t in m.parameters()])
        results.append({"grads": _grads(models), "loss": float(loss)})
    if rank == 0:
        torch.save(results, out)
    group.close()


def _ddp(a):
    """One data-parallel step per entry of `chunks` (null = one graph) against the one-process plain step."""
    seed, world, chunks = a.get("seed", 0), a.get("world", 2), a.get("chunks", [None])
    q, p, mask = _batch(seed, n=5)
    loss_ref, g_ref = _run("plain", _models(seed), q, p, mask, None, seed)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "rank0.pt")
        torch.multiprocessing.spawn(_ddp_worker, args=(world, distributed.free_port(), chunks, seed, out), nprocs=world)
        got = torch.load(out)
    return {"runs": [{"chunk": c, "max_abs_diff": float((r["grads"] - g_ref).abs().max()), "loss": r["loss"]} for c, r in zip(chunks, got)],
            "max_abs_grad": float(g_ref.abs().max()), "loss_ref": loss_ref}


def _autocast_loss(_a):
    g = torch.Generator().manual_seed(0)
    q, p = torch.randn(4, 32, generator=g) * 3, torch.randn(8, 32, generator=g) * 3
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        loss, scores = in_batch_nll(q, p)
        plain = q @ p.t()  # what autocast does to a matmul left inside it
    ref_loss, ref_scores = in_batch_nll(q, p)
    return {"dtype": str(scores.dtype), "loss_dtype": str(loss.dtype), "max_abs_diff": float((scores - ref_scores).abs().max()),
            "loss_diff": float((loss - ref_loss).abs()), "bf16_matmul_diff": float((plain.float() - ref_scores).abs().max())}


def _dpr_task(seed, chunk, group, checkpointing):
    """A tiny DPR task (pytrain/checks.py's factory): 8 queries, their positives and one mined negative each."""
    from training.dpr.trainer import DprTask  # noqa: PLC0415
    rng = np.random.default_rng(seed)
    inp = SimpleNamespace(query_ids=rng.integers(1, TINY["vocab_size"], size=(32, 10)).astype(np.int32),
                          passage_ids=rng.integers(1, TINY["vocab_size"], size=(40, 14)).astype(np.int32),
                          passage_types=None, gold=None, pos=np.arange(32, dtype=np.int32), neg=rng.integers(0, 40, size=(32, 5)).astype(np.int32))
    cfg = {"seed": 1, "n_hard_negatives": 1, "filter_gold_negatives": True, "mask_false_negatives": True, "batch_size": 8, "grad_cache_chunk": chunk}
    models = _models(0, checkpointing=checkpointing, dtype="float32")
    return DprTask(models, inp, cfg, CPU, Amp("none", CPU, lambda _m: None), group), list(range(8))


def _host_syncs(a):
    """Per `chunks` entry: calls of tensor-to-host methods made by the trainer's own code during `steps` steps."""
    own = [os.path.dirname(os.path.abspath(__file__))]
    return {"runs": [dict(zip(("calls", "loss_sum"), host_syncs(_dpr_task, 0, a.get("steps", 3), own, c))) for c in a.get("chunks", [None])]}


def _first_token(a):
    """The bi-encoders' vector (`forward`: the last layer run for the first token only) against the
    first row of the whole sequence's last states: the vectors, the loss's gradients (float64), and
    how many rows the last layer's feed-forward computed each way."""
    c = BertConfig.from_dict({**TINY, "num_hidden_layers": a.get("layers", 2), "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0})
    q, p, mask = _batch(3)
    rows = []
    results = []
    for whole in (False, True):
        models = [build_random(c, s).configure(attention="math", checkpointing=a.get("checkpointing", False)).double().train()
                  for s in (5, 6)]
        hook = models[1].encoder.layer[-1].intermediate.dense.register_forward_hook(lambda _m, i, _o: rows.append(i[0].shape[:2].numel()))
        vec = [(lambda b, m=m: m.hidden_states(*b)[:, 0]) if whole else (lambda b, m=m: m(*b)) for m in models]
        qv, pv = vec[0](to_batch(q, None, CPU)), vec[1](to_batch(p, None, CPU))
        in_batch_nll(qv, pv, mask)[0].backward()
        hook.remove()
        results.append((torch.cat([qv.detach(), pv.detach()]), _grads(models)))
    (v, g), (v_ref, g_ref) = results
    return {"max_abs_diff": float((v - v_ref).abs().max()), "max_abs_grad_diff": float((g - g_ref).abs().max()),
            "max_abs_grad": float(g_ref.abs().max()), "last_ffn_rows": rows[0], "last_ffn_rows_whole": rows[-1]}


SELFTESTS = {"gradients": _gradients, "ddp": _ddp, "autocast-loss": _autocast_loss, "host-syncs": _host_syncs,
             "first-token": _first_token}
