"""One DPR training step of the mini bi-encoder with the last layer over every token (the
whole-sequence pass, `hidden_states(...)[:, 0]`) and over [CLS] only (`forward`, what the trainer
runs), alternating in one process, beside the step's matmul floor: its matmul FLOPs at the rate a
1-thread GEMM of the step's largest shape reaches here.

    python3 first_token.py '{"rounds": 30, "queries": 32, "query_tokens": 64, "passages": 32, "passage_tokens": 96, "bert": {...}}'
"""
import json
import statistics
import sys
import time

import torch

from pytrain.bert_model import build_random
from pytrain.model_configs import BertConfig
from training.dpr.losses import in_batch_nll


def matmul_flops(c, n, length, first_only):
    """Forward matmul FLOPs of one encoder over n rows of `length` tokens (x3 for a training step)."""
    h, f = c.hidden_size, c.intermediate_size
    per_token = 2 * (4 * h * h + 2 * h * f)  # Q, K, V, O projections and the feed-forward
    attention = 2 * 2 * length * h  # scores and context, per query token
    total = 0
    for i in range(c.num_hidden_layers):
        last = first_only and i == c.num_hidden_layers - 1
        rows = 1 if last else length
        total += n * (rows * (per_token + attention) + (length - rows) * 2 * 2 * h * h)  # K and V of every token
    return 3 * total


def gemm_rate(m, k, n, seconds=1.0):
    """FLOP/s of a 1-thread float32 GEMM [m, k] @ [k, n] (best of repeated runs)."""
    a, b = torch.randn(m, k), torch.randn(k, n)
    best, t_end = float("inf"), time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        t0 = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - t0)
    return 2 * m * k * n / best


def main(cfg):
    torch.set_num_threads(1)
    c = BertConfig.from_dict(cfg["bert"])
    models = [build_random(c, s).train() for s in (1, 2)]
    opt = torch.optim.AdamW([p for m in models for p in m.parameters()], lr=1e-4)
    g = torch.Generator().manual_seed(0)
    q = torch.randint(1, c.vocab_size, (cfg["queries"], cfg["query_tokens"]), generator=g)
    p = torch.randint(1, c.vocab_size, (cfg["passages"], cfg["passage_tokens"]), generator=g)
    batches = [(x, torch.ones_like(x), torch.zeros_like(x)) for x in (q, p)]
    ways = {"whole": lambda m, b: m.hidden_states(*b)[:, 0], "first-token": lambda m, b: m(*b)}
    times = {w: [] for w in ways}
    for r in range(cfg["rounds"] + 3):
        for w, vec in ways.items():
            t0 = time.perf_counter()
            loss = in_batch_nll(vec(models[0], batches[0]), vec(models[1], batches[1]))[0]
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if r >= 3:  # three warm-up rounds
                times[w].append(time.perf_counter() - t0)
    rate = gemm_rate(cfg["passages"] * cfg["passage_tokens"], c.hidden_size, c.intermediate_size)
    out = {"gemm_gflops": rate / 1e9}
    for w in ways:
        flops = sum(matmul_flops(c, n, length, w == "first-token") for n, length in
                    ((cfg["queries"], cfg["query_tokens"]), (cfg["passages"], cfg["passage_tokens"])))
        out[w] = {"median_s": statistics.median(times[w]), "min_s": min(times[w]), "matmul_gflop": flops / 1e9, "floor_s": flops / rate}
    print("RESULT " + json.dumps(out))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
