"""Encoding token rows with a trained DPR encoder in torch, on a GPU (the real collections'
path; the ONNX path in onnxruntime-node stays for the mini benchmark and CPU users).

    python3 steps encoding.gpu.encode --role passages|queries --params params.json --model DIR --tokens DIR --out DIR [--threads N]

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
import sys

from pytrain.program import emit, log, require_modules, run_program


def main(argv):
    ap = argparse.ArgumentParser(prog="encoding.gpu.encode")
    for a in ("--role", "--params", "--model", "--tokens", "--out"):
        ap.add_argument(a, required=True)
    ap.add_argument("--threads", type=int)
    args = ap.parse_args(argv)
    require_modules("numpy", "torch", fix="use the training image or pip install torch numpy")
    from encoding.gpu.encoder_run import run  # noqa: PLC0415 - after the availability check
    from pytrain.run import setup_run  # noqa: PLC0415
    device = setup_run({"device": "auto"}, args.threads, log=log)  # a GPU-required step fails here without CUDA
    with open(args.params, encoding="utf-8") as f:
        params = json.load(f)
    run(args.role, params, args.model, args.tokens, args.out, device, log, emit)
    return 0


if __name__ == "__main__":
    sys.exit(run_program(main, sys.argv[1:]))
