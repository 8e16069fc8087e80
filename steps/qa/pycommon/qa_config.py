"""A reader's config JSON checked against its generated schema (steps/qa/config-schema.ts is the
one source): defaults, types, ranges, unknown keys as errors, and the `init` union."""
from collections import Counter
import json
import os


class QaInputError(Exception):
    """Bad input: the program prints one line `error: <file>: field '<f>': <what> Fix: <how>` and exits 2."""

    def __init__(self, message, file=None, field=None, fix=None):
        where = ": ".join(x for x in (file, f"field '{field}'" if field else None) if x)
        text = f"{where}: {message}" if where else message
        if fix:
            text += f" Fix: {fix}"
        super().__init__(text)


def load_schema(program_dir):
    with open(os.path.join(program_dir, "config_schema.json"), encoding="utf-8") as f:
        return json.load(f)


def _check(key, field, v, path):
    kind = field["kind"]
    if kind == "int?" and v is None:
        return
    if kind == "bool":
        if not isinstance(v, bool):
            raise QaInputError(f"expected a boolean, got {type(v).__name__}", path, key)
        return
    if kind == "enum":
        if v not in field["values"]:
            raise QaInputError(f"{v!r} is not one of {', '.join(field['values'])}", path, key)
        return
    numeric = int if kind in ("int", "int?") else (int, float)
    if isinstance(v, bool) or not isinstance(v, numeric):
        raise QaInputError(f"expected {'an integer' if numeric is int else 'a number'}, got {v!r}", path, key)
    lo, hi = field.get("min"), field.get("max")
    if lo is not None and (v <= lo if field.get("minExclusive") else v < lo):
        raise QaInputError(f"must be {'>' if field.get('minExclusive') else '>='} {lo}, got {v!r}", path, key)
    if hi is not None and (v >= hi if field.get("maxExclusive") else v > hi):
        raise QaInputError(f"must be {'<' if field.get('maxExclusive') else '<='} {hi}, got {v!r}", path, key)


def load_config(path, schema, init_override=None):
    """The validated config; `init_override` (from a command-line flag) replaces a missing `init`."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except FileNotFoundError:
        raise QaInputError("config file not found", path) from None
    except json.JSONDecodeError as e:
        raise QaInputError(f"not valid JSON (line {e.lineno}: {e.msg})", path) from None
    if not isinstance(raw, dict):
        raise QaInputError("config must be a JSON object", path)
    fields, kinds = schema["fields"], schema["init_kinds"]
    known = set(fields) | {"init"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise QaInputError(f"unknown key(s) {', '.join(unknown)}", path, unknown[0], f"valid keys: {', '.join(sorted(known))}")
    if init_override is not None:
        if raw.get("init") is not None:
            raise QaInputError("both an init flag and the config's init are given", path, "init", "drop one of them")
        raw["init"] = init_override
    cfg = {**{k: f["default"] for k, f in fields.items()}, **raw}
    for key, field in fields.items():
        _check(key, field, cfg[key], path)
    init = cfg.get("init")
    if not isinstance(init, dict) or init.get("kind") not in kinds:
        raise QaInputError(f"init must be an object with kind one of {', '.join(kinds)}", path, "init")
    spec = kinds[init["kind"]]
    extra = sorted(set(init) - {"kind", *spec["required"], *spec["optional"]})
    if extra:
        raise QaInputError(f"unknown key(s) {', '.join(extra)} for init kind {init['kind']!r}", path, f"init.{extra[0]}")
    for k in spec["required"]:
        if not isinstance(init.get(k), str):
            raise QaInputError(f"init kind {init['kind']!r} needs a path string", path, f"init.{k}")
    return cfg


def threads(flag, cfg_threads):
    """CPU threads: --threads, else config `threads`, else env CSPIPE_TORCH_THREADS, else 1."""
    if flag is not None:
        return flag
    if cfg_threads is not None:
        return cfg_threads
    try:
        return max(1, int(os.environ.get("CSPIPE_TORCH_THREADS", "1")))
    except ValueError:
        return 1


def normalize_answer(s):
    """SQuAD normalisation, as steps/qa/scoring.ts (the test holds both to the same strings)."""
    import re  # noqa: PLC0415
    import string  # noqa: PLC0415
    t = s.lower()
    t = "".join(ch for ch in t if ch not in set(string.punctuation))
    t = re.sub(r"\b(a|an|the)\b", " ", t)
    return " ".join(t.split())


def exact_match(golds, prediction):
    p = normalize_answer(prediction)
    return max((1.0 if normalize_answer(g) == p else 0.0) for g in golds) if golds else 0.0


def token_f1(golds, prediction):
    """SQuAD token F1 (multiset overlap of the normalised tokens), max over the gold answers: steps/qa/scoring.ts's tokenF1."""
    p = normalize_answer(prediction).split()

    def one(gold):
        g = normalize_answer(gold).split()
        if not g or not p:
            return 1.0 if len(g) == len(p) else 0.0
        same = sum((Counter(g) & Counter(p)).values())
        if same == 0:
            return 0.0
        precision, recall = same / len(p), same / len(g)
        return 2 * precision * recall / (precision + recall)
    return max(one(g) for g in golds) if golds else 0.0


def dev_score(golds_per_question, predictions):
    """Mean EM and F1 of predictions[i] against golds_per_question[i] (the dev split's model-selection score)."""
    n = len(predictions)
    em = sum(exact_match(golds_per_question[i], a) for i, a in enumerate(predictions))
    f1 = sum(token_f1(golds_per_question[i], a) for i, a in enumerate(predictions))
    return {"em": em / max(1, n), "f1": f1 / max(1, n), "questions": n}


def better_dev(score, kept):
    """The model-selection rule of both readers: a checkpoint replaces the kept one when its dev EM is
    higher, or equal with a higher dev F1 (QReCC's sentence answers leave EM at 0 for every epoch of a
    small reader, so EM alone would keep the first epoch by default); a full tie keeps the earlier one."""
    return kept is None or (score["em"], score["f1"]) > (kept["em"], kept["f1"])


def linear_schedule(total_steps, warmup):
    def f(step):
        if step < warmup:
            return float(step + 1) / float(max(1, warmup))
        return max(0.0, float(total_steps - step) / float(max(1, total_steps - warmup)))
    return f
