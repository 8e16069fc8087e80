#!/usr/bin/env python3
"""Fusion-in-Decoder on a compact T5 (torch + numpy only).

    python3 steps/qa/fid/fid.py train --config cfg.json --inputs DIR --out DIR [--init-from FID_DIR | --init-hf-t5 T5_DIR] [--threads N]
    python3 steps/qa/fid/fid.py predict --model FID_DIR --inputs EVAL_DIR --out predictions.jsonl [--threads N] [--batch N]
    python3 steps/qa/fid/fid.py pretrain-span --config cfg.json --inputs CORPUS_DIR --out DIR [--threads N]
    python3 steps/qa/fid/fid.py selftest <name>     (JSON on stdin; tests)

Training: teacher-forced token cross-entropy of the answer given the question's n_context
passages; after each epoch the dev questions are answered by greedy decoding and scored by
EM and F1; the epoch with the best dev EM is kept (ties: the higher dev F1, then the earlier
epoch; with start_is_candidate the initial model is epoch 0, a candidate like the others).
pretrain-span: T5's span-corruption objective on a tokenized collection from a random T5
(span_loop.py), the mini stand-in for t5-base's pre-training; its model starts `train`.
stdout: `PROGRESS <done> <total>` and `EPOCH <json>` lines only. Exit 2 on bad input, 3 without torch.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "pycommon"), os.path.join(HERE, "..", "..", "training", "dpr")]


def main(argv):
    import argparse  # noqa: PLC0415
    ap = argparse.ArgumentParser(prog="fid.py")
    ap.add_argument("mode", choices=["train", "predict", "pretrain-span", "selftest"])
    ap.add_argument("name", nargs="?")
    for flag in ("--config", "--inputs", "--out", "--init-from", "--init-hf-t5", "--model"):
        ap.add_argument(flag)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--params", help="predict: a JSON file {batch} (the pipeline step's params)")
    args = ap.parse_args(argv)
    if args.params:
        import json  # noqa: PLC0415
        with open(args.params, encoding="utf-8") as f:
            args.batch = int(json.load(f).get("batch", args.batch))
    try:
        import numpy  # noqa: F401, PLC0415
        import torch  # noqa: F401, PLC0415
    except ImportError as e:
        sys.stderr.write(f"error: {e.name} not importable by {sys.executable}. Fix: apt-get install -y python3-torch python3-numpy\n")
        return 3
    from errors import TrainingInputError  # noqa: PLC0415
    from qa_config import QaInputError  # noqa: PLC0415
    try:
        if args.mode == "selftest":
            from fid_selftest import run_selftest  # noqa: PLC0415
            return run_selftest(args.name, sys.stdin.read())
        if args.mode == "pretrain-span":
            if not (args.config and args.inputs and args.out):
                raise QaInputError("pretrain-span needs --config, --inputs and --out")
            from span_loop import pretrain_span  # noqa: PLC0415
            pretrain_span(args)
            return 0
        from fid_loop import predict, train  # noqa: PLC0415
        if args.mode == "train":
            if not (args.config and args.inputs and args.out):
                raise QaInputError("train needs --config, --inputs and --out")
            train(args)
        else:
            if not (args.model and args.inputs and args.out):
                raise QaInputError("predict needs --model, --inputs and --out")
            predict(args)
        return 0
    except (QaInputError, TrainingInputError) as e:
        sys.stderr.write(f"error: {' '.join(str(e).split())}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
