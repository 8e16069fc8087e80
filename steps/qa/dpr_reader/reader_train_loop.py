"""The reader's training loop, dev EM model selection and outputs (see train_reader.py)."""
import json
import math
import os
import random
import time

import numpy as np
import torch

from data import ReaderInputs, pair, strip
from device import pick_device
from kept import KeptCheckpoint
from qa_config import QaInputError, dev_score, linear_schedule, load_config, load_schema, threads
from reader_model import build_reader, save_reader, selection_loss, span_loss
from reader_onnx import export_reader
from spans import answer_text, best_passage, best_span

HERE = os.path.dirname(os.path.abspath(__file__))
NO_DECAY = ("bias", "LayerNorm.weight")


def log(msg):
    import sys  # noqa: PLC0415
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def emit(line):
    import sys  # noqa: PLC0415
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _pad(seqs):
    n = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), n), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.as_tensor(s, dtype=torch.long)
    return ids, (ids != 0).long()


class Sampler:
    """Per question: 1 positive (has the answer and a span that survives the cut) + negatives."""

    def __init__(self, inputs, cfg):
        self.inp, self.cfg = inputs, cfg
        self.rng = np.random.default_rng([int(cfg["seed"]), 2])
        self.max_length = int(inputs.meta["maxLength"])
        self.skipped = 0

    def question(self, q):
        tr, inp = self.inp.train, self.inp
        question = strip(tr.question_ids[q])
        cands = [int(c) for c in tr.candidates[q] if c >= 0]
        pos, neg = [], []
        for j, row in enumerate(cands):
            (pos if tr.has_answer[q, j] else neg).append((j, row))
        seqs, spans_of_pos, eligible_of_pos = [], None, None
        order = list(self.rng.permutation(len(pos))) if pos else []
        for k in order:
            j, row = pos[k]
            ids, off, eligible, _ = pair(question, strip(inp.passage_ids[row]), inp.passage_word[row], self.max_length, inp.sep)
            sp = [(int(s) + off, int(e) + off) for s, e in tr.spans[q, j] if s >= 0 and e + off < len(ids) and eligible[e + off] and eligible[s + off]]
            if sp:
                seqs.append(ids)
                spans_of_pos, eligible_of_pos = sp, eligible
                break
        if not seqs:
            self.skipped += 1
            return None
        take = self.cfg["passages_per_question"] - 1
        for k in list(self.rng.permutation(len(neg)))[:take]:
            ids, _, _, _ = pair(question, strip(inp.passage_ids[neg[k][1]]), inp.passage_word[neg[k][1]], self.max_length, inp.sep)
            seqs.append(ids)
        return seqs, spans_of_pos, eligible_of_pos


def reader_loss(model, batch, device):
    """Mean over the batch's questions of selection CE + span marginal likelihood."""
    seqs = [s for b in batch for s in b[0]]
    ids, mask = _pad(seqs)
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


@torch.no_grad()
def answer(model, inp, q, cfg, device, split):
    """The model's answer to one question of `split` over its top eval_top_docs candidates."""
    question = strip(split.question_ids[q])
    cands = [int(c) for c in split.candidates[q] if c >= 0][:cfg["eval_top_docs"]]
    if not cands:
        return ""
    pairs = [pair(question, strip(inp.passage_ids[r]), inp.passage_word[r], int(inp.meta["maxLength"]), inp.sep) for r in cands]
    starts, ends, rels = [], [], []
    for i in range(0, len(pairs), cfg["eval_batch_size"]):
        ids, mask = _pad([p[0] for p in pairs[i:i + cfg["eval_batch_size"]]])
        s, e, r = model(ids.to(device), mask.to(device))
        starts += [x.float().cpu().tolist() for x in s]
        ends += [x.float().cpu().tolist() for x in e]
        rels += r.float().cpu().tolist()
    b = best_passage(rels)
    _, off, _, words = pairs[b]
    span = best_span(starts[b][off:], ends[b][off:], words, cfg["max_answer_length"])
    if span is None:
        return ""
    text, word_spans = inp.dev_texts[cands[b]]
    return answer_text(span[0], span[1], words, text, word_spans)


def dev_eval(model, inp, cfg, device):
    """EM and F1 of the model's answers to the first dev_questions dev questions (0 = all)."""
    model.eval()
    n = len(inp.dev_answers) if cfg["dev_questions"] == 0 else min(cfg["dev_questions"], len(inp.dev_answers))
    score = dev_score(inp.dev_answers, [answer(model, inp, q, cfg, device, inp.dev) for q in range(n)])
    model.train()
    return score


