#!/usr/bin/env python3
"""Encoding token rows with a trained DPR encoder in torch, on a GPU (the real collections'
path; the ONNX path in onnxruntime-node stays for the mini benchmark and CPU users).

    python3 encode.py --role passages|queries --params params.json --model DIR --tokens DIR --out DIR

params.json: {"shard", "shards" (passages), "batchSize", "maxTokens", "dtype": "fp16"|"bf16"|"fp32",
"sortByLength", "fixtureTolerance", "minCosine"}. Writes the CPU path's embedding directory
(steps/dense/steps.ts): embeddings.npy float32 [rows, dim] in row order, pids.txt (passages) or
qids.txt + empty_qids.txt (queries), meta.json.

Before encoding, the model's parity fixture (parity/<role>_encoder/, torch's float32 output at
export) is run on this device in float32 (the weights loaded are the exported ones) and in the
encoding dtype (half precision stays close: every row's cosine with float32 >= minCosine).
Rows are encoded longest first in batches of at most batchSize rows and maxTokens padded
tokens (each batch trimmed to its longest row), and written back in row order into a
memory-mapped output: memory stays one batch, whatever the shard size.

stdout: `PROGRESS <done> <total>` lines; logs on stderr; bad input exits 2 (`error: ...`).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DPR = os.path.join(HERE, "..", "..", "training", "dpr")


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def main(argv):
    ap = argparse.ArgumentParser(prog="encode.py")
    for a in ("--role", "--params", "--model", "--tokens", "--out"):
        ap.add_argument(a, required=True)
    args = ap.parse_args(argv)
    try:
        import numpy  # noqa: F401, PLC0415
        import torch  # noqa: F401, PLC0415
    except ImportError as e:
        sys.stderr.write(f"error: {e}: {sys.executable} needs torch and numpy. Fix: use the training image or pip install torch numpy\n")
        return 3
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.abspath(DPR))
    from errors import TrainingInputError  # noqa: PLC0415
    try:
        from encoder_run import run  # noqa: PLC0415
        with open(args.params, encoding="utf-8") as f:
            params = json.load(f)
        run(args.role, params, args.model, args.tokens, args.out, log, lambda line: (sys.stdout.write(line + "\n"), sys.stdout.flush()))
        return 0
    except TrainingInputError as e:
        sys.stderr.write(f"error: {' '.join(str(e).split())}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
