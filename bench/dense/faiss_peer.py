"""Python faiss peer for bench/dense/main.ts: IndexFlatIP add + search (all queries in one call) as JSON.
usage: faiss_peer.py corpus.npy queries.npy k repeats
Threads come from the environment (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS), as for any faiss user.
Also reports numpy's float32 matrix product rate (2048^3, OpenBLAS): the practical fp32 peak."""
import json
import sys
import time

import faiss
import numpy as np

corpus = np.load(sys.argv[1])
queries = np.load(sys.argv[2])
k = int(sys.argv[3])
repeats = int(sys.argv[4])


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


a = np.random.default_rng(0).random((2048, 2048), dtype=np.float32)
peak = max(2 * 2048**3 / timed(lambda: a @ a)[1] for _ in range(3))

index, add_s, add_cpu = timed(lambda: (lambda ix: (ix.add(corpus), ix)[1])(faiss.IndexFlatIP(corpus.shape[1])))
searches = []
for _ in range(repeats):
    (scores, rows), s, c = timed(lambda: index.search(queries, k))
    searches.append({"seconds": s, "cpuSeconds": c})
print(json.dumps({"faiss": faiss.__version__, "threads": faiss.omp_get_max_threads(), "addSeconds": add_s, "addCpuSeconds": add_cpu,
                  "searches": searches, "sgemmGflops": peak / 1e9, "rows": rows[:20].tolist()}))
