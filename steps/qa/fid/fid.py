"""Fusion-in-Decoder on a compact T5 (torch + numpy only).

    python3 steps qa.fid.fid train --config cfg.json --inputs DIR --out DIR [--init-from FID_DIR | --init-hf-t5 T5_DIR] [--threads N]
    python3 steps qa.fid.fid predict --model FID_DIR --inputs EVAL_DIR --out predictions.jsonl [--threads N] [--batch N]
    python3 steps qa.fid.fid pretrain-span --config cfg.json --inputs CORPUS_DIR --out DIR [--threads N]
    python3 steps qa.fid.fid selftest <name>     (JSON on stdin; tests)

Training (fid_trainer.py, a task of the training package): teacher-forced token cross-entropy of
the answer given the question's n_context passages; after each epoch the dev questions are
answered by greedy decoding and scored by EM and F1; the epoch with the best dev EM is kept (ties:
the higher dev F1, then the earlier epoch; with start_is_candidate the initial model is epoch 0, a
candidate like the others). pretrain-span: T5's span-corruption objective on a tokenized
collection from a random T5 (span_trainer.py), the mini stand-in for t5-base's pre-training; its
model starts `train`. stdout: `PROGRESS <done> <total>` and `EPOCH <json>` lines only. Exit 2 on
bad input, 3 without torch.
"""
import json
import sys

from pytrain.errors import InputError
from pytrain.program import emit, log, require_modules, run_program
from pytrain.train_program import run_training, training_parser

MODULE = "qa.fid.fid"


def parse(argv):
    ap = training_parser(MODULE, ("--config", "--inputs", "--out", "--init-from", "--init-hf-t5", "--model"))
    ap.add_argument("mode", choices=["train", "predict", "pretrain-span", "selftest"])
    ap.add_argument("name", nargs="?")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--params", help="predict: a JSON file {batch} (the pipeline step's params)")
    args = ap.parse_args(argv)
    if args.params:
        with open(args.params, encoding="utf-8") as f:
            args.batch = int(json.load(f).get("batch", args.batch))
    return args


def _train(args, argv, schema, init, run):
    """train and pretrain-span: the config, then the training programs' tail (pytrain/train_program.py)
    around the task's `run`; the trainers read their inputs themselves."""
    from pytrain.config import load_config  # noqa: PLC0415
    from qa.reading import dev_em_summary  # noqa: PLC0415
    cfg = load_config(args.config, schema, *init)
    return run_training(cfg, args.threads, MODULE, argv, lambda _inputs, device, group: run(cfg, device, group), dev_em_summary)


def main(argv):
    args = parse(argv)
    require_modules("numpy", "torch")
    if args.mode == "selftest":
        from pytrain.selftest import run_selftest  # noqa: PLC0415 - after the availability check
        from qa.fid.fid_selftest import TESTS  # noqa: PLC0415
        return run_selftest(TESTS, args.name, sys.stdin.read(), emit)
    if args.mode == "predict":
        if not (args.model and args.inputs and args.out):
            raise InputError("predict needs --model, --inputs and --out")
        from pytrain.run import setup_run  # noqa: PLC0415
        from qa.fid.fid_trainer import predict  # noqa: PLC0415
        setup_run({"device": "cpu"}, args.threads)
        predict(args.model, args.inputs, args.out, args.batch, log)
        return 0
    if not (args.config and args.inputs and args.out):
        raise InputError(f"{args.mode} needs --config, --inputs and --out")
    if args.mode == "pretrain-span":
        from qa.fid.span_config_schema import SCHEMA  # noqa: PLC0415
        from qa.fid.span_trainer import pretrain_span  # noqa: PLC0415
        return _train(args, argv, SCHEMA, (None, None), lambda cfg, device, group: pretrain_span(cfg, args.inputs, args.config, args.out, device, log, emit, group))
    from qa.fid.config_schema import SCHEMA  # noqa: PLC0415
    from qa.fid.fid_trainer import train  # noqa: PLC0415
    from qa.reading import init_flag  # noqa: PLC0415
    return _train(args, argv, SCHEMA, init_flag(args.init_from, args.init_hf_t5, "--init-hf-t5", "hf-t5"),
                  lambda cfg, device, group: train(cfg, args.inputs, args.out, device, log, emit, group))


if __name__ == "__main__":
    sys.exit(run_program(main, sys.argv[1:]))
