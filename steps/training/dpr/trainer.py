"""The DPR training loop: in-batch NLL with sampled hard negatives, dev Recall@k model selection."""
import json
import math
import os
import random
import time

import numpy as np
import torch

from checkpoint import save_encoder
from dev_eval import encode, recall_at_k, to_batch
from encoders import build_encoders
from errors import TrainingInputError
from hf_parity import check_against_transformers
from losses import false_negative_mask, in_batch_nll
from negatives import batch_order, gold_set, sample_negatives
from onnx_export import check_with_onnxruntime, export_encoder
from optim import make_optimizer
from provenance import environment, plateau_summary


def seed_everything(seed, deterministic=True):
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)
    if deterministic:
        # cuBLAS needs a fixed workspace for deterministic GEMMs; set before CUDA initialises.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)


def pick_device(name):
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise TrainingInputError("device 'cuda' requested but torch sees no GPU", field="device", fix="use 'auto' or 'cpu'")
    return torch.device(name)


def _grad_scaler(enabled):
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        try:
            return amp.GradScaler("cuda", enabled=enabled)
        except TypeError:
            pass
    return torch.cuda.amp.GradScaler(enabled=enabled)


class Amp:
    """fp16 autocast + GradScaler or bf16 autocast on CUDA; plain float32 on CPU."""

    def __init__(self, mode, device, log):
        self.dtype = None
        if device.type == "cuda" and mode != "none":
            self.dtype = torch.float16 if mode == "fp16" else torch.bfloat16
        elif device.type != "cuda" and mode != "none":
            log(f"note: amp '{mode}' applies on CUDA only; training in float32 on {device.type}")
        self.scaler = _grad_scaler(self.dtype == torch.float16)

    def autocast(self, device):
        if self.dtype is None:
            return torch.autocast(device_type="cpu", enabled=False)
        return torch.autocast(device_type=device.type, dtype=self.dtype)


def _snapshot(model):
    return {k: v.detach().clone().cpu() for k, v in model.state_dict().items()}


def evaluate(q_model, p_model, inputs, cfg, device):
    pv = encode(p_model, inputs.dev_passage_ids, inputs.dev_passage_types, cfg["eval_batch_size"], device)
    qv = encode(q_model, inputs.dev_query_ids, None, cfg["eval_batch_size"], device)
    return recall_at_k(qv, pv, np.asarray(inputs.dev_gold), cfg["recall_k"])


class Batcher:
    """Builds one step's tensors: queries, then [positives, hard negatives], and the false-negative mask."""

    def __init__(self, inputs, cfg, device):
        self.inputs, self.cfg, self.device = inputs, cfg, device
        self.rng = np.random.default_rng([int(cfg["seed"]), 1])  # negatives stream, separate from the order
        self.n_passages = inputs.passage_ids.shape[0]
        self.fallbacks = 0

    def make(self, idx):
        inp, n = self.inputs, self.cfg["n_hard_negatives"]
        golds = [gold_set(inp.pos[i], None if inp.gold is None else inp.gold[i]) for i in idx]
        negs = []
        for i, g in zip(idx, golds):
            ns, fb = sample_negatives(self.rng, None if inp.neg is None else inp.neg[i], g, n, self.n_passages,
                                     self.cfg["filter_gold_negatives"])
            negs.extend(ns)
            self.fallbacks += fb
        cols = [int(inp.pos[i]) for i in idx] + negs
        sel = np.asarray(cols, dtype=np.int64)
        q = to_batch(np.asarray(inp.query_ids[np.asarray(idx)]), None, self.device)
        types = None if inp.passage_types is None else np.asarray(inp.passage_types[sel])
        p = to_batch(np.asarray(inp.passage_ids[sel]), types, self.device)
        mask = false_negative_mask(cols, golds) if self.cfg["mask_false_negatives"] else None
        return q, p, mask, cols


def _metrics_writer(out_dir, emit):
    """Truncates metrics.jsonl and returns (rows, record): record appends a row and emits its EPOCH line."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "metrics.jsonl")
    rows = []

    def record(row):
        rows.append(row)
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, sort_keys=True) + "\n")
        emit("EPOCH " + json.dumps(row, sort_keys=True))

    open(path, "w").close()
    return rows, record


def _write_result(out_dir, result):
    with open(os.path.join(out_dir, "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, sort_keys=True)
    return result


def check_vocab_fits(model, vocab):
    """A --vocab with more tokens than the model's embedding table has rows is refused."""
    if vocab and vocab.get("size") is not None and vocab["size"] > model.config.vocab_size:
        raise TrainingInputError(
            f"the vocabulary has {vocab['size']} tokens but the initial model's embedding table has "
            f"{model.config.vocab_size} rows", file=vocab.get("file"),
            fix="pass the vocabulary the initial model was trained with")


