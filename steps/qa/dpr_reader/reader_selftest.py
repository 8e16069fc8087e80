"""Small pure computations exposed for the tests (pytrain/selftest.py's protocol: JSON on stdin,
one `RESULT <json>` line out; `batch` runs several)."""
from types import SimpleNamespace

import torch

from qa.dpr_reader.reader_model import selection_loss, span_loss
from qa.dpr_reader.spans import best_passage, best_span
from qa.em_f1 import dev_score, normalize_answer, token_f1
from qa.reading import em_f1_selector


def _span_loss(a):
    el = torch.as_tensor(a["eligible"], dtype=torch.bool)
    return float(span_loss(torch.as_tensor(a["start"], dtype=torch.float64), torch.as_tensor(a["end"], dtype=torch.float64),
                           el, torch.as_tensor(a["spans"], dtype=torch.long)))


def _replaces(score, kept):
    """Whether the readers' rule keeps `score` over an epoch that scored `kept` (None: nothing kept yet)."""
    rule = em_f1_selector()
    if kept is not None:
        rule.observe(0, (kept["em"], kept["f1"]))
    return rule.observe(1, (score["em"], score["f1"])).kept


TESTS = {
    "span_loss": _span_loss,
    "selection_loss": lambda a: float(selection_loss(torch.as_tensor(a["relevance"], dtype=torch.float64))),
    "best_span": lambda a: best_span(a["start"], a["end"], a["words"], a["max"]),
    "best_passage": lambda a: best_passage(a["relevance"]),
    "normalize": lambda a: [normalize_answer(s) for s in a["texts"]],
    "token_f1": lambda a: [token_f1(golds, p) for golds, p in a["pairs"]],
    "dev_score": lambda a: dev_score(a["golds"], a["predictions"]),
    "selection": lambda a: [_replaces(score, kept) for score, kept in a["pairs"]],
}


def _features_task(seed, chunk, group, checkpointing):
    """A tiny reader task (pytrain/checks.py's factory): 6 questions, 3 candidate passages each, one with the answer."""
    import numpy as np  # noqa: PLC0415
    from pytrain.amp import Amp  # noqa: PLC0415
    from pytrain.model_configs import BertConfig  # noqa: PLC0415
    from qa.dpr_reader.reader_model import Reader  # noqa: PLC0415
    from qa.dpr_reader.reader_trainer import ReaderTask  # noqa: PLC0415
    sep, n = 3, 6
    rows = np.array([[7, 8, sep, 10 + j, 11 + j, 12 + j, 13, sep] for j in range(n * 3)], dtype=np.int32)
    words = np.tile(np.array([-1, -1, -1, 0, 1, 2, 3, -1], dtype=np.int32), (n * 3, 1))
    spans = np.full((n, 3, 2, 2), -1, dtype=np.int32)
    spans[:, 0, 0] = [3, 4]
    train = SimpleNamespace(question_ids=np.array([[2, 20 + q, 21, sep] for q in range(n)], dtype=np.int32),
                            candidates=np.arange(n * 3, dtype=np.int32).reshape(n, 3), has_answer=np.tile(np.array([1, 0, 0], dtype=np.int8), (n, 1)), spans=spans)
    inp = SimpleNamespace(meta={"maxLength": 16}, passage_ids=rows, passage_word=words, sep=sep, train=train)
    cfg = {"seed": seed, "passages_per_question": 2, "batch_size": n, "grad_cache_chunk": chunk}
    model = Reader(BertConfig.from_dict({"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 32,
                                         "max_position_embeddings": 32, "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}))
    model.encoder.init_weights(seed)
    model.init_heads(seed).configure(attention="math", checkpointing=checkpointing).train()
    return ReaderTask(model, inp, cfg, torch.device("cpu"), Amp("none", torch.device("cpu"), lambda _m: None), group), list(range(n))


def _features(a):
    import os  # noqa: PLC0415
    from pytrain.checks import features  # noqa: PLC0415
    return features(_features_task, a, os.path.dirname(os.path.abspath(__file__)))


TESTS["features"] = _features
