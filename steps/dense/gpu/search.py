"""One index shard searched in low precision on a GPU (or the same code on CPU), with a candidate
depth proven large enough that the exact float32 rescoring (steps/dense/rescore.ts) returns the
exact top k: the candidate generator of the `torch` dense backend (steps/dense/torch-search.ts).

    python3 steps dense.gpu.search --index index.faiss --queries embeddings.npy --k 100 --out DIR
        [--dtype auto|float16|bfloat16|float32] [--device auto|cpu|cuda] [--depth D] [--max-depth D]
        [--threads N] [--score-bytes B]

Scores are the low-precision matmul (float16 on CUDA when the vectors fit its range, else
bfloat16; bfloat16 on CPU, whose torch has no float16 matmul) and each query's top D by them
are its candidates. For each query the depth rule of bound.py is checked: with eps a rigorous
bound on |low-precision score - exact score|, l_D the D-th low-precision score and c_k the k-th
float64 rescored candidate score, l_D + 2 eps < c_k proves every passage outside the candidates
is outside the exact top k. A query where it fails is searched again at depth 2D (up to
--max-depth), then in float32 (TF32 off) doubling up to the whole shard: no unproven list leaves.

Writes DIR/rows.npy int32 (the candidates of every query, concatenated, any order),
offsets.npy int64 [nq + 1], threshold.npy float32 [nq] (l_D, exact: a low-precision or float32
value; -inf where every row is a candidate), eps.npy float32 [nq] (rounded up), report.json
(dtype, device, how many queries needed widening or float32). Logs on stderr, with the seconds.
"""
import argparse
import json
import sys
import time

from pytrain.errors import InputError
from pytrain.program import log, require_modules, run_program

FLAT_IP_HEADER = 45
FP16_SAFE = 60000.0


def read_flat_ip(path):
    """The vectors of a faiss IndexFlatIP file (steps/dense/flat-ip-format.ts) as a read-only memmap."""
    import numpy as np  # noqa: PLC0415
    with open(path, "rb") as f:
        head = f.read(FLAT_IP_HEADER)
    if len(head) < FLAT_IP_HEADER or head[:4] != b"IxFI":
        raise InputError(f"{path}: not a faiss IndexFlatIP file. Fix: rebuild it with build-flat-ip-index")
    dim = int.from_bytes(head[4:8], "little", signed=True)
    n = int.from_bytes(head[8:16], "little", signed=True)
    return np.memmap(path, dtype="<f4", mode="r", offset=FLAT_IP_HEADER, shape=(n, dim))


def accumulates_wide(torch, device, dtype):
    """The kernel sums in wider than `dtype`: 8192 ones sum to 8192 (exact in bf16 and fp16), where
    bfloat16 accumulators stall at 256 and float16 ones at 2048. bound.py assumes float32 sums."""
    ones = torch.ones(1, 8192, dtype=dtype, device=device)
    return float((ones @ ones.t()).float().item()) == 8192.0


def pick_dtype(torch, requested, device, max_abs, max_score):
    if requested != "auto":
        return requested
    if device.type == "cuda" and max_abs < FP16_SAFE and max_score < FP16_SAFE:
        return "float16"
    return "bfloat16"


