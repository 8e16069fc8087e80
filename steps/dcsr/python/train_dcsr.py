"""DCSR bi-encoder training (torch + numpy only; Wu et al. 2022, as a cspipe variant).

    python3 steps dcsr.python.train_dcsr --config cfg.json --inputs DIR --passages DIR --out DIR
        [--init-from DIR | --vocab vocab.txt] [--threads N]
    python3 steps dcsr.python.train_dcsr --selftest <name>     (see dcsr_selftest.py)

A task of the training package (pytrain) on the DPR trainer's encoders, init and selection.
stdout carries only `PROGRESS <done> <total>`, `EPOCH <json>` (and `RESULT <json>` in self-tests);
logs go to stderr; bad input exits 2 with one line `error: <file>: field '<f>': <what> Fix: <how>`;
3 when torch/numpy are missing.
"""
import argparse
import sys

from pytrain.errors import InputError
from pytrain.program import emit, log, require_modules, run_program

MODULE = "dcsr.python.train_dcsr"


def main(argv):
    ap = argparse.ArgumentParser(prog=MODULE, description="DCSR bi-encoder training")
    for flag in ("--config", "--inputs", "--passages", "--out", "--init-from", "--vocab", "--selftest"):
        ap.add_argument(flag)
    ap.add_argument("--threads", type=int)
    args = ap.parse_args(argv)
    require_modules("numpy", "torch")
    if args.selftest:
        from dcsr.python.dcsr_selftest import TESTS  # noqa: PLC0415 - after the availability check
        from pytrain.selftest import run_selftest  # noqa: PLC0415
        return run_selftest(TESTS, args.selftest, sys.stdin.read(), emit)
    if not (args.config and args.inputs and args.passages and args.out):
        raise InputError("--config, --inputs, --passages and --out are required",
                         fix="python3 steps dcsr.python.train_dcsr --config cfg.json --inputs DIR --passages DIR --out DIR")
    from dcsr.python.config_schema import SCHEMA  # noqa: PLC0415
    from dcsr.python.dcsr_inputs import Inputs  # noqa: PLC0415
    from dcsr.python.dcsr_trainer import train  # noqa: PLC0415
    from pytrain import distributed  # noqa: PLC0415
    from pytrain.run import setup_run  # noqa: PLC0415
    from pytrain.vocab_identity import digest_of_vocab_file, training_vocab_digest  # noqa: PLC0415
    from training.dpr.config import load_config  # noqa: PLC0415
    vocab_digest, vocab_size = digest_of_vocab_file(args.vocab) if args.vocab else (None, None)
    cfg = load_config(args.config, init_from=args.init_from, vocab_size=vocab_size, schema=SCHEMA)
    device = setup_run(cfg, args.threads, log=log)  # a GPU-required step fails here, at once, before any input is read
    vocab = {"size": vocab_size, "file": args.vocab,
             "digest": training_vocab_digest(args.inputs, args.passages, (args.vocab, vocab_digest) if args.vocab else None, args.init_from)}
    if cfg["epochs"] < 1:
        raise InputError("epochs must be >= 1 (DCSR has no export-only mode)", file=args.config, field="epochs")
    inputs = Inputs(args.inputs, args.passages)
    group, status = distributed.start(cfg, MODULE, argv, log)
    if group is None:
        return status
    try:
        result = train(cfg, inputs, args.out, device, log, emit, vocab, group)
    finally:
        group.close()
    if result is not None:
        log(f"done: best epoch {result['best_epoch']}, dev R@{cfg['recall_k']} {result['dev_recall_at_' + str(cfg['recall_k'])]:.4f}, {result['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(run_program(main, sys.argv[1:]))
