"""FiD as a task of the package's epoch loop (pytrain/loop.py): teacher-forced token
cross-entropy of the answer given the question's n_context passages; after each epoch the dev
questions are answered by greedy decoding and the epoch with the best dev EM is kept (ties: F1,
then the earlier). The loss is a mean over the batch's target tokens, so a step's questions split
into chunks (`grad_cache_chunk`) and over data-parallel processes, each backpropagating its
tokens' share. Also prediction (fid.py predict)."""
import json
import math
import os
import time

import numpy as np
import torch

from pytrain.errors import InputError
from pytrain.gradcache import accumulate_step, shares
from pytrain.loop import epoch_slices
from pytrain.optim import T5_NO_DECAY
from pytrain.training import Training
from qa.fid.fid_io import Decoder, build_model, npy, read_json, save_model
from qa.reading import dev_limit, em_f1_selector, scored, selection_result


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


class FidInputs:
    def __init__(self, d):
        self.meta = read_json(os.path.join(d, "meta.json"))
        self.decode = Decoder(read_json(os.path.join(d, "pieces.json")))
        self.train_ids = npy(os.path.join(d, "train", "input_ids.npy"), 3)
        self.train_labels = npy(os.path.join(d, "train", "labels.npy"), 2)
        self.dev_ids = npy(os.path.join(d, "dev", "input_ids.npy"), 3)
        self.dev_answers = read_json(os.path.join(d, "dev", "answers.json"))
        if self.train_labels.shape[0] != self.train_ids.shape[0]:
            raise InputError(f"{self.train_labels.shape[0]} label rows for {self.train_ids.shape[0]} questions", os.path.join(d, "train", "labels.npy"))


class FidTask:
    partial_loss = True  # each process's loss is its tokens' share of the batch's

    def __init__(self, model, inp, cfg, device, amp, group):
        self.models, self.inp, self.cfg, self.device, self.amp, self.group = (model,), inp, cfg, device, amp, group
        self.n = inp.train_ids.shape[0]
        self.steps_per_epoch = math.ceil(self.n / cfg["batch_size"])

    def batches(self, epoch):
        return [np.sort(rows) for rows in epoch_slices(self.cfg["seed"], epoch, self.n, self.cfg["batch_size"])]

    def _loss(self, rows):
        x, m = _batch(self.inp.train_ids, rows, self.cfg["n_context"], self.device)
        labels = torch.as_tensor(np.asarray(self.inp.train_labels[rows]), dtype=torch.long, device=self.device)
        return self.models[0].loss(x, m, labels)

    def step(self, rows):
        tokens = (np.asarray(self.inp.train_labels[rows]) != -100).sum(axis=1)
        parts = [(rows[at], share) for at, share in shares(tokens, self.group, self.cfg["grad_cache_chunk"])]
        return accumulate_step(parts, self._loss, self.amp.autocast, self.amp.scale, self.device)

    def evaluate(self):
        cfg, inp = self.cfg, self.inp
        limit = dev_limit(cfg, inp.dev_ids.shape[0])
        answers = answer_all(self.models[0], inp.dev_ids, cfg["n_context"], cfg["answer_max_length"], cfg["eval_batch_size"], inp.decode, self.device, limit)
        self.models[0].train()
        return scored(inp.dev_answers, answers)

    def counters(self):
        return {}


def train(cfg, inputs_dir, out_dir, device, log, emit, group=None):
    """Trains, writes the outputs and result.json; returns the result (None in a data-parallel
    process other than the first)."""
    run = Training(cfg, device, out_dir, log, emit, group)
    inp = FidInputs(inputs_dir)
    model, report = build_model(cfg["init"], cfg["seed"], int(inp.meta["vocabSize"]), cfg["allow_pickle"])
    check_vocab(cfg["init"], inp.meta)
    if model.config.vocab_size < int(inp.meta["vocabSize"]):
        raise InputError(f"the vocabulary has {inp.meta['vocabSize']} pieces, the model's embedding {model.config.vocab_size}", inputs_dir,
                         fix="tokenize with the initial model's SentencePiece model")
    run.configure((model,))
    task = FidTask(model, inp, cfg, device, run.amp, run.group)
    fit = run.fit(task, em_f1_selector(), "candidate" if cfg["start_is_candidate"] else None, no_decay=T5_NO_DECAY)
    return run.finish(fit, lambda: write_outputs(model.cpu().eval(), inp, cfg, out_dir, fit.best_epoch), **selection_result(fit, run.writer),
                      train_questions=task.n, load_report=report)


def write_outputs(model, inp, cfg, out_dir, best_epoch):
    """The kept model's dev answers (on CPU) and its checkpoint."""
    limit = dev_limit(cfg, inp.dev_ids.shape[0])
    with open(os.path.join(out_dir, "dev_predictions.json"), "w", encoding="utf-8") as f:
        json.dump(answer_all(model, inp.dev_ids, cfg["n_context"], cfg["answer_max_length"], cfg["eval_batch_size"], inp.decode, torch.device("cpu"), limit), f)
    own = {"format": "fid-t5/1", "best_epoch": best_epoch or 0, "vocab_digest": inp.meta.get("vocabDigest"), "n_context": cfg["n_context"],
           "answer_max_length": cfg["answer_max_length"]}
    save_model(model, out_dir, own)
    return ["fid.safetensors", "config.json", "dev_predictions.json", "metrics.jsonl"]


def predict(model_dir, inputs_dir, out, batch, log):
    """Greedy answers of a trained FiD to prepared questions, one JSON line each ({qid, prediction})."""
    conf = read_json(os.path.join(model_dir, "config.json"))
    own = conf.get("cspipe", {})
    meta = read_json(os.path.join(inputs_dir, "meta.json"))
    if own.get("vocab_digest") and meta.get("vocabDigest") and own["vocab_digest"] != meta["vocabDigest"]:
        raise InputError("the inputs were tokenized with another vocabulary than the model's", os.path.join(inputs_dir, "meta.json"), "vocabDigest",
                         "tokenize with the model's SentencePiece model")
    model, _ = build_model({"kind": "checkpoint", "path": model_dir}, 0, int(meta["vocabSize"]), False)
    model.eval()
    ids = npy(os.path.join(inputs_dir, "input_ids.npy"), 3)
    qids = read_json(os.path.join(inputs_dir, "qids.json"))
    decode = Decoder(read_json(os.path.join(inputs_dir, "pieces.json")))
    t0 = time.time()
    answers = answer_all(model, ids, int(own.get("n_context", ids.shape[1])), int(own.get("answer_max_length", 100)), batch, decode, torch.device("cpu"))
    with open(out, "w", encoding="utf-8") as f:
        for qid, a in zip(qids, answers):
            f.write(json.dumps({"qid": qid, "prediction": a}) + "\n")
    log(f"{len(answers)} answers in {time.time() - t0:.1f} s")


def check_vocab(init, meta):
    if init["kind"] != "checkpoint" or not meta.get("vocabDigest"):
        return
    recorded = read_json(os.path.join(init["path"], "config.json")).get("cspipe", {}).get("vocab_digest")
    if recorded and recorded != meta["vocabDigest"]:
        raise InputError("vocabulary mismatch between the inputs and the initial FiD model", os.path.join(init["path"], "config.json"), "cspipe.vocab_digest",
                         "tokenize with the initial model's SentencePiece model")