class Shard:
    """The shard's vectors on the device, their norms, and a low-precision copy per dtype."""

    def __init__(self, torch, x, score_bytes):
        self.torch, self.x, self.n, self.dim = torch, x, x.shape[0], x.shape[1]
        self.score_bytes = score_bytes
        self.low = {}
        l2, l1, mx = 0.0, 0.0, 0.0
        for r0 in range(0, self.n, 65536):
            c = x[r0:r0 + 65536].double()
            l2 = max(l2, float(c.norm(dim=1).max()))
            l1 = max(l1, float(c.abs().sum(dim=1).max()))
            mx = max(mx, float(c.abs().max()))
        self.max_l2, self.max_l1, self.max_abs = l2 * (1 + 2.0 ** -40), l1 * (1 + 2.0 ** -40), mx

    def cast(self, dtype):
        if dtype not in self.low:
            self.low[dtype] = self.x if dtype == "float32" else self.x.to(getattr(self.torch, dtype))
        return self.low[dtype]

    def low_topk(self, q, dtype, depth):
        """Each query's top `depth` rows by low-precision score: (indices [nq, depth], l_D [nq] float64)."""
        torch = self.torch
        xl = self.cast(dtype)
        ql = q if dtype == "float32" else q.to(xl.dtype)
        qb = max(1, self.score_bytes // (self.n * xl.element_size()))
        idx, last = [], []
        for q0 in range(0, q.shape[0], qb):
            v, i = torch.topk(ql[q0:q0 + qb] @ xl.t(), depth, dim=1)
            idx.append(i)
            last.append(v[:, -1].double())
        return torch.cat(idx), torch.cat(last)

    def kth_exact(self, q, idx, k):
        """The k-th largest float64 score of each query's candidates."""
        torch = self.torch
        b = max(1, (self.score_bytes // 4) // (idx.shape[1] * self.dim * 8))
        out = []
        for q0 in range(0, q.shape[0], b):
            rows = self.x[idx[q0:q0 + b]].double()
            c = torch.bmm(rows, q[q0:q0 + b].double().unsqueeze(2)).squeeze(2)
            out.append(torch.topk(c, k, dim=1).values[:, -1])
        return torch.cat(out)


def search(torch, shard, q, k, dtype, depth0, max_depth):
    """Per query: its candidate rows (a CPU int tensor), l_D (or -inf), eps; and the statistics."""
    from dense.gpu.bound import query_eps, proven  # noqa: PLC0415
    nq, n = q.shape[0], shard.n
    k = min(k, n)
    qd = q.double()
    q_l2 = [float(v) * (1 + 2.0 ** -40) for v in qd.norm(dim=1).cpu()]
    q_l1 = [float(v) * (1 + 2.0 ** -40) for v in qd.abs().sum(dim=1).cpu()]
    rows, thr, eps = [None] * nq, [float("-inf")] * nq, [0.0] * nq
    stats = {"widened": 0, "float32": 0, "allRows": 0, "depths": {}}
    pending = list(range(nq))
    levels = [dtype] + ([] if dtype == "float32" else ["float32"])
    for li, dt in enumerate(levels):
        depth, cap = max(depth0, k), (n if dt == "float32" else max(max_depth, depth0))
        if li > 0 and pending:
            stats["float32"] += len(pending)
        while pending:
            d = min(depth, n)
            sel = torch.tensor(pending, device=q.device)
            e = query_eps(shard.dim, dt, True, shard.max_l2, shard.max_l1, [q_l2[i] for i in pending], [q_l1[i] for i in pending])
            if d == n:
                every = torch.arange(n, dtype=torch.int32)
                for j, i in enumerate(pending):
                    rows[i], thr[i], eps[i] = every, float("-inf"), e[j]
                stats["allRows"] += len(pending)
                stats["depths"][str(d)] = stats["depths"].get(str(d), 0) + len(pending)
                pending = []
                break
            idx, l_d = shard.low_topk(q[sel], dt, d)
            c_k = shard.kth_exact(q[sel], idx, k).cpu().tolist()
            l_d, idx = l_d.cpu().tolist(), idx.to(torch.int32).cpu()
            still = []
            for j, i in enumerate(pending):
                if proven(l_d[j], c_k[j], e[j]):
                    rows[i], thr[i], eps[i] = idx[j], l_d[j], e[j]
                    stats["depths"][str(d)] = stats["depths"].get(str(d), 0) + 1
                else:
                    still.append(i)
            if still and li == 0 and d == max(depth0, k):
                stats["widened"] += len(still)
            pending = still
            if d >= cap:
                break
            depth *= 2
    return rows, thr, eps, stats


def setup(torch, device_name, threads):
    device = torch.device("cuda" if device_name == "cuda" or (device_name == "auto" and torch.cuda.is_available()) else "cpu")
    if device.type == "cpu":
        torch.set_num_threads(threads)
    # bound.py assumes float32 products and sums: no TF32, no reduced-precision split-K reductions.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for flag in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
        try:
            setattr(torch.backends.cuda.matmul, flag, False)
        except (AssertionError, AttributeError):  # older torch: no such flag (nor such reductions)
            pass
    return device


def write_outputs(np, out, rows, thr, eps, report):
    import os  # noqa: PLC0415
    os.makedirs(out, exist_ok=True)
    lens = [len(r) for r in rows]
    np.save(f"{out}/offsets.npy", np.concatenate([[0], np.cumsum(lens)]).astype(np.int64))
    np.save(f"{out}/rows.npy", np.concatenate([r.numpy() for r in rows]).astype(np.int32) if rows else np.zeros(0, np.int32))
    np.save(f"{out}/threshold.npy", np.array(thr, dtype=np.float32))  # exact: each is a float32 value or -inf
    e = np.array(eps, dtype=np.float32)
    np.save(f"{out}/eps.npy", np.where(e.astype(np.float64) < np.array(eps), np.nextafter(e, np.float32(np.inf)), e))
    with open(f"{out}/report.json", "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")


def main(argv):
    ap = argparse.ArgumentParser(prog="dense.gpu.search")
    for a in ("--index", "--queries", "--out"):
        ap.add_argument(a, required=True)
    ap.add_argument("--k", type=int, required=True)
    ap.add_argument("--dtype", choices=["auto", "float16", "bfloat16", "float32"], default="auto")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    ap.add_argument("--depth", type=int, help="first candidate depth (default 2k)")
    ap.add_argument("--max-depth", type=int, help="widest low-precision depth before float32 (default 64k)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--score-bytes", type=int, default=1 << 30, help="memory for one batch of scores")
    args = ap.parse_args(argv)
    require_modules("numpy", "torch")
    import numpy as np  # noqa: PLC0415
    import torch  # noqa: PLC0415
    if args.k <= 0:
        raise InputError(f"--k must be positive, got {args.k}")
    device = setup(torch, args.device, args.threads)
    t0 = time.perf_counter()
    xm = read_flat_ip(args.index)
    qn = np.load(args.queries)
    if qn.dtype != np.float32 or qn.ndim != 2 or qn.shape[1] != xm.shape[1]:
        raise InputError(f"{args.queries}: float32 [nq, {xm.shape[1]}] expected, got {qn.dtype} {list(qn.shape)}. Fix: encode queries and passages with the same model")
    shard = Shard(torch, torch.from_numpy(np.array(xm)).to(device), args.score_bytes)
    q = torch.from_numpy(qn).to(device)
    q_max = float(q.double().norm(dim=1).max()) if q.shape[0] else 0.0
    dtype = pick_dtype(torch, args.dtype, device, max(shard.max_abs, float(q.abs().max()) if q.shape[0] else 0.0), shard.max_l2 * q_max)
    if dtype != "float32" and not accumulates_wide(torch, device, getattr(torch, dtype)):
        log(f"{dtype} matmul on {device} does not sum in float32: searching in float32")
        dtype = "float32"
    load_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    depth0 = args.depth or 2 * args.k
    rows, thr, eps, stats = search(torch, shard, q, args.k, dtype, depth0, args.max_depth or 64 * 1024)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    search_s = time.perf_counter() - t1
    # What was computed, not how long it took: the seconds differ between two runs of one key (log only).
    report = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu", "torch": torch.__version__,
              "dtype": dtype, "queries": int(q.shape[0]), "rows": shard.n, "dim": shard.dim, "k": args.k, "depth": depth0, **stats}
    write_outputs(np, args.out, rows, thr, eps, report)
    log(f"{report['queries']} queries x {shard.n} rows in {dtype} on {report['device']}: depth {depth0}, "
        f"{stats['widened']} widened, {stats['float32']} in float32, {search_s:.3f} s (load {load_s:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(run_program(main, sys.argv[1:]))
