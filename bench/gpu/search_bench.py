#!/usr/bin/env python3
"""The torch shard search timed beside its ceiling and its float32 peer (bench/gpu/search.ts runs it):

    python3 search_bench.py --rows N --queries Q --dim D --k K --ceiling M [--threads T]  -> one JSON line

On one random shard (Gaussian rows and queries, on the device):
- ceiling: an M x M x M matmul in the search's low dtype (float16 on CUDA, bfloat16 on CPU), TFLOP/s;
- proven: steps/dense/gpu/search.py's search (low-precision matmul + top-k at depth 2k, the depth
  rule with its float64 k-th scores, widening), the program the pipeline runs, minus file I/O;
- float32: matmul + top-k in float32 (TF32 off) at the flat backends' depth k + max(16, k/10);
- check: for the first 64 queries, the exact (float64) top k lies inside the proven candidates.
"""
import argparse
import json
import sys
import time

import torch

from dense.gpu.search import Shard, accumulates_wide, pick_dtype, search, setup


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(device, fn, reps=1):
    fn()  # warm-up: kernels, the low-precision copy of the shard
    sync(device)
    t0 = time.perf_counter()
    for _ in range(reps):
        out = fn()
    sync(device)
    return (time.perf_counter() - t0) / reps, out


def float32_search(x, q, depth, batch):
    for q0 in range(0, q.shape[0], batch):
        torch.topk(q[q0:q0 + batch] @ x.t(), depth, dim=1).indices.cpu()


def main(argv):
    ap = argparse.ArgumentParser()
    for a, d in (("--rows", 2_000_000), ("--queries", 4096), ("--dim", 768), ("--k", 100), ("--ceiling", 8192), ("--threads", 1), ("--seed", 1)):
        ap.add_argument(a, type=int, default=d)
    args = ap.parse_args(argv)
    device = setup(torch, "auto", args.threads)
    torch.manual_seed(args.seed)
    x = torch.randn(args.rows, args.dim, device=device)
    q = torch.randn(args.queries, args.dim, device=device)
    t0 = time.perf_counter()
    shard = Shard(torch, x, 1 << 30)
    norms_s = time.perf_counter() - t0
    q_norm = float(q.double().norm(dim=1).max())
    dtype = pick_dtype(torch, "auto", device, max(shard.max_abs, float(q.abs().max())), shard.max_l2 * q_norm)
    if not accumulates_wide(torch, device, getattr(torch, dtype)):
        dtype = "float32"
    low = getattr(torch, dtype)
    m = args.ceiling
    a = torch.randn(m, m, device=device).to(low)
    ceil_s, _ = timed(device, lambda: a @ a, reps=5)
    proven_s, (rows, _thr, _eps, stats) = timed(device, lambda: search(torch, shard, q, args.k, dtype, 2 * args.k, 64 * 1024))
    depth32 = args.k + max(16, -(-args.k // 10))
    f32_s, _ = timed(device, lambda: float32_search(x, q, depth32, max(1, (1 << 30) // (args.rows * 4))))
    nc = min(64, args.queries)
    exact = torch.topk(q[:nc].double() @ x.double().t(), args.k, dim=1).indices.cpu()
    inside = sum(1 for i in range(nc) if set(exact[i].tolist()) <= set(rows[i].tolist()))
    flop = 2.0 * args.rows * args.queries * args.dim
    out = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu", "torch": torch.__version__,
           "dtype": dtype, "rows": args.rows, "queries": args.queries, "dim": args.dim, "k": args.k,
           "ceiling": {"size": m, "seconds": ceil_s, "tflops": 2.0 * m ** 3 / ceil_s / 1e12},
           "proven": {"seconds": proven_s, "tflops": flop / proven_s / 1e12, "widened": stats["widened"], "float32": stats["float32"],
                      "allRows": stats["allRows"], "depths": stats["depths"]},
           "float32": {"seconds": f32_s, "tflops": flop / f32_s / 1e12, "depth": depth32},
           "norms_seconds": norms_s, "check": {"queries": nc, "exactInside": inside}}
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