def export_initial(cfg, inputs, out_dir, log, emit, vocab=None):
    """epochs 0: the encoders of `init`, unchanged, written as a training run writes its best
    epoch (best_epoch 0). `inputs` may be None; with inputs and eval_before_training the dev
    Recall@k of the exported model is measured and logged as epoch 0."""
    t0 = time.time()
    device = pick_device(cfg["device"])
    seed_everything(cfg["seed"], cfg["deterministic"])
    q_model, p_model, load_reports = build_encoders(cfg, log)
    check_vocab_fits(q_model, vocab)
    if cfg["parity_check_transformers"]:
        check_against_transformers(q_model, log)
    metrics, record = _metrics_writer(out_dir, emit)
    key = f"dev_recall_at_{cfg['recall_k']}"
    recall = None
    if cfg["eval_before_training"] and inputs is not None:
        recall, counted = evaluate(q_model.to(device), p_model.to(device), inputs, cfg, device)
        record({"epoch": 0, key: recall, "dev_queries": counted, "selectable": False})
    elif cfg["eval_before_training"]:
        log("note: no --inputs, so no dev evaluation of the exported encoders")
    q_model.cpu().eval()
    p_model.cpu().eval()
    log("epochs 0: exporting the initial encoders without training")
    outputs = write_outputs(q_model, p_model, cfg, out_dir, 0, log, vocab)
    return _write_result(out_dir, {
        "best_epoch": 0, key: recall, "export_only": True,
        "dev_recall_per_epoch": {str(m["epoch"]): m[key] for m in metrics},
        "steps": 0, "examples": 0, "train_queries": 0 if inputs is None else len(inputs.pos),
        "fallback_negatives": 0, "seconds": round(time.time() - t0, 3),
        "torch_version": torch.__version__, "device": str(device), "threads": torch.get_num_threads(),
        "amp": "none", "load_reports": load_reports, "outputs": outputs, "environment": environment(device),
    })


