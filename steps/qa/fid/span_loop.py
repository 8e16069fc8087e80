"""Span-corruption pre-training of the compact T5 (fid.py pretrain-span): the mini benchmark's
stand-in for t5-base's own pre-training, before FiD learns to answer.

Input directory (prepare-t5-span-corpus, steps/qa/fid/span-steps.ts):
    meta.json          {format, vocabDigest, vocabSize (SentencePiece pieces), padId 0, eosId 1, length, train, dev}
    pieces.json        the SentencePiece vocabulary
    train/tokens.npy   int32 [N, L] piece ids of one passage a row, 0-padded, no eos
    dev/tokens.npy     int32 [Nd, L]
The model's vocabulary is the pieces plus `sentinels` ids on top (span_corruption.py, rule 4).
Every epoch draws new noise masks for the training rows (seeded by seed and epoch); the dev rows
keep one set of masks, and the epoch with the lowest dev loss (token cross-entropy over every
dev target token) is kept: strictly lower replaces, ties keep the earlier.
stdout: `PROGRESS <done> <total>` and `EPOCH <json>` lines only.
"""
import json
import math
import os
import time

import numpy as np
import torch

from device import pick_device
from fid_io import build_model, npy, optimizer, read_json, save_model
from qa_config import QaInputError, load_config, threads
from span_corruption import corrupt, max_spans, noise_mask

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = "span_config_schema.json"


def emit(line):
    print(line, flush=True)


def corrupt_rows(tokens, rows, cfg, vocab_size, eos_id, rng):
    """(inputs [B, 1, Lin], labels [B, T]) of the rows, masks drawn from rng in row order; rows under 2 tokens are skipped."""
    pairs = []
    for r in rows:
        seq = tokens[r][tokens[r] != 0]
        if seq.size < 2:
            continue
        mask = noise_mask(int(seq.size), cfg["noise_density"], cfg["mean_span_length"], rng)
        pairs.append(corrupt(seq, mask, vocab_size, cfg["sentinels"], eos_id))
    if not pairs:
        return None, None
    li, lt = max(len(p[0]) for p in pairs), max(len(p[1]) for p in pairs)
    x = np.zeros((len(pairs), 1, li), dtype=np.int64)
    y = np.full((len(pairs), lt), -100, dtype=np.int64)
    for b, (i, t) in enumerate(pairs):
        x[b, 0, :len(i)] = i
        y[b, :len(t)] = t
    return x, y


def dev_loss(model, dev, cfg, vocab_size, eos_id, device):
    """Mean token cross-entropy over every dev target token, masks from one fixed seed."""
    model.eval()
    rng = np.random.default_rng([int(cfg["seed"]), 0, 2])
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, dev.shape[0], cfg["eval_batch_size"]):
            x, y = corrupt_rows(dev, range(i, min(dev.shape[0], i + cfg["eval_batch_size"])), cfg, vocab_size, eos_id, rng)
            if x is None:
                continue
            xt, yt = torch.as_tensor(x, device=device), torch.as_tensor(y, device=device)
            n = int((yt != -100).sum())
            total += float(model.loss(xt, (xt != 0).long(), yt)) * n
            count += n
    model.train()
    return total / max(1, count)


