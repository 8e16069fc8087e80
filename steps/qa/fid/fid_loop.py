"""FiD training with dev-EM model selection, and prediction (see fid.py)."""
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch

from device import pick_device
from fid_io import Decoder, build_model, npy, optimizer, read_json, save_model
from kept import KeptCheckpoint
from qa_config import QaInputError, dev_score, load_config, load_schema, threads

HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def emit(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _batch(ids, rows, n_context, device):
    x = torch.as_tensor(np.asarray(ids[rows][:, :n_context]), dtype=torch.long, device=device)
    return x, (x != 0).long()


def answer_all(model, ids, n_context, max_length, batch, decode, device, limit=None):
    model.eval()
    n = ids.shape[0] if limit is None else min(limit, ids.shape[0])
    out = []
    for i in range(0, n, batch):
        x, m = _batch(ids, np.arange(i, min(n, i + batch)), n_context, device)
        out += [decode(t) for t in model.generate(x, m, max_length)]
    return out


def train(args):
    cfg = load_config(args.config, load_schema(HERE), _init_flag(args))
    torch.set_num_threads(threads(args.threads, cfg["threads"]))
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"] % (2 ** 32))
    torch.manual_seed(cfg["seed"])
    if cfg["deterministic"]:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    device = pick_device(cfg["device"])  # the trainers' one rule: a GPU step fails at once without one
    meta = read_json(os.path.join(args.inputs, "meta.json"))
    decode = Decoder(read_json(os.path.join(args.inputs, "pieces.json")))
    tr_ids = npy(os.path.join(args.inputs, "train", "input_ids.npy"), 3)
    tr_labels = npy(os.path.join(args.inputs, "train", "labels.npy"), 2)
    dev_ids = npy(os.path.join(args.inputs, "dev", "input_ids.npy"), 3)
    dev_answers = read_json(os.path.join(args.inputs, "dev", "answers.json"))
    if tr_labels.shape[0] != tr_ids.shape[0]:
        raise QaInputError(f"{tr_labels.shape[0]} label rows for {tr_ids.shape[0]} questions", os.path.join(args.inputs, "train", "labels.npy"))
    model, report = build_model(cfg["init"], cfg["seed"], int(meta["vocabSize"]), cfg["allow_pickle"])
    _check_vocab(cfg["init"], meta)
    if model.config.vocab_size < int(meta["vocabSize"]):
        raise QaInputError(f"the vocabulary has {meta['vocabSize']} pieces, the model's embedding {model.config.vocab_size}", args.inputs, fix="tokenize with the initial model's SentencePiece model")
    model.set_checkpointing(cfg["checkpointing"])
    model.to(device).train()
    amp = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(cfg["amp"]) if device.type == "cuda" else None
    scaler = torch.cuda.amp.GradScaler(enabled=amp == torch.float16)
    nq, bs, k = tr_ids.shape[0], cfg["batch_size"], cfg["n_context"]
    steps_per_epoch = math.ceil(nq / bs)
    total = steps_per_epoch * cfg["epochs"]
    opt, sched = optimizer(model, cfg, total)
    os.makedirs(args.out, exist_ok=True)
    kept = KeptCheckpoint(args.out, emit)
    t0, step = time.time(), 0
    limit = None if cfg["dev_questions"] == 0 else cfg["dev_questions"]

    def evaluate(epoch, extra):
        score = dev_score(dev_answers, answer_all(model, dev_ids, k, cfg["answer_max_length"], cfg["eval_batch_size"], decode, device, limit))
        model.train()
        kept.record(epoch, score, {**extra, "seconds": round(time.time() - t0, 3)}, model)

    if cfg["start_is_candidate"]:  # epoch 0: the starting FiD, kept unless an epoch scores better
        evaluate(0, {"train_loss": None, "steps": 0})
    emit(f"PROGRESS 0 {total}")
    for epoch in range(1, cfg["epochs"] + 1):
        order = np.random.default_rng([int(cfg["seed"]), epoch]).permutation(nq)
        losses = []
        for s in range(steps_per_epoch):
            rows = np.sort(order[s * bs:(s + 1) * bs])
            x, m = _batch(tr_ids, rows, k, device)
            labels = torch.as_tensor(np.asarray(tr_labels[rows]), dtype=torch.long, device=device)
            with torch.autocast(device_type=device.type, dtype=amp, enabled=amp is not None):
                loss = model.loss(x, m, labels)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
            scaler.step(opt)
            scaler.update()
            sched.step()
            opt.zero_grad(set_to_none=True)
            losses.append(float(loss.detach()))
            step += 1
            if step % cfg["progress_every"] == 0 or step == total:
                emit(f"PROGRESS {step} {total}")
        evaluate(epoch, {"train_loss": float(np.mean(losses)), "steps": step})
    kept.restore(model)
    model.cpu().eval()
    with open(os.path.join(args.out, "dev_predictions.json"), "w", encoding="utf-8") as f:
        json.dump(answer_all(model, dev_ids, k, cfg["answer_max_length"], cfg["eval_batch_size"], decode, torch.device("cpu"), limit), f)
    own = {"format": "fid-t5/1", "best_epoch": kept.epoch or 0, "vocab_digest": meta.get("vocabDigest"), "n_context": k, "answer_max_length": cfg["answer_max_length"]}
    save_model(model, args.out, own)
    result = {**kept.result(),
              "steps": step, "train_questions": nq, "seconds": round(time.time() - t0, 3), "torch_version": torch.__version__,
              "device": str(device), "threads": torch.get_num_threads(), "load_report": report,
              "outputs": ["fid.safetensors", "config.json", "dev_predictions.json", "metrics.jsonl"]}
    with open(os.path.join(args.out, "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, sort_keys=True)
    log(f"done: best epoch {result['best_epoch']}, dev EM {result['dev_em']}, {result['seconds']} s")


def predict(args):
    torch.set_num_threads(threads(args.threads, None))
    conf = read_json(os.path.join(args.model, "config.json"))
    own = conf.get("cspipe", {})
    meta = read_json(os.path.join(args.inputs, "meta.json"))
    if own.get("vocab_digest") and meta.get("vocabDigest") and own["vocab_digest"] != meta["vocabDigest"]:
        raise QaInputError("the inputs were tokenized with another vocabulary than the model's", os.path.join(args.inputs, "meta.json"), "vocabDigest", "tokenize with the model's SentencePiece model")
    model, _ = build_model({"kind": "checkpoint", "path": args.model}, 0, int(meta["vocabSize"]), False)
    model.eval()
    ids = npy(os.path.join(args.inputs, "input_ids.npy"), 3)
    qids = read_json(os.path.join(args.inputs, "qids.json"))
    decode = Decoder(read_json(os.path.join(args.inputs, "pieces.json")))
    t0 = time.time()
    answers = answer_all(model, ids, int(own.get("n_context", ids.shape[1])), int(own.get("answer_max_length", 100)), args.batch, decode, torch.device("cpu"))
    with open(args.out, "w", encoding="utf-8") as f:
        for qid, a in zip(qids, answers):
            f.write(json.dumps({"qid": qid, "prediction": a}) + "\n")
    log(f"{len(answers)} answers in {time.time() - t0:.1f} s")


def _init_flag(args):
    if args.init_from and args.init_hf_t5:
        raise QaInputError("both --init-from and --init-hf-t5 are given", fix="pass one of them")
    if args.init_from:
        return {"kind": "checkpoint", "path": os.path.abspath(args.init_from)}
    if args.init_hf_t5:
        return {"kind": "hf-t5", "path": os.path.abspath(args.init_hf_t5)}
    return None


def _check_vocab(init, meta):
    if init["kind"] != "checkpoint" or not meta.get("vocabDigest"):
        return
    recorded = read_json(os.path.join(init["path"], "config.json")).get("cspipe", {}).get("vocab_digest")
    if recorded and recorded != meta["vocabDigest"]:
        raise QaInputError("vocabulary mismatch between the inputs and the initial FiD model", os.path.join(init["path"], "config.json"), "cspipe.vocab_digest", "tokenize with the initial model's SentencePiece model")
