#!/usr/bin/env python3
"""DPR extractive reader training (torch + numpy only).

    python3 steps/qa/dpr_reader/train_reader.py --config cfg.json --inputs DIR --out DIR
        [--init-from READER_DIR | --init-bert BERT_DIR] [--threads N]
    python3 steps/qa/dpr_reader/train_reader.py --selftest <name>   (reads JSON on stdin; tests)

Per step: questions of the batch, each with 1 passage holding the answer and
passages_per_question - 1 without, sampled from its candidates; loss = passage-selection
cross-entropy + the spans' marginal likelihood. After each epoch the dev questions are answered
(best passage by selection logit among eval_top_docs, best span, whole words) and scored by
EM and F1; the epoch with the best dev EM is kept (ties: the higher dev F1, then the earlier
epoch; with start_is_candidate the initial model is epoch 0, a candidate like the others). Outputs:
reader.safetensors, config.json, reader.onnx + parity/, metrics.jsonl, result.json.
stdout: `PROGRESS <done> <total>` and `EPOCH <json>` lines only. Exit 2 on bad input, 3 without torch.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "pycommon"), os.path.join(HERE, "..", "..", "training", "dpr")]


def _require_torch():
    try:
        import numpy  # noqa: F401, PLC0415
        import torch  # noqa: F401, PLC0415
    except ImportError as e:
        sys.stderr.write(f"error: {e.name} not importable by {sys.executable}. Fix: apt-get install -y python3-torch python3-numpy\n")
        sys.exit(3)


def main(argv):
    ap = argparse.ArgumentParser(prog="train_reader.py")
    for flag in ("--config", "--inputs", "--out", "--init-from", "--init-bert", "--selftest"):
        ap.add_argument(flag)
    ap.add_argument("--threads", type=int)
    args = ap.parse_args(argv)
    _require_torch()
    from errors import TrainingInputError  # noqa: PLC0415 - raised by the shared checkpoint reader
    from qa_config import QaInputError  # noqa: PLC0415
    try:
        if args.selftest:
            from reader_selftest import run_selftest  # noqa: PLC0415
            return run_selftest(args.selftest, sys.stdin.read())
        if not (args.config and args.inputs and args.out):
            raise QaInputError("--config, --inputs and --out are required")
        from reader_train_loop import run  # noqa: PLC0415
        run(args)
        return 0
    except (QaInputError, TrainingInputError) as e:
        sys.stderr.write(f"error: {' '.join(str(e).split())}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
