#!/usr/bin/env python3
"""Exact inner-product top-`depth` of every query against one shard of passage embeddings, in
torch (a GPU matmul; the same program on CPU under --allow-cpu and in tests).

    python3 shard_search.py --params params.json --queries DIR --passages DIR --out DIR

params.json: {"k", "depth", "passageBlock", "queryBlock", "rescoreBlock"}. Reads the queries'
and the shard's embeddings.npy (float32 [n, dim], the encode steps' format; the shard memory-
mapped and moved to the device one block of `passageBlock` rows at a time). Per block:
candidates by a float32 matmul (TF32 off) and top-`depth`, then their exact scores: float64
sums of the float32 products, in the order of steps/dense/brute-force.ts (four interleaved
accumulators), rounded to float32, so the scores are the CPU path's (`rescoreShard`); the
running top-`depth` is ordered by (-score, row). Writes scores.npy (float32 [nq, depth]),
rows.npy (int32 [nq, depth], rows of the shard, -1 where the shard has fewer rows) and
meta.json. Memory: one passage block and the running top lists.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DPR = os.path.abspath(os.path.join(HERE, "..", "training", "dpr"))
DEFAULTS = {"passageBlock": 1 << 20, "queryBlock": 1024, "rescoreBlock": 256}
INT32_MAX = 2 ** 31 - 1


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def exact_scores(torch, q, cand):
    """float32 [b, c]: q [b, D] against cand [b, c, D], summed as brute-force.ts sums."""
    prod = q.double()[:, None, :] * cand.double()  # float32 x float32 is exact in float64
    dim = prod.shape[-1]
    d4 = dim - dim % 4
    acc = torch.zeros(prod.shape[:-1] + (4,), dtype=torch.float64, device=prod.device)
    for d in range(0, d4, 4):
        acc += prod[..., d:d + 4]
    a0 = acc[..., 0]
    for d in range(d4, dim):
        a0 = a0 + prod[..., d]
    return (((a0 + acc[..., 1]) + acc[..., 2]) + acc[..., 3]).float()


def order_by_score_then_row(torch, scores, rows):
    """Sorts each row of (scores, rows) by (-score, row), padding (row -1) last."""
    key = torch.where(rows < 0, torch.full_like(rows, INT32_MAX), rows)
    i = torch.sort(key, dim=1, stable=True).indices
    scores, rows = scores.gather(1, i), rows.gather(1, i)
    j = torch.sort(scores, dim=1, descending=True, stable=True).indices
    return scores.gather(1, j), rows.gather(1, j)


def search(torch, np, queries, passages, depth, params, device, progress):
    nq, n = queries.shape[0], passages.shape[0]
    best_s = torch.full((nq, depth), float("-inf"), dtype=torch.float32, device=device)
    best_r = torch.full((nq, depth), -1, dtype=torch.int64, device=device)
    q_all = torch.from_numpy(np.ascontiguousarray(queries)).to(device)
    for p0 in range(0, n, params["passageBlock"]):
        block = torch.from_numpy(np.array(passages[p0:p0 + params["passageBlock"]], dtype=np.float32)).to(device)
        c = min(depth, block.shape[0])
        for q0 in range(0, nq, params["queryBlock"]):
            q = q_all[q0:q0 + params["queryBlock"]]
            cand = torch.topk(q @ block.t(), c, dim=1).indices  # float32 candidates
            for r0 in range(0, q.shape[0], params["rescoreBlock"]):
                qi, ci = q[r0:r0 + params["rescoreBlock"]], cand[r0:r0 + params["rescoreBlock"]]
                s = exact_scores(torch, qi, block[ci])
                a, b = q0 + r0, q0 + r0 + qi.shape[0]
                merged_s = torch.cat([best_s[a:b], s], dim=1)
                merged_r = torch.cat([best_r[a:b], ci + p0], dim=1)
                ms, mr = order_by_score_then_row(torch, merged_s, merged_r)
                best_s[a:b], best_r[a:b] = ms[:, :depth], mr[:, :depth]
        progress(min(n, p0 + params["passageBlock"]), n)
    return best_s.cpu().numpy(), best_r.cpu().numpy().astype(np.int32)


def main(argv):
    ap = argparse.ArgumentParser(prog="shard_search.py")
    for a in ("--params", "--queries", "--passages", "--out"):
        ap.add_argument(a, required=True)
    args = ap.parse_args(argv)
    try:
        import numpy as np  # noqa: PLC0415
        import torch  # noqa: PLC0415
    except ImportError as e:
        sys.stderr.write(f"error: {e}: {sys.executable} needs torch and numpy. Fix: use the training image or pip install torch numpy\n")
        return 3
    sys.path.insert(0, DPR)
    from device import pick_device  # noqa: PLC0415
    from errors import TrainingInputError  # noqa: PLC0415
    try:
        with open(args.params, encoding="utf-8") as f:
            params = {**DEFAULTS, **json.load(f)}
        device = pick_device("auto")
        torch.backends.cuda.matmul.allow_tf32 = False
        q_path, p_path = (os.path.join(d, "embeddings.npy") for d in (args.queries, args.passages))
        queries, passages = np.load(q_path), np.load(p_path, mmap_mode="r")
        for path, a in ((q_path, queries), (p_path, passages)):
            if a.dtype != np.float32 or a.ndim != 2:
                raise TrainingInputError(f"embeddings must be float32 [N, D], got {a.dtype} {list(a.shape)}", file=path, fix="rerun the encode step")
        if queries.shape[1] != passages.shape[1]:
            raise TrainingInputError(f"query embeddings have dimension {queries.shape[1]}, passages {passages.shape[1]}", file=p_path,
                                     fix="encode queries and passages with the same model")
        if not np.isfinite(queries).all():
            raise TrainingInputError("query embeddings hold NaN or infinity", file=q_path, fix="rerun the encode step")
        depth = int(params["depth"])
        t0 = time.perf_counter()
        scores, rows = search(torch, np, queries, passages, depth, params, device,
                              lambda done, total: (sys.stdout.write(f"PROGRESS {done} {total}\n"), sys.stdout.flush()))
        seconds = time.perf_counter() - t0
        os.makedirs(args.out, exist_ok=True)
        np.save(os.path.join(args.out, "scores.npy"), scores)
        np.save(os.path.join(args.out, "rows.npy"), rows)
        with open(os.path.join(args.passages, "meta.json"), encoding="utf-8") as f:
            shard = json.load(f)
        meta = {"format": "cspipe/shard-hits@1", "queries": int(queries.shape[0]), "passages": int(passages.shape[0]), "depth": depth,
                "k": int(params["k"]), "shard": shard.get("shard"), "shards": shard.get("shards"), "start": shard.get("start"), "end": shard.get("end")}
        with open(os.path.join(args.out, "meta.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(meta, indent=2) + "\n")
        name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
        log(f"{queries.shape[0]} queries x {passages.shape[0]} passages (dim {queries.shape[1]}) in {seconds:.2f} s on {name}: "
            f"{queries.shape[0] * passages.shape[0] / max(seconds, 1e-9) / 1e9:.2f} G scores/s; kernel: float32 matmul + top-{depth}, exact float64 rescoring")
        return 0
    except TrainingInputError as e:
        sys.stderr.write(f"error: {' '.join(str(e).split())}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
