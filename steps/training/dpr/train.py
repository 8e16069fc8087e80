"""DPR bi-encoder training (torch + numpy only).

    python3 steps training.dpr.train --config cfg.json --inputs DIR --out DIR [--threads N]
        [--passages DIR] [--init-from DIR | --init-hf-dpr DIR] [--vocab vocab.txt]
    python3 steps training.dpr.train --config cfg.json --out DIR --init-hf-dpr DIR   (epochs 0: export only)
    python3 steps training.dpr.train --selftest <name>   (see selftest.py)

With `world_size` > 1 (or several visible GPUs and world_size null) the program re-runs itself as
one process per device (pytrain/distributed.py); rank 0 prints and writes.

stdout carries only machine-readable lines: `PROGRESS <done> <total>` and `EPOCH <json>`;
logs go to stderr. Bad input exits 2 with one line `error: <file>: <what>. Fix: <how>`.
The input contract is in steps/training/README.md.
"""
import argparse
import sys

from pytrain.errors import InputError
from pytrain.program import emit, log, require_modules, run_program
from pytrain.train_program import run_training

MODULE = "training.dpr.train"


def parse(argv):
    ap = argparse.ArgumentParser(prog=MODULE, description="DPR bi-encoder training")
    ap.add_argument("--config")
    ap.add_argument("--inputs")
    ap.add_argument("--out")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--passages", help="tokenized collection dir (ids.npy, type_ids.npy) instead of <inputs>/passage_ids.npy")
    ap.add_argument("--init-from", help="start from the encoders of an earlier run's --out dir (replaces the config's init)")
    ap.add_argument("--init-hf-dpr", help="start from an HF DPR checkpoint dir holding question_encoder/ and ctx_encoder/ "
                    "(pytorch_model.bin + config.json each; replaces the config's init)")
    ap.add_argument("--vocab", help="the tokens' vocab.txt: its size sets a random init's vocab_size when bert_config has "
                    "none, its sha256 is recorded in config.json (cspipe.vocab_digest)")
    ap.add_argument("--selftest")
    return ap.parse_args(argv)


def main(argv):
    args = parse(argv)
    require_modules("numpy", "torch")
    if args.selftest:
        from pytrain.selftest import run_selftest  # noqa: PLC0415 - after the availability check
        from training.dpr.selftest import SELFTESTS  # noqa: PLC0415
        return run_selftest(SELFTESTS, args.selftest, sys.stdin.read(), emit)
    if not (args.config and args.out):
        raise InputError("--config and --out are required (and --inputs unless epochs is 0)",
                         fix="python3 steps training.dpr.train --config cfg.json --inputs DIR --out DIR")
    from pytrain.vocab_identity import digest_of_vocab_file, training_vocab_digest  # noqa: PLC0415
    from training.dpr.config import load_config  # noqa: PLC0415
    from training.dpr.inputs import load_inputs  # noqa: PLC0415
    from training.dpr.trainer import recall_key, train  # noqa: PLC0415
    vocab_digest, vocab_size = digest_of_vocab_file(args.vocab) if args.vocab else (None, None)
    # Every input that records its vocabulary must name the same one (exit 2 otherwise).
    vocab = {"size": vocab_size, "file": args.vocab,
             "digest": training_vocab_digest(args.inputs, args.passages, (args.vocab, vocab_digest) if args.vocab else None, args.init_from)}
    cfg = load_config(args.config, init_from=args.init_from, vocab_size=vocab_size, init_hf_dpr=args.init_hf_dpr)
    if not args.inputs and (cfg["epochs"] > 0 or args.passages):
        raise InputError("--inputs is required when epochs > 0 or --passages is given", file=args.config, field="epochs",
                         fix="pass --inputs DIR, or set epochs to 0 to export the initial encoders only")

    def summary(result):
        recall = result[recall_key(cfg)]
        return f"dev R@{cfg['recall_k']} {'n/a' if recall is None else format(recall, '.4f')}"

    return run_training(cfg, args.threads, MODULE, argv,
                        lambda inputs, device, group: train(cfg, inputs, args.out, device, log, emit, vocab, group),
                        summary, lambda: load_inputs(args.inputs, args.passages) if args.inputs else None,
                        training=cfg["epochs"] > 0)


if __name__ == "__main__":
    sys.exit(run_program(main, sys.argv[1:]))