def run(args):
    cfg = load_config(args.config, load_schema(HERE), _init_flag(args))
    torch.set_num_threads(threads(args.threads, cfg["threads"]))
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"] % (2 ** 32))
    torch.manual_seed(cfg["seed"])
    if cfg["deterministic"]:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    device = pick_device(cfg["device"])  # the trainers' one rule: a GPU step fails at once without one
    inp = ReaderInputs(args.inputs)
    model, load_report = build_reader(cfg["init"], cfg["seed"], int(inp.meta["vocabSize"]), cfg["allow_pickle"], log)
    _check_vocab(cfg["init"], inp)
    if model.config.vocab_size < int(inp.meta["vocabSize"]):
        raise QaInputError(f"the vocabulary has {inp.meta['vocabSize']} tokens, the model's embedding table {model.config.vocab_size}", args.inputs, fix="tokenize with the vocabulary the initial model was trained with")
    model.to(device).train()
    amp = torch.bfloat16 if device.type == "cuda" and cfg["amp"] == "bf16" else (torch.float16 if device.type == "cuda" and cfg["amp"] == "fp16" else None)
    scaler = torch.cuda.amp.GradScaler(enabled=amp == torch.float16)
    os.makedirs(args.out, exist_ok=True)
    nq = inp.train.question_ids.shape[0]
    steps_per_epoch = math.ceil(nq / cfg["batch_size"])
    total = steps_per_epoch * cfg["epochs"]
    groups = [{"params": [p for n, p in model.named_parameters() if not n.endswith(NO_DECAY)], "weight_decay": cfg["weight_decay"]},
              {"params": [p for n, p in model.named_parameters() if n.endswith(NO_DECAY)], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=cfg["lr"], eps=cfg["adam_eps"])
    sched = torch.optim.lr_scheduler.LambdaLR(opt, linear_schedule(total, int(math.ceil(total * cfg["warmup_ratio"]))))
    sampler = Sampler(inp, cfg)
    t0 = time.time()
    kept = KeptCheckpoint(args.out, emit)
    step = 0
    if cfg["start_is_candidate"]:  # epoch 0: the starting reader, kept unless an epoch scores better
        kept.record(0, dev_eval(model, inp, cfg, device), {"train_loss": None, "steps": 0, "skipped_questions": 0, "seconds": round(time.time() - t0, 3)}, model)
    emit(f"PROGRESS 0 {total}")
    for epoch in range(1, cfg["epochs"] + 1):
        order = np.random.default_rng([int(cfg["seed"]), epoch]).permutation(nq)
        losses = []
        for s in range(steps_per_epoch):
            batch = [b for b in (sampler.question(int(q)) for q in order[s * cfg["batch_size"]:(s + 1) * cfg["batch_size"]]) if b is not None]
            if batch:
                with torch.autocast(device_type=device.type, dtype=amp, enabled=amp is not None):
                    loss = reader_loss(model, batch, device)
                scaler.scale(loss).backward()
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
                scaler.step(opt)
                scaler.update()
                losses.append(float(loss.detach()))
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            if step % cfg["progress_every"] == 0 or step == total:
                emit(f"PROGRESS {step} {total}")
        kept.record(epoch, dev_eval(model, inp, cfg, device), {"train_loss": float(np.mean(losses)) if losses else None,
                                                                "steps": step, "skipped_questions": sampler.skipped, "seconds": round(time.time() - t0, 3)}, model)
    kept.restore(model)
    model.cpu().eval()
    cpu = torch.device("cpu")  # the kept epoch's dev answers, in float32 on CPU (what the ONNX export answers)
    n_dev = len(inp.dev_answers) if cfg["dev_questions"] == 0 else min(cfg["dev_questions"], len(inp.dev_answers))
    with open(os.path.join(args.out, "dev_predictions.json"), "w", encoding="utf-8") as f:
        json.dump([answer(model, inp, q, cfg, cpu, inp.dev) for q in range(n_dev)], f)
    own = {"format": "dpr-reader/1", "best_epoch": kept.epoch or 0, "vocab_digest": inp.meta.get("vocabDigest"),
           "max_length": int(inp.meta["maxLength"]), "max_question_length": int(inp.meta["maxQuestionLength"]), "max_answer_length": cfg["max_answer_length"], "eval_top_docs": cfg["eval_top_docs"]}
    save_reader(model, args.out, own)
    outputs = ["reader.safetensors", "config.json", "dev_predictions.json"]
    if cfg["export_onnx"]:
        export_reader(model, os.path.join(args.out, "reader.onnx"), cfg["onnx_opset"], cfg["seed"], log)
        outputs += ["reader.onnx", "parity/reader"]
    result = {**kept.result(),
              "steps": step, "train_questions": nq, "skipped_questions": sampler.skipped, "seconds": round(time.time() - t0, 3),
              "torch_version": torch.__version__, "device": str(device), "threads": torch.get_num_threads(), "load_report": load_report, "outputs": outputs}
    with open(os.path.join(args.out, "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, sort_keys=True)
    log(f"done: best epoch {result['best_epoch']}, dev EM {result['dev_em']}, {result['seconds']} s")


def _init_flag(args):
    if args.init_from and args.init_bert:
        raise QaInputError("both --init-from and --init-bert are given", fix="pass one of them")
    if args.init_from:
        return {"kind": "checkpoint", "path": os.path.abspath(args.init_from)}
    if args.init_bert:
        return {"kind": "bert", "path": os.path.abspath(args.init_bert)}
    return None


def _check_vocab(init, inp):
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
        raise QaInputError(f"vocabulary mismatch: the inputs were tokenized with {inp.meta['vocabDigest'][:12]}…, {what} with {recorded[:12]}…",
                           conf, "cspipe.vocab_digest", f"tokenize the reader inputs with {what}'s vocabulary (for θ0: the vocabulary θ0 was trained with)")
