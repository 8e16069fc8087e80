"""DPR extractive reader training (torch + numpy only).

    python3 steps qa.dpr_reader.train_reader --config cfg.json --inputs DIR --out DIR
        [--init-from READER_DIR | --init-bert BERT_DIR] [--threads N]
    python3 steps qa.dpr_reader.train_reader --selftest <name>   (reads JSON on stdin; tests)

A task of the training package (pytrain; reader_trainer.py): after each epoch the dev questions
are answered (best passage by selection logit among eval_top_docs, best span, whole words) and
scored by EM and F1; the epoch with the best dev EM is kept (ties: the higher dev F1, then the
earlier epoch; with start_is_candidate the initial model is epoch 0, a candidate like the others).
Outputs: reader.safetensors, config.json, reader.onnx + parity/, dev_predictions.json,
metrics.jsonl, result.json. stdout: `PROGRESS <done> <total>` and `EPOCH <json>` lines only.
Exit 2 on bad input, 3 without torch.
"""
import sys

from pytrain.errors import InputError
from pytrain.program import emit, log, require_modules, run_program
from pytrain.train_program import run_training, training_parser

MODULE = "qa.dpr_reader.train_reader"


def main(argv):
    args = training_parser(MODULE, ("--config", "--inputs", "--out", "--init-from", "--init-bert", "--selftest")).parse_args(argv)
    require_modules("numpy", "torch")
    if args.selftest:
        from pytrain.selftest import run_selftest  # noqa: PLC0415 - after the availability check
        from qa.dpr_reader.reader_selftest import TESTS  # noqa: PLC0415
        return run_selftest(TESTS, args.selftest, sys.stdin.read(), emit)
    if not (args.config and args.inputs and args.out):
        raise InputError("--config, --inputs and --out are required")
    from pytrain.config import load_config  # noqa: PLC0415
    from qa.dpr_reader.config_schema import SCHEMA  # noqa: PLC0415
    from qa.dpr_reader.data import ReaderInputs  # noqa: PLC0415
    from qa.dpr_reader.reader_trainer import train  # noqa: PLC0415
    from qa.reading import dev_em_summary, init_flag  # noqa: PLC0415
    cfg = load_config(args.config, SCHEMA, *init_flag(args.init_from, args.init_bert, "--init-bert", "bert"))
    return run_training(cfg, args.threads, MODULE, argv,
                        lambda inp, device, group: train(cfg, inp, args.out, device, log, emit, group),
                        dev_em_summary, lambda: ReaderInputs(args.inputs))


if __name__ == "__main__":
    sys.exit(run_program(main, sys.argv[1:]))