def pretrain_span(args):
    with open(os.path.join(HERE, SCHEMA), encoding="utf-8") as f:
        cfg = load_config(args.config, json.load(f))
    torch.set_num_threads(threads(args.threads, cfg["threads"]))
    torch.manual_seed(cfg["seed"])
    if cfg["deterministic"]:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    device = pick_device(cfg["device"])
    meta = read_json(os.path.join(args.inputs, "meta.json"))
    train = np.asarray(npy(os.path.join(args.inputs, "train", "tokens.npy"), 2))
    dev = np.asarray(npy(os.path.join(args.inputs, "dev", "tokens.npy"), 2))
    if train.shape[0] == 0:
        raise QaInputError("no training rows", os.path.join(args.inputs, "train", "tokens.npy"))
    spans = max_spans(train.shape[1], cfg["noise_density"], cfg["mean_span_length"])
    if spans + 1 > cfg["sentinels"]:
        raise QaInputError(f"rows of {train.shape[1]} tokens get up to {spans} noise spans, which need {spans + 1} sentinels", args.config, "sentinels", f"set sentinels >= {spans + 1}")
    pieces, eos_id = int(meta["vocabSize"]), int(meta["eosId"])
    vocab_size = pieces + cfg["sentinels"]
    init = cfg["init"]
    if init["kind"] != "random":
        raise QaInputError("span-corruption pre-training starts from a random T5", args.config, "init", "set init.kind to random")
    if "vocab_size" in (init.get("t5_config") or {}):
        raise QaInputError("the vocabulary size comes from the inputs and the sentinels", args.config, "init.t5_config.vocab_size", "drop it")
    model, report = build_model({"kind": "random", "t5_config": {**(init.get("t5_config") or {}), "vocab_size": vocab_size}}, cfg["seed"], vocab_size, False)
    model.to(device).train()
    amp = {"bf16": torch.bfloat16}.get(cfg["amp"]) if device.type == "cuda" else None
    bs = cfg["batch_size"]
    steps_per_epoch = math.ceil(train.shape[0] / bs)
    total = steps_per_epoch * cfg["epochs"]
    opt, sched = optimizer(model, cfg, total)
    os.makedirs(args.out, exist_ok=True)
    open(os.path.join(args.out, "metrics.jsonl"), "w").close()
    t0, step, metrics, best = time.time(), 0, [], (None, math.inf, None)
    emit(f"PROGRESS 0 {total}")
    for epoch in range(1, cfg["epochs"] + 1):
        order = np.random.default_rng([int(cfg["seed"]), epoch]).permutation(train.shape[0])
        rng = np.random.default_rng([int(cfg["seed"]), epoch, 1])
        losses = []
        for s in range(steps_per_epoch):
            x, y = corrupt_rows(train, order[s * bs:(s + 1) * bs], cfg, vocab_size, eos_id, rng)
            step += 1
            if x is not None:
                xt, yt = torch.as_tensor(x, device=device), torch.as_tensor(y, device=device)
                with torch.autocast(device_type=device.type, dtype=amp, enabled=amp is not None):
                    loss = model.loss(xt, (xt != 0).long(), yt)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
                opt.step()
                opt.zero_grad(set_to_none=True)
                losses.append(float(loss.detach()))
            sched.step()
            if step % cfg["progress_every"] == 0 or step == total:
                emit(f"PROGRESS {step} {total}")
        dl = dev_loss(model, dev, cfg, vocab_size, eos_id, device)
        row = {"epoch": epoch, "dev_loss": round(dl, 6), "train_loss": float(np.mean(losses)) if losses else None, "steps": step, "seconds": round(time.time() - t0, 3)}
        metrics.append(row)
        with open(os.path.join(args.out, "metrics.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(row, sort_keys=True) + "\n")
        emit("EPOCH " + json.dumps(row, sort_keys=True))
        if dl < best[1]:
            best = (epoch, dl, {k: v.detach().clone().cpu() for k, v in model.state_dict().items()})
    if best[2] is not None:
        model.load_state_dict(best[2])
    model.cpu().eval()
    own = {"format": "fid-t5/1", "objective": "span-corruption", "best_epoch": best[0] or 0, "vocab_digest": meta.get("vocabDigest"),
           "sentinels": cfg["sentinels"], "n_context": 1, "answer_max_length": 1}
    save_model(model, args.out, own)
    result = {"best_epoch": best[0] or 0, "dev_loss": best[1] if best[0] else None, "dev_loss_per_epoch": {str(r["epoch"]): r["dev_loss"] for r in metrics},
              "steps": step, "train_rows": int(train.shape[0]), "dev_rows": int(dev.shape[0]), "vocab_size": vocab_size, "seconds": round(time.time() - t0, 3),
              "torch_version": torch.__version__, "device": str(device), "threads": torch.get_num_threads(), "load_report": report,
              "outputs": ["fid.safetensors", "config.json", "metrics.jsonl"]}
    with open(os.path.join(args.out, "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, sort_keys=True)