def train(cfg, inputs, out_dir, log, emit, vocab=None):
    """Runs the whole program; returns the result dict (also written to out_dir/result.json).
    With epochs 0 it only exports the initial encoders (`export_initial`; inputs may be None).
    `vocab` ({size, file, digest}, from --vocab and the inputs' records) is checked against
    the model and its digest recorded in config.json."""
    if cfg["epochs"] == 0:
        return export_initial(cfg, inputs, out_dir, log, emit, vocab)
    t0 = time.time()
    device = pick_device(cfg["device"])
    seed_everything(cfg["seed"], cfg["deterministic"])
    if cfg["n_hard_negatives"] > 0 and inputs.neg is None:
        raise TrainingInputError(f"n_hard_negatives is {cfg['n_hard_negatives']} but train_neg.npy is absent",
                                 field="n_hard_negatives", fix="set n_hard_negatives to 0 for in-batch negatives only")
    q_model, p_model, load_reports = build_encoders(cfg, log)
    check_vocab_fits(q_model, vocab)
    if cfg["parity_check_transformers"]:
        check_against_transformers(q_model, log)
    q_model.to(device).train()
    p_model.to(device).train()
    nq, bs = len(inputs.pos), cfg["batch_size"]
    steps_per_epoch = math.ceil(nq / bs)
    total = steps_per_epoch * cfg["epochs"]
    opt, sched = make_optimizer([q_model, p_model], cfg, total)
    amp = Amp(cfg["amp"], device, log)
    batcher = Batcher(inputs, cfg, device)
    metrics, record = _metrics_writer(out_dir, emit)
    key = f"dev_recall_at_{cfg['recall_k']}"
    if cfg["eval_before_training"]:
        r, counted = evaluate(q_model, p_model, inputs, cfg, device)
        record({"epoch": 0, key: r, "dev_queries": counted, "selectable": False})
    best_epoch, best_r, best_state = None, -1.0, None
    last_gain, stopped = 0, None
    step = 0
    emit(f"PROGRESS 0 {total}")
    for epoch in range(1, cfg["epochs"] + 1):
        order = batch_order(cfg["seed"], epoch, nq)
        losses = []
        t_epoch = time.perf_counter()
        for s in range(steps_per_epoch):
            idx = order[s * bs:(s + 1) * bs]
            q, p, mask, _ = batcher.make(idx)
            with amp.autocast(device):
                loss, _ = in_batch_nll(q_model(*q), p_model(*p), mask)
            amp.scaler.scale(loss).backward()
            amp.scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(list(q_model.parameters()) + list(p_model.parameters()), cfg["clip"])
            amp.scaler.step(opt)
            amp.scaler.update()
            sched.step()
            opt.zero_grad(set_to_none=True)
            losses.append(float(loss.detach()))
            step += 1
            if step % cfg["progress_every"] == 0 or step == total:
                emit(f"PROGRESS {step} {total}")
        train_seconds = time.perf_counter() - t_epoch
        r, counted = evaluate(q_model, p_model, inputs, cfg, device)
        record({"epoch": epoch, key: r, "train_seconds": round(train_seconds, 4), "dev_queries": counted, "selectable": True, "train_loss": float(np.mean(losses)),
                "steps": step, "lr": float(sched.get_last_lr()[0]), "fallback_negatives": batcher.fallbacks,
                "seconds": round(time.time() - t0, 3)})
        if r > best_r:  # strict: ties keep the earlier epoch
            if r >= best_r + cfg["min_delta"]:
                last_gain = epoch
            best_epoch, best_r, best_state = epoch, r, (_snapshot(q_model), _snapshot(p_model))
        if cfg["patience"] > 0 and epoch - last_gain >= cfg["patience"] and epoch < cfg["epochs"]:
            stopped = epoch
            log(f"plateau: no dev R@{cfg['recall_k']} gain of {cfg['min_delta']} or more since epoch {last_gain}; "
                f"stopping after epoch {epoch} of {cfg['epochs']}")
            break
    q_model.load_state_dict(best_state[0])
    p_model.load_state_dict(best_state[1])
    q_model.cpu().eval()
    p_model.cpu().eval()
    outputs = write_outputs(q_model, p_model, cfg, out_dir, best_epoch, log, vocab)
    per_epoch = {str(m["epoch"]): m[key] for m in metrics}
    result = {
        "best_epoch": best_epoch, key: best_r,
        "dev_recall_per_epoch": per_epoch,
        "epochs_run": stopped if stopped is not None else cfg["epochs"], "stopped_early": stopped is not None,
        "plateau": plateau_summary(per_epoch, cfg["patience"]),
        "steps": step, "examples": nq * (stopped or cfg["epochs"]), "train_queries": nq,
        "fallback_negatives": batcher.fallbacks, "seconds": round(time.time() - t0, 3),
        "torch_version": torch.__version__, "device": str(device), "threads": torch.get_num_threads(),
        "amp": "none" if amp.dtype is None else cfg["amp"], "load_reports": load_reports, "outputs": outputs,
        "environment": environment(device),
    }
    return _write_result(out_dir, result)


def write_outputs(q_model, p_model, cfg, out_dir, best_epoch, log, vocab=None):
    outputs = []
    if cfg["save_checkpoint"]:
        meta = {"best_epoch": str(best_epoch), "pooling": "cls", "similarity": "dot"}
        save_encoder(q_model, os.path.join(out_dir, "query_encoder.safetensors"), {**meta, "role": "query"})
        save_encoder(p_model, os.path.join(out_dir, "passage_encoder.safetensors"), {**meta, "role": "passage"})
        own = {"pooling": "cls", "similarity": "dot", "best_epoch": best_epoch, "format": "dpr-biencoder/1"}
        if vocab and vocab.get("digest"):
            own["vocab_digest"] = vocab["digest"]
        conf = {**q_model.config.to_hf_dict(), "cspipe": own}
        with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
            json.dump(conf, f, indent=2, sort_keys=True)
        outputs += ["query_encoder.safetensors", "passage_encoder.safetensors", "config.json"]
    if cfg["export_onnx"]:
        for name, model in (("query_encoder", q_model), ("passage_encoder", p_model)):
            path = os.path.join(out_dir, f"{name}.onnx")
            fdir = export_encoder(model, path, opset=cfg["onnx_opset"], seed=cfg["seed"])
            check_with_onnxruntime(path, fdir, log)
            outputs += [f"{name}.onnx", os.path.relpath(fdir, out_dir)]
    return outputs
