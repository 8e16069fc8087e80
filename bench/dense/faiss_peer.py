"""Python faiss peer for bench/dense/search.ts: IndexFlatIP add + search timings as JSON.
usage: faiss_peer.py corpus.npy queries.npy k"""
import json
import sys
import time

import faiss
import numpy as np

corpus = np.load(sys.argv[1])
queries = np.load(sys.argv[2])
k = int(sys.argv[3])
t0 = time.perf_counter()
index = faiss.IndexFlatIP(corpus.shape[1])
index.add(corpus)
t1 = time.perf_counter()
scores, rows = index.search(queries, k)
t2 = time.perf_counter()
print(json.dumps({"add_s": t1 - t0, "search_s": t2 - t1, "threads": faiss.omp_get_max_threads(), "faiss": faiss.__version__,
                  "top1": rows[:, 0].tolist()}))
