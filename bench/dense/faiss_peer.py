"""Python side of bench/dense/main.ts, one JSON line.

usage: faiss_peer.py corpus.npy queries.npy k repeats [--gemm]

  - Python FAISS (Debian python3-faiss): IndexFlatIP add, then `repeats` searches of all queries
    in one call. Threads come from the environment (OMP_NUM_THREADS, OMP_WAIT_POLICY), as for any
    faiss user.
  - The machine's float32 matrix-product rate (numpy/OpenBLAS, 2048^3, best of 3): wall GFLOP/s and
    GFLOP per CPU-second (the steadier figure on a shared machine).
  - --gemm: the same-shape product alone, queries x corpus^T in corpus blocks of 16384 rows with no
    top-k: the cost of the multiply-adds an exact flat search cannot avoid, on this BLAS.
"""
import json
import sys
import time

import faiss
import numpy as np

corpus = np.load(sys.argv[1])
queries = np.load(sys.argv[2])
k = int(sys.argv[3])
repeats = int(sys.argv[4])
gemm = "--gemm" in sys.argv[5:]


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


a = np.random.default_rng(0).random((2048, 2048), dtype=np.float32)
peak_wall, peak_cpu = 0.0, 0.0
for _ in range(3):
    _, w, c = timed(lambda: a @ a)
    peak_wall = max(peak_wall, 2 * 2048**3 / w)
    peak_cpu = max(peak_cpu, 2 * 2048**3 / max(c, 1e-9))

out = {"faiss": faiss.__version__, "threads": faiss.omp_get_max_threads()}
if gemm:
    def product():
        for r0 in range(0, corpus.shape[0], 16384):
            queries @ corpus[r0 : r0 + 16384].T
    _, w, c = timed(product)
    out["gemmSeconds"], out["gemmCpuSeconds"] = w, c

index = faiss.IndexFlatIP(corpus.shape[1])
_, add_s, add_cpu = timed(lambda: index.add(corpus))
searches = []
for _ in range(repeats):
    (scores, rows), s, c = timed(lambda: index.search(queries, k))
    searches.append({"seconds": s, "cpuSeconds": c})
out.update({"addSeconds": add_s, "addCpuSeconds": add_cpu, "searches": searches,
            "sgemmGflops": peak_wall / 1e9, "sgemmGflopsPerCpuSecond": peak_cpu / 1e9, "rows": rows[:20].tolist()})
print(json.dumps(out))
