"""The self-test protocol the Node tests drive a program's pure computations through: JSON on
stdin, one `RESULT <json>` line on stdout. `batch` runs several in one process (torch imports
slowly): stdin [[name, arg], ...], result [result, ...], where a check that raises InputError
gives {"error": <its one-line message>}."""
import json

from pytrain.errors import InputError


def _one(tests, name, arg):
    if name not in tests:
        raise InputError(f"unknown selftest {name!r}", fix=f"one of {', '.join(sorted(tests))}, batch")
    return tests[name](arg)


def _batch(tests, items):
    out = []
    for name, arg in items:
        try:
            out.append(_one(tests, name, arg))
        except InputError as e:
            out.append({"error": " ".join(str(e).split())})
    return out


def run_selftest(tests, name, stdin_text, emit):
    arg = json.loads(stdin_text or "{}") if name != "batch" else json.loads(stdin_text or "[]")
    emit("RESULT " + json.dumps(_batch(tests, arg) if name == "batch" else _one(tests, name, arg)))
    return 0
