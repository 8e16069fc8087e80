"""The training config JSON: defaults, types and checks (unknown keys are errors, to catch typos)."""
import json
import os

from errors import TrainingInputError


def _load_schema():
    """The config keys, generated from steps/training/config-schema.ts (the one source)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config_schema.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


SCHEMA = _load_schema()
FIELDS = SCHEMA["fields"]
INIT_KINDS = SCHEMA["init_kinds"]
DEFAULTS = {**{k: f["default"] for k, f in FIELDS.items()}, "init": None}


def _fail(msg, path, field, fix=None):
    raise TrainingInputError(msg, file=path, field=field, fix=fix)


def load_config(path, init_from=None, vocab_size=None, init_hf_dpr=None):
    """Reads and validates the config. `init_from` (a directory written by an earlier run of
    this trainer) replaces `init` with its two encoders; `init_hf_dpr` (a directory holding the
    HF DPR model directories question_encoder/ and ctx_encoder/) replaces it with those;
    `vocab_size` fills a random init's missing `bert_config.vocab_size` (the tokenizer's
    vocabulary decides it, not the config)."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except FileNotFoundError:
        _fail("config file not found", path, None)
    except json.JSONDecodeError as e:
        _fail(f"not valid JSON (line {e.lineno}: {e.msg})", path, None)
    if init_from is not None and init_hf_dpr is not None:
        _fail("both --init-from and --init-hf-dpr are given", path, "init",
              "pass one of them: --init-from DIR (an earlier run's --out) or --init-hf-dpr DIR (HF DPR checkpoint)")
    if isinstance(raw, dict) and init_from is not None:
        if raw.get("init") is not None:
            _fail("both --init-from and init are given", path, "init", "drop one of them")
        raw["init"] = {"kind": "checkpoint",
                       "query_path": os.path.abspath(os.path.join(init_from, "query_encoder.safetensors")),
                       "passage_path": os.path.abspath(os.path.join(init_from, "passage_encoder.safetensors"))}
    if isinstance(raw, dict) and init_hf_dpr is not None:
        if raw.get("init") is not None:
            _fail("both --init-hf-dpr and init are given", path, "init",
                  "drop the config's init or the --init-hf-dpr flag")
        raw["init"] = {"kind": "hf-dpr",
                       "question_encoder_path": os.path.abspath(os.path.join(init_hf_dpr, "question_encoder")),
                       "ctx_encoder_path": os.path.abspath(os.path.join(init_hf_dpr, "ctx_encoder"))}
    if isinstance(raw, dict) and vocab_size is not None and isinstance(raw.get("init"), dict) and raw["init"].get("kind") == "random":
        from bert_model import TINY_BERT  # noqa: PLC0415
        bert = dict(raw["init"].get("bert_config") or TINY_BERT)
        bert.setdefault("vocab_size", vocab_size)
        raw["init"] = {**raw["init"], "bert_config": bert}
    return validate_config(raw, path)


def _check_field(key, field, v, path):
    """One key against its schema entry: type, choices and range."""
    kind = field["kind"]
    if kind == "int?" and v is None:
        return
    if kind == "bool":
        if not isinstance(v, bool):
            _fail(f"expected a boolean, got {type(v).__name__}", path, key)
        return
    if kind == "enum":
        if v not in field["values"]:
            _fail(f"{v!r} is not one of {', '.join(field['values'])}", path, key)
        return
    numeric = int if kind in ("int", "int?") else (int, float)
    if isinstance(v, bool) or not isinstance(v, numeric):
        _fail(f"expected {'an integer' if numeric is int else 'a number'}, got {v!r}", path, key)
    lo, hi = field.get("min"), field.get("max")
    if lo is not None and (v <= lo if field.get("minExclusive") else v < lo):
        _fail(f"must be {'>' if field.get('minExclusive') else '>='} {lo}, got {v!r}", path, key)
    if hi is not None and (v >= hi if field.get("maxExclusive") else v > hi):
        _fail(f"must be {'<' if field.get('maxExclusive') else '<='} {hi}, got {v!r}", path, key)


def validate_config(raw, path="<config>"):
    if not isinstance(raw, dict):
        _fail("config must be a JSON object", path, None)
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        _fail(f"unknown key(s) {', '.join(unknown)}", path, unknown[0], f"valid keys: {', '.join(sorted(DEFAULTS))}")
    cfg = {**DEFAULTS, **raw}
    for key, field in FIELDS.items():
        _check_field(key, field, cfg[key], path)
    if not isinstance(cfg["init"], dict):
        _fail("expected an object", path, "init", 'e.g. {"kind": "random"}')
    init = cfg["init"]
    kind = init.get("kind")
    if kind not in INIT_KINDS:
        _fail(f"init.kind {kind!r} is not one of {', '.join(INIT_KINDS)}", path, "init.kind")
    spec = INIT_KINDS[kind]
    allowed = {"kind", *spec["required"], *spec["optional"]}
    for k in spec["required"]:
        if not isinstance(init.get(k), str):
            _fail(f"init kind {kind!r} needs a path string", path, f"init.{k}")
    extra = sorted(set(init) - allowed)
    if extra:
        _fail(f"unknown key(s) {', '.join(extra)} for init kind {kind!r}", path, f"init.{extra[0]}")
    base = os.path.dirname(os.path.abspath(path)) if path != "<config>" else os.getcwd()
    for k in spec["required"]:
        init[k] = os.path.join(base, init[k])  # relative paths are relative to the config file
    return cfg
