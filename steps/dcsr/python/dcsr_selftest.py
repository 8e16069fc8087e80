"""Small checks the Node tests drive (pytrain/selftest.py's protocol: JSON on stdin, one
`RESULT <json>` line on stdout; `batch` runs several):

    sample  {labels, pos, gold, neg? | neg_rows?+neg_slots?, marked, n, in_passage, seed, draws} -> {draws: [[columns of each example]], fallbacks, in_passage_fallbacks}
    mask    {cols, pos_rows, labels, golds}           -> {mask}
    loss    {q, s, mask?}                              -> {loss, scores}
    export  {out, seed, vocab_size?, hidden?, layers?} -> {fixture, hidden}: a random tiny encoder's
            sentence_encoder.onnx with its parity fixture, and the full hidden states of the fixture
    dev     {passages, types?, markers, queries, gold, k, m, seed} -> {recall, counted}: dev_recall
            (model selection's HasAns Recall@k) of a random tiny encoder on that dev collection
"""
import os
from types import SimpleNamespace

import numpy as np
import torch

from dcsr.python.dcsr_batch import Sampler, column_mask
from dcsr.python.dcsr_eval import dev_recall
from dcsr.python.dcsr_model import SENTENCE_INPUTS, export_sentence_encoder, sentence_nll
from pytrain.bert_model import build_random
from pytrain.model_configs import BertConfig


class _Inputs:
    def __init__(self, a):
        self.pos = np.asarray(a["pos"], dtype=np.int64)
        self.labels = np.asarray(a["labels"], dtype=np.int64)
        self.gold = np.asarray(a["gold"], dtype=np.int64)
        self.neg = np.asarray(a["neg"], dtype=np.int64) if "neg" in a else None
        self.neg_rows = np.asarray(a["neg_rows"], dtype=np.int64) if "neg_rows" in a else None
        self.neg_slots = np.asarray(a["neg_slots"], dtype=np.int64) if "neg_slots" in a else None
        self.marked = np.asarray(a["marked"], dtype=np.int64)


def _sample(a):
    s = Sampler(_Inputs(a), {"negative_sentences": a["n"], "in_passage_negatives": a["in_passage"]}, a["seed"])
    draws = [[[list(map(int, c)) for c in s.example(i)[0]] for i in range(len(a["pos"]))] for _ in range(a["draws"])]
    return {"draws": draws, "fallbacks": s.fallbacks, "in_passage_fallbacks": s.in_passage_fallbacks}


def _mask(a):
    m = column_mask([tuple(c) for c in a["cols"]], a["pos_rows"], [np.asarray(l) for l in a["labels"]], [set(g) for g in a["golds"]])
    return {"mask": m.tolist()}


def _loss(a):
    loss, scores = sentence_nll(torch.tensor(a["q"], dtype=torch.float32), torch.tensor(a["s"], dtype=torch.float32),
                                np.asarray(a["mask"], dtype=bool) if "mask" in a else None)
    return {"loss": float(loss), "scores": [[x if np.isfinite(x) else None for x in r] for r in scores.tolist()]}


def _tiny(a):
    c = BertConfig.from_dict({"vocab_size": a.get("vocab_size", 60), "hidden_size": a.get("hidden", 16), "num_hidden_layers": a.get("layers", 2),
                              "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 32,
                              "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0})
    return build_random(c, a["seed"]).eval()


def _export(a):
    model = _tiny(a)
    os.makedirs(a["out"], exist_ok=True)
    fdir = export_sentence_encoder(model, os.path.join(a["out"], "sentence_encoder.onnx"), seed=a["seed"])
    fx = {n: torch.as_tensor(np.load(os.path.join(fdir, f"{n}.npy"))) for n in SENTENCE_INPUTS}
    with torch.no_grad():
        hidden = model.hidden_states(fx["input_ids"], fx["attention_mask"], fx["token_type_ids"]).numpy().astype(np.float32)
    np.save(os.path.join(a["out"], "hidden.npy"), hidden)
    return {"fixture": fdir, "hidden": os.path.join(a["out"], "hidden.npy")}


class _DevInputs:
    def __init__(self, a):
        self.dev_passage_ids = np.asarray(a["passages"], dtype=np.int32)
        self.dev_passage_types = np.asarray(a["types"], dtype=np.int32) if "types" in a else None
        self.dev_markers = np.asarray(a["markers"], dtype=np.int64)
        self.dev_query_ids = np.asarray(a["queries"], dtype=np.int32)
        self.dev_gold = np.asarray(a["gold"], dtype=np.int64)


def _dev(a):
    cfg = {"eval_batch_size": 2, "recall_k": a["k"], "dev_top_m": a["m"]}
    recall, counted = dev_recall(_tiny(a), _tiny({**a, "seed": a["seed"] + 1}), _DevInputs(a), cfg, torch.device("cpu"))
    return {"recall": float(recall), "counted": int(counted)}


TESTS = {"sample": _sample, "mask": _mask, "loss": _loss, "export": _export, "dev": _dev}


def _features_task(seed, chunk, group, checkpointing):
    """A tiny DCSR task (pytrain/checks.py's factory): 8 passages of up to 3 marked sentences, 6 queries."""
    from dcsr.python.dcsr_trainer import DcsrTask  # noqa: PLC0415
    from pytrain.amp import Amp  # noqa: PLC0415
    rng = np.random.default_rng(seed)
    inp = SimpleNamespace(passage_ids=rng.integers(6, 60, size=(8, 16)).astype(np.int32))
    inp.passage_ids[:, 12:] = 0
    inp.markers = np.array([[1, 5, 9], [1, 5, -1], [2, 6, 10]] * 3, dtype=np.int64)[:8]
    inp.passage_ids[np.arange(8)[:, None], np.clip(inp.markers, 0, None)] = 5
    inp.passage_types, inp.marked = None, (inp.markers >= 0).sum(axis=1)
    inp.query_ids = rng.integers(6, 60, size=(6, 8)).astype(np.int32)
    inp.pos = np.arange(6)
    inp.labels = np.array([[1, 0, 2], [0, 1, -1], [1, 2, 0]] * 2, dtype=np.int64)
    inp.gold = np.full((6, 1), -1)
    inp.neg, inp.neg_rows, inp.neg_slots = np.array([[(i + 1) % 8, (i + 3) % 8] for i in range(6)]), None, None
    cfg = {"seed": seed, "negative_sentences": 1, "in_passage_negatives": 1, "batch_size": 6, "grad_cache_chunk": chunk, "max_markers": 3}
    models = [_tiny({"seed": seed + k, "vocab_size": 60}).configure(attention="math", checkpointing=checkpointing).train() for k in (0, 1)]
    return DcsrTask(models, inp, cfg, torch.device("cpu"), Amp("none", torch.device("cpu"), lambda _m: None), group), list(range(6))


def _features(a):
    from pytrain.checks import features  # noqa: PLC0415
    return features(_features_task, a, os.path.dirname(os.path.abspath(__file__)))


TESTS["features"] = _features
