"""DCSR bi-encoder training (torch + numpy only; Wu et al. 2022, as a cspipe variant).

    python3 steps dcsr.python.train_dcsr --config cfg.json --inputs DIR --passages DIR --out DIR
        [--init-from DIR | --vocab vocab.txt] [--threads N]
    python3 steps dcsr.python.train_dcsr --selftest <name>     (see dcsr_selftest.py)

A task of the training package (pytrain) on the DPR trainer's encoders, init and selection.
stdout carries only `PROGRESS <done> <total>`, `EPOCH <json>` (and `RESULT <json>` in self-tests);
logs go to stderr; bad input exits 2 with one line `error: <file>: field '<f>': <what> Fix: <how>`;
3 when torch/numpy are missing.
"""
import sys

from pytrain.errors import InputError
from pytrain.program import emit, log, require_modules, run_program
from pytrain.train_program import run_training, training_parser

MODULE = "dcsr.python.train_dcsr"


def main(argv):
    flags = ("--config", "--inputs", "--passages", "--out", "--init-from", "--vocab", "--selftest")
    args = training_parser(MODULE, flags, "DCSR bi-encoder training").parse_args(argv)
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
    from pytrain.vocab_identity import digest_of_vocab_file, training_vocab_digest  # noqa: PLC0415
    from training.dpr.config import load_config  # noqa: PLC0415
    vocab_digest, vocab_size = digest_of_vocab_file(args.vocab) if args.vocab else (None, None)
    cfg = load_config(args.config, init_from=args.init_from, vocab_size=vocab_size, schema=SCHEMA)
    k = cfg["recall_k"]

    def read_inputs():  # after setup_run: a GPU-required step fails at once, before any input is read
        vocab = {"size": vocab_size, "file": args.vocab,
                 "digest": training_vocab_digest(args.inputs, args.passages, (args.vocab, vocab_digest) if args.vocab else None, args.init_from)}
        if cfg["epochs"] < 1:
            raise InputError("epochs must be >= 1 (DCSR has no export-only mode)", file=args.config, field="epochs")
        return Inputs(args.inputs, args.passages), vocab

    return run_training(cfg, args.threads, MODULE, argv,
                        lambda iv, device, group: train(cfg, iv[0], args.out, device, log, emit, iv[1], group),
                        lambda result: f"dev R@{k} {result['dev_recall_at_' + str(k)]:.4f}", read_inputs)


if __name__ == "__main__":
    sys.exit(run_program(main, sys.argv[1:]))
