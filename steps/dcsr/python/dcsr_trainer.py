"""DCSR as a task of the package's epoch loop (pytrain/loop.py): per step, the queries and the
distinct passages their sentences come from are encoded once, the sentence vectors gathered at
the markers, and the NLL taken over every sentence vector of the batch; dev Recall@k of the
HasAns ranking selects the epoch. The gradient cache, data parallel, fused attention and
activation checkpointing are the DPR trainer's: the passages' side of the loss is their
sentence vectors instead of one vector each."""
import json
import math
import os

import numpy as np
import torch

from dcsr.python.dcsr_batch import Sampler
from dcsr.python.dcsr_eval import dev_recall
from dcsr.python.dcsr_model import SENTENCE_ONNX, check_sentence_encoder, export_sentence_encoder, gather_markers, sentence_nll
from pytrain.checkpoint import save_encoder
from pytrain.errors import InputError
from pytrain.gradcache import Side, chunk_rows, pair_step
from pytrain.loop import epoch_slices
from pytrain.onnx_export import check_with_onnxruntime, export_encoder
from pytrain.tensors import to_batch
from pytrain.training import Training
from training.dpr.trainer import recall_key, train_biencoder


def sentence_side(p_model, max_markers):
    """The passages' side of the loss: a chunk (ids, mask, types, markers) -> [rows, markers, hidden]."""
    return Side(p_model, lambda c: gather_markers(p_model.hidden_states(c[0], c[1], c[2]), c[3]),
                (max_markers, p_model.config.hidden_size))


class DcsrTask:
    partial_loss = False  # every process computes the loss of the whole gathered batch

    def __init__(self, models, inputs, cfg, device, amp, group):
        self.models, self.inputs, self.cfg, self.device, self.amp, self.group = models, inputs, cfg, device, amp, group
        self.sampler = Sampler(inputs, cfg, cfg["seed"])
        self.sides = (Side(models[0]), sentence_side(models[1], cfg["max_markers"]))
        self.step_fn = pair_step(cfg["grad_cache_chunk"])
        self.steps_per_epoch = math.ceil(len(inputs.pos) / cfg["batch_size"])

    def batches(self, epoch):
        return epoch_slices(self.cfg["seed"], epoch, len(self.inputs.pos), self.cfg["batch_size"])

    def _chunks(self, idx, rows):
        """This process's queries and distinct passages as device chunks (each trimmed to its longest row)."""
        inp, chunk = self.inputs, self.cfg["grad_cache_chunk"]
        qa, qb = self.group.slice(len(idx))
        pa, pb = self.group.slice(len(rows))
        q_rows, p_rows = np.asarray(idx[qa:qb]), np.asarray(rows[pa:pb], dtype=np.int64)
        q = [to_batch(np.asarray(inp.query_ids[q_rows[s:e]]), None, self.device) for s, e in chunk_rows(len(q_rows), chunk)]
        p = []
        for s, e in chunk_rows(len(p_rows), chunk):
            sel = p_rows[s:e]
            types = None if inp.passage_types is None else np.asarray(inp.passage_types[sel])
            markers = torch.as_tensor(np.asarray(inp.markers[sel], dtype=np.int64), device=self.device)
            p.append((*to_batch(np.asarray(inp.passage_ids[sel]), types, self.device), markers))
        return q, p

    def step(self, idx):
        cols, mask = self.sampler.batch(idx)
        rows = sorted({r for r, _ in cols})
        at = {r: i for i, r in enumerate(rows)}
        pick = (torch.as_tensor([at[r] for r, _ in cols], device=self.device), torch.as_tensor([s for _, s in cols], device=self.device))
        chunks = self._chunks(idx, rows)
        counts = (self.group.counts(len(idx)), self.group.counts(len(rows)))

        def gather(q, p):
            return self.group.gather_rows(q, counts[0]), self.group.gather_rows(p, counts[1])

        def loss(q, p):
            return sentence_nll(q, p[pick[0], pick[1]], mask)[0]

        return self.step_fn(self.sides, chunks, loss, self.amp.autocast, self.amp.scale, gather)

    def evaluate(self):
        r, counted = dev_recall(self.models[0], self.models[1], self.inputs, self.cfg, self.device)
        return r, {recall_key(self.cfg): r, "dev_queries": counted}

    def counters(self):
        return {"fallback_negatives": self.sampler.fallbacks, "in_passage_fallbacks": self.sampler.in_passage_fallbacks}


def train(cfg, inputs, out_dir, device, log, emit, vocab=None, group=None):
    """Trains, writes the outputs and result.json; returns the result (None in a data-parallel
    process other than the first)."""
    if inputs.markers.shape[1] != cfg["max_markers"]:
        raise InputError(f"the collection has {inputs.markers.shape[1]} marker slots, the config max_markers {cfg['max_markers']}",
                         field="max_markers", fix="tokenize with the same maxMarkers")
    run = Training(cfg, device, out_dir, log, emit, group)
    return train_biencoder(run, DcsrTask, inputs, vocab, lambda q, p, best: write_outputs(q, p, cfg, out_dir, best, log, vocab, inputs.marker_id))


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
