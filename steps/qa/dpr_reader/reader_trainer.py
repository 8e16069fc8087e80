"""The DPR reader as a task of the package's epoch loop (pytrain/loop.py): per step, questions of
the batch with 1 passage holding the answer and passages_per_question - 1 without; loss =
passage-selection cross-entropy + the spans' marginal likelihood, a mean over the questions. The
loss is a sum over questions, so a step's questions split into chunks (`grad_cache_chunk`) and
over data-parallel processes (`world_size`), each backpropagating its share."""
import json
import math
import os

import numpy as np
import torch

from pytrain.gradcache import accumulate_step, shares
from pytrain.errors import InputError
from pytrain.loop import epoch_slices
from pytrain.training import Training
from qa.dpr_reader.data import pair, strip
from qa.dpr_reader.reader_answers import answer, dev_reads, pad
from qa.dpr_reader.reader_model import build_reader, save_reader, selection_loss, span_loss
from qa.dpr_reader.reader_onnx import export_reader
from qa.reading import dev_limit, em_f1_selector, passage_fields, scored, selection_result


class Sampler:
    """Per question: 1 positive (has the answer and a span that survives the cut) + negatives."""

    def __init__(self, inputs, cfg):
        self.inp, self.cfg = inputs, cfg
        self.rng = np.random.default_rng([int(cfg["seed"]), 2])
        self.max_length = int(inputs.meta["maxLength"])
        self.skipped = 0

    def _positive(self, question, pos):
        """The first positive (in a random order) whose answer span survives the cut: (ids, spans, eligible)."""
        inp = self.inp
        for k in (list(self.rng.permutation(len(pos))) if pos else []):
            j, row, spans = pos[k]
            ids, off, eligible, _ = pair(question, strip(inp.passage_ids[row]), inp.passage_word[row], self.max_length, inp.sep)
            sp = [(int(s) + off, int(e) + off) for s, e in spans if s >= 0 and e + off < len(ids) and eligible[e + off] and eligible[s + off]]
            if sp:
                return ids, sp, eligible
        return None

    def question(self, q):
        tr, inp = self.inp.train, self.inp
        question = strip(tr.question_ids[q])
        cands = [int(c) for c in tr.candidates[q] if c >= 0]
        pos = [(j, row, tr.spans[q, j]) for j, row in enumerate(cands) if tr.has_answer[q, j]]
        neg = [(j, row) for j, row in enumerate(cands) if not tr.has_answer[q, j]]
        positive = self._positive(question, pos)
        if positive is None:
            self.skipped += 1
            return None
        seqs = [positive[0]]
        for k in list(self.rng.permutation(len(neg)))[:self.cfg["passages_per_question"] - 1]:
            seqs.append(pair(question, strip(inp.passage_ids[neg[k][1]]), inp.passage_word[neg[k][1]], self.max_length, inp.sep)[0])
        return seqs, positive[1], positive[2]


def reader_loss(model, batch, device):
    """Mean over the batch's questions of selection CE + span marginal likelihood."""
    seqs = [s for b in batch for s in b[0]]
    ids, mask = pad(seqs)
    start, end, rel = model(ids.to(device), mask.to(device))
    total, at = 0.0, 0
    for b_seqs, spans, eligible in batch:
        n = len(b_seqs)
        el = torch.zeros(ids.shape[1], dtype=torch.bool, device=device)
        el[:len(eligible)] = torch.as_tensor(eligible, device=device)
        sp = torch.as_tensor(spans, dtype=torch.long, device=device)
        total = total + selection_loss(rel[at:at + n].float()) + span_loss(start[at].float(), end[at].float(), el, sp)
        at += n
    return total / len(batch)


class ReaderTask:
    partial_loss = True  # each process's loss is its questions' share of the batch's

    def __init__(self, model, inp, cfg, device, amp, group):
        self.models, self.inp, self.cfg, self.device, self.amp, self.group = (model,), inp, cfg, device, amp, group
        self.sampler = Sampler(inp, cfg)
        self.n = inp.train.question_ids.shape[0]
        self.steps_per_epoch = math.ceil(self.n / cfg["batch_size"])

    def batches(self, epoch):
        return epoch_slices(self.cfg["seed"], epoch, self.n, self.cfg["batch_size"])

    def step(self, qs):
        batch = [b for b in (self.sampler.question(int(q)) for q in qs) if b is not None]  # the same in every process
        if not batch:
            return None
        parts = [(batch[at], share) for at, share in shares([1] * len(batch), self.group, self.cfg["grad_cache_chunk"])]
        return accumulate_step(parts, lambda part: reader_loss(self.models[0], part, self.device), self.amp.autocast, self.amp.scale, self.device)

    def evaluate(self):
        n = dev_limit(self.cfg, len(self.inp.dev_answers))
        reads = dev_reads(self.models[0], self.inp, self.cfg, self.device, n)
        score, fields = scored(self.inp.dev_answers, [text for text, _ in reads])
        return score, {**fields, **passage_fields(self.inp.dev_answers, reads, self.inp.dev.has_answer)}

    def counters(self):
        return {"skipped_questions": self.sampler.skipped}


