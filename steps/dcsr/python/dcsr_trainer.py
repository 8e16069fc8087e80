"""DCSR's training loop: per step, the queries and the distinct passages their sentences come
from are encoded once, the sentence vectors gathered at the markers, and the NLL taken over
every sentence vector of the batch; dev Recall@k of the HasAns ranking selects the epoch."""
import json
import math
import os
import time

import numpy as np
import torch

from checkpoint import save_encoder
from dcsr_batch import Sampler
from dcsr_eval import dev_recall
from dcsr_model import SENTENCE_ONNX, check_sentence_encoder, export_sentence_encoder, gather_markers, sentence_nll
from device import Amp, pick_device, seed_everything  # the trainers' one device rule (a GPU-required step fails at once without CUDA)
from dev_eval import to_batch
from encoders import build_encoders
from errors import TrainingInputError
from onnx_export import check_with_onnxruntime, export_encoder
from optim import make_optimizer
from provenance import environment, plateau_summary


def batch_order(seed, epoch, n):
    return np.random.default_rng([int(seed), int(epoch)]).permutation(n)


def step_tensors(inputs, idx, cols, device):
    """Query tensors, the distinct passages' tensors and their marker positions, and for each column its (passage index, slot)."""
    q = to_batch(np.asarray(inputs.query_ids[np.asarray(idx)]), None, device)
    rows = sorted({r for r, _ in cols})
    at = {r: i for i, r in enumerate(rows)}
    sel = np.asarray(rows, dtype=np.int64)
    types = None if inputs.passage_types is None else np.asarray(inputs.passage_types[sel])
    p = to_batch(np.asarray(inputs.passage_ids[sel]), types, device)
    markers = torch.as_tensor(np.asarray(inputs.markers[sel], dtype=np.int64), device=device)
    pick = torch.as_tensor([at[r] for r, _ in cols], device=device), torch.as_tensor([s for _, s in cols], device=device)
    return q, p, markers, pick


def sentence_columns(p_model, p, markers, pick):
    vectors = gather_markers(p_model.hidden_states(*p), markers)  # [P, M, H]
    return vectors[pick[0], pick[1]]


def _writer(out_dir, emit):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "metrics.jsonl")
    open(path, "w").close()
    rows = []

    def record(row):
        rows.append(row)
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, sort_keys=True) + "\n")
        emit("EPOCH " + json.dumps(row, sort_keys=True))

    return rows, record


