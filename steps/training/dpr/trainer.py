"""The DPR bi-encoder as a task of the package's epoch loop (pytrain/loop.py): in-batch NLL with
sampled hard negatives, dev Recall@k model selection.

A step runs in one graph or with the gradient cache (`grad_cache_chunk`), with optional
activation checkpointing and fused attention, on one device or data parallel over several
(`world_size`); losses stay on the device until the epoch ends.
"""
import json
import math
import os
import time

import numpy as np

from pytrain.amp import Amp
from pytrain.checkpoint import save_encoder
from pytrain.distributed import Single
from pytrain.errors import InputError
from pytrain.gradcache import Side, pair_step
from pytrain.hf_parity import check_against_transformers
from pytrain.loop import Fit, epoch_slices
from pytrain.metrics import MetricsWriter, common_result, write_result
from pytrain.onnx_export import check_with_onnxruntime, export_encoder
from pytrain.provenance import plateau_summary
from pytrain.selection import BestEpoch, LastEpoch
from pytrain.training import Training
from training.dpr.batches import Batcher, gather_pairs
from training.dpr.encoders import build_encoders
from training.dpr.losses import in_batch_nll
from training.dpr.recall import encode, recall_at_k


def evaluate(q_model, p_model, inputs, cfg, device):
    pv = encode(p_model, inputs.dev_passage_ids, inputs.dev_passage_types, cfg["eval_batch_size"], device)
    qv = encode(q_model, inputs.dev_query_ids, None, cfg["eval_batch_size"], device)
    return recall_at_k(qv, pv, np.asarray(inputs.dev_gold), cfg["recall_k"])


def check_vocab_fits(model, vocab):
    """A --vocab with more tokens than the model's embedding table has rows is refused."""
    if vocab and vocab.get("size") is not None and vocab["size"] > model.config.vocab_size:
        raise InputError(
            f"the vocabulary has {vocab['size']} tokens but the initial model's embedding table has "
            f"{model.config.vocab_size} rows", file=vocab.get("file"),
            fix="pass the vocabulary the initial model was trained with")


def recall_key(cfg):
    return f"dev_recall_at_{cfg['recall_k']}"


class DprTask:
    """The bi-encoder's steps (loop.py's task): the batch planned on the host (negatives, mask),
    this process's slice encoded, the embeddings gathered, the loss over the global batch."""

    partial_loss = False  # every process computes the loss of the whole gathered batch

    def __init__(self, models, inputs, cfg, device, amp, group):
        self.models, self.inputs, self.cfg, self.device, self.amp, self.group = models, inputs, cfg, device, amp, group
        self.batcher = Batcher(inputs, cfg, device)
        self.sides = (Side(models[0]), Side(models[1]))
        self.step_fn = pair_step(cfg["grad_cache_chunk"])
        self.steps_per_epoch = math.ceil(len(inputs.pos) / cfg["batch_size"])

    def batches(self, epoch):
        return epoch_slices(self.cfg["seed"], epoch, len(self.inputs.pos), self.cfg["batch_size"])

    def step(self, idx):
        batch = self.batcher.plan(idx)
        chunks = self.batcher.tensors(batch, self.group.slice(batch.n), self.cfg["grad_cache_chunk"])
        mask = self.batcher.mask_on_device(batch)

        def gather(q, p):
            return gather_pairs(self.group, q, p, batch.n, batch.n_neg)

        return self.step_fn(self.sides, chunks, lambda q, p: in_batch_nll(q, p, mask)[0], self.amp.autocast, self.amp.scale, gather)

    def evaluate(self):
        r, counted = evaluate(self.models[0], self.models[1], self.inputs, self.cfg, self.device)
        return r, {recall_key(self.cfg): r, "dev_queries": counted}

    def counters(self):
        return {"fallback_negatives": self.batcher.fallbacks}


def train(cfg, inputs, out_dir, device, log, emit, vocab=None, group=None):
    """Trains (or with epochs 0 only exports: `export_initial`), writes the outputs and
    result.json, and returns the result (None in a data-parallel process other than the first).
    `vocab` ({size, file, digest}, from --vocab and the inputs' records) is checked against the
    model and its digest recorded in config.json."""
    if cfg["epochs"] == 0:
        return export_initial(cfg, inputs, out_dir, device, log, emit, vocab)
    if cfg["n_hard_negatives"] > 0 and inputs.neg is None:
        raise InputError(f"n_hard_negatives is {cfg['n_hard_negatives']} but train_neg.npy is absent",
                         field="n_hard_negatives", fix="set n_hard_negatives to 0 for in-batch negatives only")
    run = Training(cfg, device, out_dir, log, emit, group)
    return train_biencoder(run, DprTask, inputs, vocab, lambda q, p, best: write_outputs(q, p, cfg, out_dir, best, log, vocab))


