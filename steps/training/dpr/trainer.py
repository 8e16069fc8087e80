"""The DPR training loop: in-batch NLL with sampled hard negatives, dev Recall@k model selection.

A step runs in one graph or with the gradient cache (gradcache.py, `grad_cache_chunk`), with
optional activation checkpointing and fused attention (bert_model.py), on one device or data
parallel over several (distributed.py, `world_size`). The step loop never waits for the device:
losses are summed on the device and read once per epoch.
"""
import json
import math
import os
import time

import numpy as np
import torch

from batches import Batcher
from checkpoint import save_encoder
from dev_eval import encode, recall_at_k
from device import Amp, pick_device, seed_everything
from distributed import Single
from encoders import build_encoders
from errors import TrainingInputError
from gradcache import cached_step, plain_step
from hf_parity import check_against_transformers
from losses import in_batch_nll
from negatives import batch_order
from onnx_export import check_with_onnxruntime, export_encoder
from optim import make_optimizer
from provenance import environment, plateau_summary


def _snapshot(model):
    return {k: v.detach().clone().cpu() for k, v in model.state_dict().items()}


def evaluate(q_model, p_model, inputs, cfg, device):
    pv = encode(p_model, inputs.dev_passage_ids, inputs.dev_passage_types, cfg["eval_batch_size"], device)
    qv = encode(q_model, inputs.dev_query_ids, None, cfg["eval_batch_size"], device)
    return recall_at_k(qv, pv, np.asarray(inputs.dev_gold), cfg["recall_k"])


def configure(models, cfg):
    """Attention kernel and activation checkpointing of both encoders (config errors exit 2)."""
    for m in models:
        try:
            m.configure(attention=cfg["attention"], checkpointing=cfg["activation_checkpointing"])
        except ValueError as e:
            raise TrainingInputError(str(e), field="attention", fix="use 'auto' or 'math'") from e
    return models[0].attention_mode


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


class StepRunner:
    """One optimisation step: the global batch's plan, this process's slice on the device, the
    forward/backward (one graph or the gradient cache), the gradient all-reduce of data-parallel
    runs, clipping and the optimizer. Returns the loss as a device tensor (no host sync)."""

    def __init__(self, models, batcher, opt, sched, amp, cfg, group):
        self.models, self.batcher, self.opt, self.sched, self.amp, self.cfg, self.group = models, batcher, opt, sched, amp, cfg, group
        self.params = [p for m in models for p in m.parameters()]
        self.step_fn = plain_step if cfg["grad_cache_chunk"] is None else cached_step

    def __call__(self, idx):
        batch = self.batcher.plan(idx)
        chunks = self.batcher.tensors(batch, self.group.slice(batch.n), self.cfg["grad_cache_chunk"])
        mask = self.batcher.mask_on_device(batch)

        def gather(q, p):
            return self.group.gather(q, p, batch.n, batch.n_neg)

        loss = self.step_fn(self.models, chunks, lambda q, p: in_batch_nll(q, p, mask)[0], self.amp.autocast, self.amp.scale, gather)
        self.group.all_reduce_grads(self.params)
        self.amp.scaler.unscale_(self.opt)
        torch.nn.utils.clip_grad_norm_(self.params, self.cfg["clip"])
        self.amp.scaler.step(self.opt)
        self.amp.scaler.update()
        self.sched.step()
        self.opt.zero_grad(set_to_none=True)
        return loss


def run_epoch(run_step, order, batch_size, device, progress, step=0):
    """One epoch's steps over `order` in batches; returns the summed loss as a device tensor
    (the loop itself never waits for the device)."""
    loss_sum = torch.zeros((), dtype=torch.float32, device=device)
    for s in range(0, len(order), batch_size):
        loss_sum += run_step(order[s:s + batch_size])
        step += 1
        progress(step)
    return loss_sum


