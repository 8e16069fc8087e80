"""Small pure computations exposed for the tests (JSON on stdin, one `RESULT <json>` line out)."""
import json
import sys

import torch

from qa_config import better_dev, dev_score, normalize_answer, token_f1
from reader_model import selection_loss, span_loss
from spans import best_passage, best_span


def _span_loss(a):
    el = torch.as_tensor(a["eligible"], dtype=torch.bool)
    return float(span_loss(torch.as_tensor(a["start"], dtype=torch.float64), torch.as_tensor(a["end"], dtype=torch.float64),
                           el, torch.as_tensor(a["spans"], dtype=torch.long)))


TESTS = {
    "span_loss": _span_loss,
    "selection_loss": lambda a: float(selection_loss(torch.as_tensor(a["relevance"], dtype=torch.float64))),
    "best_span": lambda a: best_span(a["start"], a["end"], a["words"], a["max"]),
    "best_passage": lambda a: best_passage(a["relevance"]),
    "normalize": lambda a: [normalize_answer(s) for s in a["texts"]],
    "token_f1": lambda a: [token_f1(golds, p) for golds, p in a["pairs"]],
    "dev_score": lambda a: dev_score(a["golds"], a["predictions"]),
    "better_dev": lambda a: [better_dev(score, kept) for score, kept in a["pairs"]],
}


def _batch(items):
    """[[name, arg], ...] -> one result each ({"error": message} for bad input): one interpreter start for many checks."""
    from qa_config import QaInputError  # noqa: PLC0415
    out = []
    for name, arg in items:
        try:
            out.append(TESTS[name](arg))
        except QaInputError as e:
            out.append({"error": " ".join(str(e).split())})
    return out


def run_selftest(name, stdin):
    if name == "batch":
        sys.stdout.write("RESULT " + json.dumps(_batch(json.loads(stdin))) + "\n")
        return 0
    if name not in TESTS:
        sys.stderr.write(f"error: unknown selftest {name!r} (known: {', '.join(sorted(TESTS))})\n")
        return 2
    sys.stdout.write("RESULT " + json.dumps(TESTS[name](json.loads(stdin or "{}"))) + "\n")
    return 0