def train(cfg, inp, out_dir, device, log, emit, group=None):
    """Trains, writes the outputs and result.json; returns the result (None in a data-parallel
    process other than the first)."""
    run = Training(cfg, device, out_dir, log, emit, group)
    model, load_report = build_reader(cfg["init"], cfg["seed"], int(inp.meta["vocabSize"]), cfg["allow_pickle"], log)
    check_vocab(cfg["init"], inp)
    if model.config.vocab_size < int(inp.meta["vocabSize"]):
        raise InputError(f"the vocabulary has {inp.meta['vocabSize']} tokens, the model's embedding table {model.config.vocab_size}", inp.dir,
                         fix="tokenize with the vocabulary the initial model was trained with")
    run.configure((model,))
    task = ReaderTask(model, inp, cfg, device, run.amp, run.group)
    fit = run.fit(task, em_f1_selector(), "candidate" if cfg["start_is_candidate"] else None)
    write = lambda: write_outputs(model.cpu().eval(), inp, cfg, out_dir, fit.best_epoch, log)  # noqa: E731
    diagnostics = {f"{k}_per_epoch": run.writer.per_epoch(k) for k in ("dev_right_passage", "dev_em_given_right_passage")}
    return run.finish(fit, write, **selection_result(fit, run.writer), **diagnostics, train_questions=task.n, skipped_questions=task.sampler.skipped, load_report=load_report)


def write_outputs(model, inp, cfg, out_dir, best_epoch, log):
    cpu = torch.device("cpu")  # the kept epoch's dev answers, in float32 on CPU (what the ONNX export answers)
    n_dev = dev_limit(cfg, len(inp.dev_answers))
    with open(os.path.join(out_dir, "dev_predictions.json"), "w", encoding="utf-8") as f:
        json.dump([answer(model, inp, q, cfg, cpu, inp.dev) for q in range(n_dev)], f)
    own = {"format": "dpr-reader/1", "best_epoch": best_epoch or 0, "vocab_digest": inp.meta.get("vocabDigest"),
           "max_length": int(inp.meta["maxLength"]), "max_question_length": int(inp.meta["maxQuestionLength"]),
           "max_answer_length": cfg["max_answer_length"], "eval_top_docs": cfg["eval_top_docs"]}
    save_reader(model, out_dir, own)
    outputs = ["reader.safetensors", "config.json", "dev_predictions.json"]
    if cfg["export_onnx"]:
        export_reader(model, os.path.join(out_dir, "reader.onnx"), cfg["onnx_opset"], cfg["seed"], log)
        outputs += ["reader.onnx", "parity/reader"]
    return outputs


def check_vocab(init, inp):
    """The inputs' vocabulary must be the initial model's where both record one: an earlier reader
    (`checkpoint`) or BERT weights whose config.json carries `cspipe.vocab_digest` (θ0's encoders
    on mini; Hugging Face's bert-base-uncased records none and is not checked here)."""
    if init["kind"] == "random" or not inp.meta.get("vocabDigest"):
        return
    path = init["path"]
    conf = os.path.join(path if os.path.isdir(path) else os.path.dirname(path), "config.json")
    if not os.path.isfile(conf):
        return  # build_reader has already refused an initial model without its config.json
    with open(conf, encoding="utf-8") as f:
        recorded = (json.load(f).get("cspipe") or {}).get("vocab_digest")
    what = "the initial reader" if init["kind"] == "checkpoint" else "the initial BERT"
    if recorded and recorded != inp.meta["vocabDigest"]:
        raise InputError(f"vocabulary mismatch: the inputs were tokenized with {inp.meta['vocabDigest'][:12]}…, {what} with {recorded[:12]}…",
                         conf, "cspipe.vocab_digest", f"tokenize the reader inputs with {what}'s vocabulary (for θ0: the vocabulary θ0 was trained with)")