def train(cfg, inputs, out_dir, log, emit, vocab=None, group=None):
    """Runs the whole program; returns the result dict (also written to out_dir/result.json).
    With epochs 0 it only exports the initial encoders (`export_initial`; inputs may be None).
    `vocab` ({size, file, digest}, from --vocab and the inputs' records) is checked against
    the model and its digest recorded in config.json. `group` is the data-parallel process
    group (distributed.py); only its main process evaluates and writes outputs."""
    if cfg["epochs"] == 0:
        return export_initial(cfg, inputs, out_dir, log, emit, vocab)
    group = group or Single()
    main = group.is_main
    t0 = time.time()
    device = pick_device(cfg["device"], getattr(group, "local_rank", 0))
    seed_everything(cfg["seed"], cfg["deterministic"])
    if cfg["n_hard_negatives"] > 0 and inputs.neg is None:
        raise TrainingInputError(f"n_hard_negatives is {cfg['n_hard_negatives']} but train_neg.npy is absent",
                                 field="n_hard_negatives", fix="set n_hard_negatives to 0 for in-batch negatives only")
    q_model, p_model, load_reports = build_encoders(cfg, log)
    check_vocab_fits(q_model, vocab)
    if cfg["parity_check_transformers"] and main:
        check_against_transformers(q_model, log)
    attention = configure((q_model, p_model), cfg)
    q_model.to(device).train()
    p_model.to(device).train()
    nq, bs = len(inputs.pos), cfg["batch_size"]
    steps_per_epoch = math.ceil(nq / bs)
    total = steps_per_epoch * cfg["epochs"]
    opt, sched = make_optimizer([q_model, p_model], cfg, total)
    amp = Amp(cfg["amp"], device, log)
    batcher = Batcher(inputs, cfg, device)
    run_step = StepRunner((q_model, p_model), batcher, opt, sched, amp, cfg, group)
    if group.world_size > 1:
        log(f"rank {group.rank} of {group.world_size} ({group.backend}) on {device}")
    emit = emit if main else (lambda _line: None)
    metrics, record = _metrics_writer(out_dir, emit) if main else ([], lambda _row: None)
    key = f"dev_recall_at_{cfg['recall_k']}"

    def dev_recall():
        r, counted = evaluate(q_model, p_model, inputs, cfg, device) if main else (None, 0)
        return group.broadcast_float(r, device), counted

    if cfg["eval_before_training"]:
        r, counted = dev_recall()
        record({"epoch": 0, key: r, "dev_queries": counted, "selectable": False})
    best_epoch, best_r, best_state = None, -1.0, None
    last_gain, stopped = 0, None
    step = 0
    log(f"{steps_per_epoch} steps per epoch of {bs} examples on {device}; attention {attention}; "
        f"gradient cache {'off' if cfg['grad_cache_chunk'] is None else 'chunks of ' + str(cfg['grad_cache_chunk'])}; "
        f"activation checkpointing {'on' if cfg['activation_checkpointing'] else 'off'}; amp {cfg['amp'] if amp.dtype is not None else 'none'}")
    emit(f"PROGRESS 0 {total}")
    for epoch in range(1, cfg["epochs"] + 1):
        t_epoch = time.perf_counter()

        def progress(done):
            if done % cfg["progress_every"] == 0 or done == total:
                emit(f"PROGRESS {done} {total}")

        loss_sum = run_epoch(run_step, batch_order(cfg["seed"], epoch, nq), bs, device, progress, step)
        step += steps_per_epoch
        train_loss = float((loss_sum / steps_per_epoch).item())  # the epoch's one host sync
        train_seconds = time.perf_counter() - t_epoch
        r, counted = dev_recall()
        record({"epoch": epoch, key: r, "train_seconds": round(train_seconds, 4), "dev_queries": counted, "selectable": True, "train_loss": train_loss,
                "steps": step, "lr": float(sched.get_last_lr()[0]), "fallback_negatives": batcher.fallbacks,
                "seconds": round(time.time() - t0, 3)})
        if r > best_r:  # strict: ties keep the earlier epoch
            if r >= best_r + cfg["min_delta"]:
                last_gain = epoch
            best_epoch, best_r = epoch, r
            if main:
                best_state = (_snapshot(q_model), _snapshot(p_model))
        if cfg["patience"] > 0 and epoch - last_gain >= cfg["patience"] and epoch < cfg["epochs"]:
            stopped = epoch
            log(f"plateau: no dev R@{cfg['recall_k']} gain of {cfg['min_delta']} or more since epoch {last_gain}; "
                f"stopping after epoch {epoch} of {cfg['epochs']}")
            break
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None
    if not main:
        group.barrier()
        return None
    q_model.load_state_dict(best_state[0])
    p_model.load_state_dict(best_state[1])
    q_model.cpu().eval()
    p_model.cpu().eval()
    outputs = write_outputs(q_model, p_model, cfg, out_dir, best_epoch, log, vocab)
    group.barrier()
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
        "world_size": group.world_size, "attention": attention, "grad_cache_chunk": cfg["grad_cache_chunk"],
        "activation_checkpointing": cfg["activation_checkpointing"], "peak_gpu_memory_bytes": peak,
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
