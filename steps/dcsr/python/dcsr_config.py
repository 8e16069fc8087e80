"""The DCSR trainer's config JSON: defaults, types and checks from config_schema.json (generated
from steps/dcsr/config-schema.ts, the one source). Field checks are the DPR trainer's own
(`config._check_field`), so both trainers refuse the same values the same way."""
import json
import os

from config import INIT_KINDS, _check_field  # noqa: PLC2701 - the DPR trainer's field check, shared on purpose
from errors import TrainingInputError

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config_schema.json")
with open(_PATH, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)
FIELDS = SCHEMA["fields"]
DEFAULTS = {**{k: f["default"] for k, f in FIELDS.items()}, "init": None}


def _fail(msg, path, field, fix=None):
    raise TrainingInputError(msg, file=path, field=field, fix=fix)


def validate_config(raw, path="<config>"):
    if not isinstance(raw, dict):
        _fail("config must be a JSON object", path, None)
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        _fail(f"unknown key(s) {', '.join(unknown)}", path, unknown[0], f"valid keys: {', '.join(sorted(DEFAULTS))}")
    cfg = {**DEFAULTS, **raw}
    for key, field in FIELDS.items():
        _check_field(key, field, cfg[key], path)
    init = cfg["init"]
    if not isinstance(init, dict) or init.get("kind") not in INIT_KINDS:
        _fail("init must be an object with kind " + " | ".join(INIT_KINDS), path, "init")
    spec = INIT_KINDS[init["kind"]]
    extra = sorted(set(init) - {"kind", *spec["required"], *spec["optional"]})
    if extra:
        _fail(f"unknown key(s) {', '.join(extra)} for init kind {init['kind']!r}", path, f"init.{extra[0]}")
    base = os.path.dirname(os.path.abspath(path)) if path != "<config>" else os.getcwd()
    for k in spec["required"]:
        if not isinstance(init.get(k), str):
            _fail(f"init kind {init['kind']!r} needs a path string", path, f"init.{k}")
        init[k] = os.path.join(base, init[k])
    return cfg


def load_config(path, init_from=None, vocab_size=None):
    """Reads and validates the config; `init_from` (a DPR or DCSR model directory) replaces
    `init` with its two encoders; `vocab_size` fills a random init's bert_config.vocab_size."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except FileNotFoundError:
        _fail("config file not found", path, None)
    except json.JSONDecodeError as e:
        _fail(f"not valid JSON (line {e.lineno}: {e.msg})", path, None)
    if isinstance(raw, dict) and init_from is not None:
        if raw.get("init") is not None:
            _fail("both --init-from and init are given", path, "init", "drop one of them")
        raw["init"] = {"kind": "checkpoint",
                       "query_path": os.path.abspath(os.path.join(init_from, "query_encoder.safetensors")),
                       "passage_path": os.path.abspath(os.path.join(init_from, "passage_encoder.safetensors"))}
    if isinstance(raw, dict) and vocab_size is not None and isinstance(raw.get("init"), dict) and raw["init"].get("kind") == "random":
        from bert_model import TINY_BERT  # noqa: PLC0415
        bert = dict(raw["init"].get("bert_config") or TINY_BERT)
        bert.setdefault("vocab_size", vocab_size)
        raw["init"] = {**raw["init"], "bert_config": bert}
    return validate_config(raw, path)
