"""Small pure computations exposed for the tests (JSON on stdin, one `RESULT <json>` line out)."""
import json
import sys

import torch

from qa_config import normalize_answer
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
}


def run_selftest(name, stdin):
    if name not in TESTS:
        sys.stderr.write(f"error: unknown selftest {name!r} (known: {', '.join(sorted(TESTS))})\n")
        return 2
    sys.stdout.write("RESULT " + json.dumps(TESTS[name](json.loads(stdin or "{}"))) + "\n")
    return 0
