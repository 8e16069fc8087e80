"""Span-corruption pre-training of the compact T5 (fid.py pretrain-span) as a task of the
package's epoch loop (pytrain/loop.py): the mini benchmark's stand-in for t5-base's own
pre-training, before FiD learns to answer.

Input directory (prepare-t5-span-corpus, steps/qa/fid/span-steps.ts):
    meta.json          {format, vocabDigest, vocabSize (SentencePiece pieces), padId 0, eosId 1, length, train, dev}
    pieces.json        the SentencePiece vocabulary
    train/tokens.npy   int32 [N, L] piece ids of one passage a row, 0-padded, no eos
    dev/tokens.npy     int32 [Nd, L]
The model's vocabulary is the pieces plus `sentinels` ids on top (span_corruption.py, rule 4).
Every epoch draws new noise masks for the training rows (seeded by seed and epoch); the dev rows
keep one set of masks, and the epoch with the lowest dev loss (token cross-entropy over every
dev target token) is kept: strictly lower replaces, ties keep the earlier. The loss is a mean
over target tokens: chunks and data-parallel processes backpropagate their tokens' share.
"""
import math
import os

import numpy as np
import torch

from pytrain.errors import InputError
from pytrain.gradcache import accumulate_step, shares
from pytrain.loop import epoch_slices
from pytrain.optim import T5_NO_DECAY
from pytrain.selection import BestEpoch
from pytrain.training import Training
from qa.fid.fid_io import build_model, npy, read_json, save_model
from qa.fid.span_corruption import corrupt, max_spans, noise_mask


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




class SpanCorpus:
    def __init__(self, d, cfg, config_path):
        self.meta = read_json(os.path.join(d, "meta.json"))
        self.train = np.asarray(npy(os.path.join(d, "train", "tokens.npy"), 2))
        self.dev = np.asarray(npy(os.path.join(d, "dev", "tokens.npy"), 2))
        if self.train.shape[0] == 0:
            raise InputError("no training rows", os.path.join(d, "train", "tokens.npy"))
        spans = max_spans(self.train.shape[1], cfg["noise_density"], cfg["mean_span_length"])
        if spans + 1 > cfg["sentinels"]:
            raise InputError(f"rows of {self.train.shape[1]} tokens get up to {spans} noise spans, which need {spans + 1} sentinels",
                             config_path, "sentinels", f"set sentinels >= {spans + 1}")
        self.eos_id = int(self.meta["eosId"])
        self.vocab_size = int(self.meta["vocabSize"]) + cfg["sentinels"]


class SpanTask:
    partial_loss = True  # each process's loss is its tokens' share of the batch's

    def __init__(self, model, corpus, cfg, device, amp, group):
        self.models, self.corpus, self.cfg, self.device, self.amp, self.group = (model,), corpus, cfg, device, amp, group
        self.steps_per_epoch = math.ceil(corpus.train.shape[0] / cfg["batch_size"])
        self.rng = None

    def batches(self, epoch):
        """The epoch's row slices; the noise masks come from a stream of (seed, epoch), drawn step by step."""
        self.rng = np.random.default_rng([int(self.cfg["seed"]), epoch, 1])
        return epoch_slices(self.cfg["seed"], epoch, self.corpus.train.shape[0], self.cfg["batch_size"])

    def _loss(self, xy):
        xt, yt = torch.as_tensor(xy[0], device=self.device), torch.as_tensor(xy[1], device=self.device)
        return self.models[0].loss(xt, (xt != 0).long(), yt)

    def step(self, rows):
        c = self.corpus
        x, y = corrupt_rows(c.train, rows, self.cfg, c.vocab_size, c.eos_id, self.rng)
        if x is None:
            return None
        parts = [((x[at], y[at]), share) for at, share in shares((y != -100).sum(axis=1), self.group, self.cfg["grad_cache_chunk"])]
        return accumulate_step(parts, self._loss, self.amp.autocast, self.amp.scale, self.device)

    def evaluate(self):
        dl = dev_loss(self.models[0], self.corpus.dev, self.cfg, self.corpus.vocab_size, self.corpus.eos_id, self.device)
        return dl, {"dev_loss": round(dl, 6)}

    def counters(self):
        return {}


def pretrain_span(cfg, corpus_dir, config_path, out_dir, device, log, emit, group=None):
    """Pre-trains, writes the model (a FiD checkpoint with one context) and result.json; returns
    the result (None in a data-parallel process other than the first)."""
    corpus = SpanCorpus(corpus_dir, cfg, config_path)
    init = cfg["init"]
    if init["kind"] != "random":
        raise InputError("span-corruption pre-training starts from a random T5", config_path, "init", "set init.kind to random")
    if "vocab_size" in (init.get("t5_config") or {}):
        raise InputError("the vocabulary size comes from the inputs and the sentinels", config_path, "init.t5_config.vocab_size", "drop it")
    model, report = build_model({"kind": "random", "t5_config": {**(init.get("t5_config") or {}), "vocab_size": corpus.vocab_size}},
                                cfg["seed"], corpus.vocab_size, False)
    run = Training(cfg, device, out_dir, log, emit, group)
    run.configure((model,))
    task = SpanTask(model, corpus, cfg, device, run.amp, run.group)
    fit = run.fit(task, BestEpoch(higher=False, name="dev loss"), no_decay=T5_NO_DECAY)
    own = {"format": "fid-t5/1", "objective": "span-corruption", "best_epoch": fit.best_epoch or 0, "vocab_digest": corpus.meta.get("vocabDigest"),
           "sentinels": cfg["sentinels"], "n_context": 1, "answer_max_length": 1}

    def write():
        save_model(model.cpu().eval(), out_dir, own)
        return ["fid.safetensors", "config.json", "metrics.jsonl"]

    return run.finish(fit, write, dev_loss=fit.best_score, dev_loss_per_epoch=run.writer.per_epoch("dev_loss"), train_rows=int(corpus.train.shape[0]),
                      dev_rows=int(corpus.dev.shape[0]), vocab_size=corpus.vocab_size, load_report=report)
