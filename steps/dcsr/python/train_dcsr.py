#!/usr/bin/env python3
"""DCSR bi-encoder training (torch + numpy only; Wu et al. 2022, as a cspipe variant).

    python3 steps/dcsr/python/train_dcsr.py --config cfg.json --inputs DIR --passages DIR --out DIR
        [--init-from DIR | --vocab vocab.txt] [--threads N]
    python3 steps/dcsr/python/train_dcsr.py --selftest <name>     (see dcsr_selftest.py)

Reuses the DPR trainer's modules (steps/training/dpr: the BERT, encoder init, optimiser,
checkpoints, ONNX export, vocabulary identity). stdout carries only `PROGRESS <done> <total>`,
`EPOCH <json>` (and `RESULT <json>` in self-tests); logs go to stderr; bad input exits 2 with
one line `error: <file>: field '<f>': <what> Fix: <how>`; 3 when torch/numpy are missing.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DPR = os.path.join(HERE, "..", "..", "training", "dpr")


def main(argv):
    ap = argparse.ArgumentParser(prog="train_dcsr.py", description="DCSR bi-encoder training")
    for flag in ("--config", "--inputs", "--passages", "--out", "--init-from", "--vocab", "--selftest"):
        ap.add_argument(flag)
    ap.add_argument("--threads", type=int)
    args = ap.parse_args(argv)
    try:
        import numpy  # noqa: F401, PLC0415
        import torch  # noqa: PLC0415
    except ImportError as e:
        sys.stderr.write(f"error: {e}. Fix: apt-get install -y python3-torch python3-numpy, or point CSPIPE_PYTHON at an interpreter that has them.\n")
        return 3
    sys.path[:0] = [HERE, os.path.abspath(DPR)]
    from errors import TrainingInputError  # noqa: PLC0415

    def log(msg):
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    def emit(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    try:
        if args.selftest:
            from dcsr_selftest import run_selftest  # noqa: PLC0415
            return run_selftest(args.selftest, sys.stdin.read(), emit)
        if not (args.config and args.inputs and args.passages and args.out):
            raise TrainingInputError("--config, --inputs, --passages and --out are required",
                                     fix="python3 steps/dcsr/python/train_dcsr.py --config cfg.json --inputs DIR --passages DIR --out DIR")
        from dcsr_config import load_config  # noqa: PLC0415
        from dcsr_inputs import Inputs  # noqa: PLC0415
        from dcsr_trainer import train  # noqa: PLC0415
        from vocab_identity import digest_of_vocab_file, training_vocab_digest  # noqa: PLC0415
        from device import pick_device  # noqa: PLC0415
        vocab_digest, vocab_size = digest_of_vocab_file(args.vocab) if args.vocab else (None, None)
        cfg = load_config(args.config, init_from=args.init_from, vocab_size=vocab_size)
        pick_device(cfg["device"])  # the trainers' one rule, before any input is read: a GPU-required step fails at once without CUDA
        vocab = {"size": vocab_size, "file": args.vocab,
                 "digest": training_vocab_digest(args.inputs, args.passages, (args.vocab, vocab_digest) if args.vocab else None, args.init_from)}
        threads = args.threads or cfg["threads"] or int(os.environ.get("CSPIPE_TORCH_THREADS", "1") or 1)
        torch.set_num_threads(max(1, threads))
        log(f"torch {torch.__version__}, {torch.get_num_threads()} CPU thread(s)")
        if cfg["epochs"] < 1:
            raise TrainingInputError("epochs must be >= 1 (DCSR has no export-only mode)", file=args.config, field="epochs")
        result = train(cfg, Inputs(args.inputs, args.passages), args.out, log, emit, vocab)
        log(f"done: best epoch {result['best_epoch']}, dev R@{cfg['recall_k']} {result['dev_recall_at_' + str(cfg['recall_k'])]:.4f}, {result['seconds']} s")
        return 0
    except TrainingInputError as e:
        sys.stderr.write(f"error: {' '.join(str(e).split())}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
