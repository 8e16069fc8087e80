#!/usr/bin/env python3
"""DPR bi-encoder training (torch + numpy only).

    python3 steps/training/dpr/train.py --config cfg.json --inputs DIR --out DIR [--threads N]
        [--passages DIR] [--init-from DIR | --init-hf-dpr DIR] [--vocab vocab.txt]
    python3 steps/training/dpr/train.py --config cfg.json --out DIR --init-hf-dpr DIR   (epochs 0: export only)
    python3 steps/training/dpr/train.py --selftest <name>   (see selftest.py)

With `world_size` > 1 (or several visible GPUs and world_size null) the program re-runs itself
under torchrun, one process per device (distributed.py); rank 0 prints and writes.

stdout carries only machine-readable lines: `PROGRESS <done> <total>` and `EPOCH <json>`;
logs go to stderr. Bad input exits 2 with one line `error: <file>: <what>. Fix: <how>`.
The input contract is in steps/training/README.md.
"""
import argparse
import os
import sys


def _require_torch():
    missing = []
    for mod in ("numpy", "torch"):
        try:
            __import__(mod)
        except ImportError:
            missing.append(mod)
    if missing:
        sys.stderr.write(f"error: Python module(s) {', '.join(missing)} not importable by {sys.executable}. "
                         "Fix: apt-get install -y python3-torch python3-numpy (Debian), or pip install torch numpy; "
                         "or point CSPIPE_PYTHON at an interpreter that has them.\n")
        sys.exit(3)


def _threads(flag, cfg_threads):
    """CPU threads: --threads, else config `threads`, else env CSPIPE_TORCH_THREADS, else 1.

    1 is the default because on the 2-core reference machine 1 thread trained the tiny
    model faster than 2 (bench/training/train-steps.ts measures it).
    """
    if flag is not None:
        return flag
    if cfg_threads is not None:
        return cfg_threads
    env = os.environ.get("CSPIPE_TORCH_THREADS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            pass
    return 1


def main(argv):
    ap = argparse.ArgumentParser(prog="train.py", description="DPR bi-encoder training")
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
    args = ap.parse_args(argv)
    _require_torch()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch  # noqa: PLC0415 - after the availability check

    from errors import TrainingInputError  # noqa: PLC0415

    def log(msg):
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    def emit(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    try:
        if args.selftest:
            from selftest import run_selftest  # noqa: PLC0415
            return run_selftest(args.selftest, sys.stdin.read(), emit)
        if not (args.config and args.out):
            raise TrainingInputError("--config and --out are required (and --inputs unless epochs is 0)",
                                     fix="python3 steps/training/dpr/train.py --config cfg.json --inputs DIR --out DIR")
        from config import load_config  # noqa: PLC0415
        from inputs import load_inputs  # noqa: PLC0415
        from trainer import train  # noqa: PLC0415
        from vocab_identity import digest_of_vocab_file, training_vocab_digest  # noqa: PLC0415
        vocab_digest, vocab_size = digest_of_vocab_file(args.vocab) if args.vocab else (None, None)
        # Every input that records its vocabulary must name the same one (exit 2 otherwise).
        vocab = {"size": vocab_size, "file": args.vocab,
                 "digest": training_vocab_digest(args.inputs, args.passages,
                                                 (args.vocab, vocab_digest) if args.vocab else None, args.init_from)}
        cfg = load_config(args.config, init_from=args.init_from, vocab_size=vocab_size, init_hf_dpr=args.init_hf_dpr)
        if not args.inputs and (cfg["epochs"] > 0 or args.passages):
            raise TrainingInputError("--inputs is required when epochs > 0 or --passages is given",
                                     file=args.config, field="epochs",
                                     fix="pass --inputs DIR, or set epochs to 0 to export the initial encoders only")
        threads = _threads(args.threads, cfg["threads"])
        torch.set_num_threads(threads)
        log(f"torch {torch.__version__}, {threads} CPU thread(s)")
        inputs = load_inputs(args.inputs, args.passages) if args.inputs else None
        from device import pick_device  # noqa: PLC0415
        import distributed  # noqa: PLC0415
        group = None
        if cfg["epochs"] > 0 and distributed.in_worker():
            group = distributed.Group(pick_device(cfg["device"], int(os.environ.get("LOCAL_RANK", "0"))).type)
        elif cfg["epochs"] > 0:
            device = pick_device(cfg["device"])  # a GPU-required step without CUDA fails here, at once
            world = distributed.resolve_world_size(cfg["world_size"], torch.cuda.device_count() if device.type == "cuda" else 0)
            if world > 1:
                return distributed.launch(world, os.path.abspath(__file__), argv, log)
        try:
            result = train(cfg, inputs, args.out, log, emit, vocab, group)
        finally:
            if group is not None:
                group.close()
        if result is None:  # a data-parallel worker other than rank 0
            return 0
        recall = result["dev_recall_at_" + str(cfg["recall_k"])]
        log(f"done: best epoch {result['best_epoch']}, dev R@{cfg['recall_k']} "
            f"{'n/a' if recall is None else format(recall, '.4f')}, {result['seconds']} s")
        return 0
    except TrainingInputError as e:
        sys.stderr.write(f"error: {' '.join(str(e).split())}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
