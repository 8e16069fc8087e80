"""torch side of bench/encode/main.ts: the same seeded tiny BERT as the ONNX model
(test/encoding/onnx/tiny_encoder.py), timed at its best. Prints one JSON line.
usage: torch_encode.py --ids ids.npy --batch 32 --threads 1 --mode eager|inference|jit [model args]
  eager      torch.no_grad()
  inference  torch.inference_mode()
  jit        torch.jit.trace + torch.jit.freeze (fused, no Python per op), under inference_mode
Threads: torch.set_num_threads(--threads); the parent sets OMP_NUM_THREADS and OPENBLAS_NUM_THREADS
to the same number (torch.set_num_threads alone leaves OpenBLAS's pool on every core)."""
import argparse
import json
import time

import torch

import tiny_encoder  # test/encoding/onnx/, on PYTHONPATH (bench/encode/main.ts)

p = argparse.ArgumentParser()
p.add_argument("--ids", required=True)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--threads", type=int, default=1)
p.add_argument("--mode", choices=["eager", "inference", "jit"], default="inference")
p.add_argument("--passes", type=int, default=2)
for name, default in [("vocab", 1000), ("hidden", 128), ("layers", 2), ("heads", 2), ("max-len", 512), ("seed", 0)]:
    p.add_argument(f"--{name}", type=int, default=default)
a = p.parse_args()
a.kind = "bert"
a.types = None
torch.set_num_threads(a.threads)
model = tiny_encoder.build(a)
ids, mask, types = tiny_encoder.inputs(a)
ctx = torch.no_grad if a.mode == "eager" else torch.inference_mode
with ctx():
    if a.mode == "jit":
        model = torch.jit.freeze(torch.jit.trace(model, (ids[: a.batch], mask[: a.batch], types[: a.batch])))
    for _ in range(3):  # warm-up (and the JIT's profiling runs)
        model(ids[: a.batch], mask[: a.batch], types[: a.batch])
    best = float("inf")
    for _ in range(a.passes):
        t0 = time.perf_counter()
        for s in range(0, ids.shape[0], a.batch):
            model(ids[s : s + a.batch], mask[s : s + a.batch], types[s : s + a.batch])
        best = min(best, time.perf_counter() - t0)
print(json.dumps({"seconds": best, "rows": int(ids.shape[0]), "seq_per_s": ids.shape[0] / best, "torch": torch.__version__}))