def train_biencoder(run, task_class, inputs, vocab, write):
    """A bi-encoder's training (DPR's, DCSR's): the encoders of the config's init, the task's
    loop with dev Recall@k selection, then `write(query, passage, best_epoch)` -> the outputs and
    result.json with the task's counters."""
    cfg = run.cfg
    selector = recall_selector(cfg)
    (q_model, p_model), load_reports = encoders_for_training(run, vocab)
    task = task_class((q_model, p_model), inputs, cfg, run.device, run.amp, run.group)
    fit = run.fit(task, selector, "logged" if cfg["eval_before_training"] else None, eval_every=cfg["eval_every"])
    return run.finish(fit, lambda: write(q_model.cpu().eval(), p_model.cpu().eval(), fit.best_epoch), **recall_fields(cfg, fit, run.writer, len(inputs.pos)),
                      **task.counters(), load_reports=load_reports)


def encoders_for_training(run, vocab):
    """The bi-encoders (DPR's, DCSR's) from the config's init: checked against the vocabulary
    and, in the first process, against transformers' BertModel when it imports; configured and
    on the device. Returns ((query, passage), load reports)."""
    q_model, p_model, load_reports = build_encoders(run.cfg, run.log)
    check_vocab_fits(q_model, vocab)
    if run.cfg["parity_check_transformers"] and run.group.is_main:
        check_against_transformers(q_model, run.log)
    run.configure((q_model, p_model))
    return (q_model, p_model), load_reports


def recall_selector(cfg):
    """The bi-encoders' model selection (config `select`): the best dev Recall@k, with patience, or the last epoch."""
    name = f"dev R@{cfg['recall_k']}"
    if cfg["select"] == "last":
        if cfg["patience"] > 0:
            raise InputError(f"select 'last' keeps the last epoch, but patience {cfg['patience']} would stop the training early on dev R@k",
                             field="patience", fix="set patience to 0 with select 'last', or select 'best'")
        return LastEpoch(name=name)
    return BestEpoch(patience=cfg["patience"], min_delta=cfg["min_delta"], name=name)


def recall_fields(cfg, fit, writer, n_train):
    """The bi-encoders' result fields of the selection: the kept recall, per epoch, the plateau, examples seen."""
    key = recall_key(cfg)
    per_epoch = writer.per_epoch(key)
    return {key: fit.best_score, "dev_recall_per_epoch": per_epoch, "plateau": plateau_summary(per_epoch, cfg["patience"]),
            "examples": n_train * fit.epochs_run, "train_queries": n_train}


def export_initial(cfg, inputs, out_dir, device, log, emit, vocab=None):
    """epochs 0: the encoders of `init`, unchanged, written as a training run writes its best
    epoch (best_epoch 0). `inputs` may be None; with inputs and eval_before_training the dev
    Recall@k of the exported model is measured and logged as epoch 0."""
    t0 = time.time()
    q_model, p_model, load_reports = build_encoders(cfg, log)
    check_vocab_fits(q_model, vocab)
    if cfg["parity_check_transformers"]:
        check_against_transformers(q_model, log)
    writer, key, recall = MetricsWriter(out_dir, emit), recall_key(cfg), None
    if cfg["eval_before_training"] and inputs is not None:
        recall, counted = evaluate(q_model.to(device), p_model.to(device), inputs, cfg, device)
        writer.record({"epoch": 0, key: recall, "dev_queries": counted, "selectable": False})
    elif cfg["eval_before_training"]:
        log("note: no --inputs, so no dev evaluation of the exported encoders")
    q_model.cpu().eval()
    p_model.cpu().eval()
    log("epochs 0: exporting the initial encoders without training")
    outputs = write_outputs(q_model, p_model, cfg, out_dir, 0, log, vocab)
    fit = Fit(best_epoch=0, best_score=recall, epochs_run=0, stopped_early=False, steps=0)
    return write_result(out_dir, {
        **common_result(fit, device, Amp("none", device, log), Single(), t0), key: recall, "export_only": True,
        "dev_recall_per_epoch": writer.per_epoch(key), "examples": 0, "train_queries": 0 if inputs is None else len(inputs.pos),
        "fallback_negatives": 0, "load_reports": load_reports, "outputs": outputs,
    })


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