def train(cfg, inputs, out_dir, log, emit, vocab=None):
    t0 = time.time()
    device = pick_device(cfg["device"])
    seed_everything(cfg["seed"], cfg["deterministic"])
    if inputs.markers.shape[1] != cfg["max_markers"]:
        raise TrainingInputError(f"the collection has {inputs.markers.shape[1]} marker slots, the config max_markers {cfg['max_markers']}",
                                 field="max_markers", fix="tokenize with the same maxMarkers")
    q_model, p_model, load_reports = build_encoders(cfg, log)
    if vocab and vocab.get("size") is not None and vocab["size"] > q_model.config.vocab_size:
        raise TrainingInputError(f"the vocabulary has {vocab['size']} tokens, the model {q_model.config.vocab_size}", file=vocab.get("file"))
    q_model.to(device).train()
    p_model.to(device).train()
    nq, bs = len(inputs.pos), cfg["batch_size"]
    steps_per_epoch = math.ceil(nq / bs)
    total = steps_per_epoch * cfg["epochs"]
    opt, sched = make_optimizer([q_model, p_model], cfg, total)
    amp = Amp(cfg["amp"], device, log)
    sampler = Sampler(inputs, cfg, cfg["seed"])
    metrics, record = _writer(out_dir, emit)
    key = f"dev_recall_at_{cfg['recall_k']}"
    if cfg["eval_before_training"]:
        r, counted = dev_recall(q_model, p_model, inputs, cfg, device)
        record({"epoch": 0, key: r, "dev_queries": counted, "selectable": False})
    best_epoch, best_r, best_state, last_gain, stopped, step = None, -1.0, None, 0, None, 0
    emit(f"PROGRESS 0 {total}")
    for epoch in range(1, cfg["epochs"] + 1):
        losses, t_epoch = [], time.perf_counter()
        order = batch_order(cfg["seed"], epoch, nq)
        for s in range(steps_per_epoch):
            idx = order[s * bs:(s + 1) * bs]
            cols, mask = sampler.batch(idx)
            q, p, markers, pick = step_tensors(inputs, idx, cols, device)
            with amp.autocast():
                loss, _ = sentence_nll(q_model(*q), sentence_columns(p_model, p, markers, pick), mask)
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
        r, counted = dev_recall(q_model, p_model, inputs, cfg, device)
        record({"epoch": epoch, key: r, "train_seconds": round(train_seconds, 4), "dev_queries": counted, "selectable": True,
                "train_loss": float(np.mean(losses)), "steps": step, "lr": float(sched.get_last_lr()[0]),
                "fallback_negatives": sampler.fallbacks, "in_passage_fallbacks": sampler.in_passage_fallbacks, "seconds": round(time.time() - t0, 3)})
        if r > best_r:
            if r >= best_r + cfg["min_delta"]:
                last_gain = epoch
            best_epoch, best_r = epoch, r
            best_state = ({k: v.detach().clone().cpu() for k, v in q_model.state_dict().items()}, {k: v.detach().clone().cpu() for k, v in p_model.state_dict().items()})
        if cfg["patience"] > 0 and epoch - last_gain >= cfg["patience"] and epoch < cfg["epochs"]:
            stopped = epoch
            log(f"plateau: no dev R@{cfg['recall_k']} gain of {cfg['min_delta']} or more since epoch {last_gain}; stopping after epoch {epoch} of {cfg['epochs']}")
            break
    q_model.load_state_dict(best_state[0])
    p_model.load_state_dict(best_state[1])
    q_model.cpu().eval()
    p_model.cpu().eval()
    outputs = write_outputs(q_model, p_model, cfg, out_dir, best_epoch, log, vocab, inputs.marker_id)
    per_epoch = {str(m["epoch"]): m[key] for m in metrics}
    result = {
        "best_epoch": best_epoch, key: best_r, "dev_recall_per_epoch": per_epoch,
        "epochs_run": stopped if stopped is not None else cfg["epochs"], "stopped_early": stopped is not None,
        "plateau": plateau_summary(per_epoch, cfg["patience"]),
        "steps": step, "examples": nq * (stopped or cfg["epochs"]), "train_queries": nq,
        "fallback_negatives": sampler.fallbacks, "in_passage_fallbacks": sampler.in_passage_fallbacks,
        "seconds": round(time.time() - t0, 3), "torch_version": torch.__version__, "device": str(device),
        "threads": torch.get_num_threads(), "amp": "none" if amp.dtype is None else cfg["amp"], "load_reports": load_reports,
        "outputs": outputs, "environment": environment(device),
    }
    with open(os.path.join(out_dir, "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, sort_keys=True)
    return result


def write_outputs(q_model, p_model, cfg, out_dir, best_epoch, log, vocab, marker_id):
    outputs = []
    if cfg["save_checkpoint"]:
        meta = {"best_epoch": str(best_epoch), "similarity": "dot"}
        save_encoder(q_model, os.path.join(out_dir, "query_encoder.safetensors"), {**meta, "role": "query", "pooling": "cls"})
        save_encoder(p_model, os.path.join(out_dir, "passage_encoder.safetensors"), {**meta, "role": "passage", "pooling": "marker"})
        own = {"pooling": "cls", "passage_pooling": "marker", "similarity": "dot", "best_epoch": best_epoch, "format": "dcsr-biencoder/1",
               "marker_id": int(marker_id), "max_markers": cfg["max_markers"]}
        if vocab and vocab.get("digest"):
            own["vocab_digest"] = vocab["digest"]
        with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
            json.dump({**q_model.config.to_hf_dict(), "cspipe": own}, f, indent=2, sort_keys=True)
        outputs += ["query_encoder.safetensors", "passage_encoder.safetensors", "config.json"]
    if cfg["export_onnx"]:
        path = os.path.join(out_dir, "query_encoder.onnx")
        fdir = export_encoder(q_model, path, opset=cfg["onnx_opset"], seed=cfg["seed"])
        check_with_onnxruntime(path, fdir, log)
        spath = os.path.join(out_dir, SENTENCE_ONNX)
        sdir = export_sentence_encoder(p_model, spath, opset=cfg["onnx_opset"], seed=cfg["seed"])
        check_sentence_encoder(spath, sdir, log)
        outputs += ["query_encoder.onnx", os.path.relpath(fdir, out_dir), SENTENCE_ONNX, os.path.relpath(sdir, out_dir)]
    return outputs
