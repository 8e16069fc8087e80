"""Small checks the Node tests drive: JSON on stdin, one `RESULT <json>` line on stdout.

    sample  {labels, pos, gold, neg? | neg_rows?+neg_slots?, marked, n, in_passage, seed, draws} -> {draws: [[columns of each example]], fallbacks, in_passage_fallbacks}
    mask    {cols, pos_rows, labels, golds}           -> {mask}
    loss    {q, s, mask?}                              -> {loss, scores}
    export  {out, seed, vocab_size?, hidden?, layers?} -> {fixture, hidden}: a random tiny encoder's
            sentence_encoder.onnx with its parity fixture, and the full hidden states of the fixture
    dev     {passages, types?, markers, queries, gold, k, m, seed} -> {recall, counted}: dev_recall
            (model selection's HasAns Recall@k) of a random tiny encoder on that dev collection
    batch   [{name, arg}, ...]                        -> [result, ...] (one process for several)
"""
import json
import os

import numpy as np
import torch

from bert_model import BertConfig, build_random
from dcsr_batch import Sampler, column_mask
from dcsr_eval import dev_recall
from dcsr_model import SENTENCE_INPUTS, export_sentence_encoder, sentence_nll


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


def _batch(a):
    """Several self-tests in one process (one torch import): [{name, arg}, ...] -> [result, ...]."""
    return [TESTS[t["name"]](t["arg"]) for t in a]


TESTS["batch"] = _batch


def run_selftest(name, stdin_text, emit):
    if name not in TESTS:
        raise SystemExit(f"unknown selftest {name!r}; known: {', '.join(sorted(TESTS))}")
    emit("RESULT " + json.dumps(TESTS[name](json.loads(stdin_text or "{}"))))
    return 0
