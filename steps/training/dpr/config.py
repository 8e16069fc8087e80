"""The training config JSON: defaults, types and checks (unknown keys are errors, to catch typos)."""
import json
import os

from errors import TrainingInputError

DEFAULTS = {
    "lr": 3e-5, "weight_decay": 0.1, "warmup_ratio": 0.1, "clip": 2.0, "adam_eps": 1e-8,
    "epochs": 10, "batch_size": 128, "n_hard_negatives": 1, "seed": 42,
    "device": "auto", "amp": "fp16", "threads": None,
    "eval_batch_size": 128, "eval_before_training": True, "recall_k": 5,
    "mask_false_negatives": True, "filter_gold_negatives": True, "progress_every": 10,
    "save_checkpoint": True, "export_onnx": True, "onnx_opset": 14,
    "parity_check_transformers": True, "allow_pickle": False,
    "init": None,
}
_NUMBER = (int, float)
TYPES = {
    "lr": _NUMBER, "weight_decay": _NUMBER, "warmup_ratio": _NUMBER, "clip": _NUMBER, "adam_eps": _NUMBER,
    "epochs": int, "batch_size": int, "n_hard_negatives": int, "seed": int, "device": str, "amp": str,
    "threads": (int, type(None)), "eval_batch_size": int, "eval_before_training": bool, "recall_k": int,
    "mask_false_negatives": bool, "filter_gold_negatives": bool, "progress_every": int, "save_checkpoint": bool, "export_onnx": bool,
    "onnx_opset": int, "parity_check_transformers": bool, "allow_pickle": bool, "init": dict,
}
INIT_KINDS = {
    "random": {"required": [], "optional": ["bert_config"]},
    "checkpoint": {"required": ["query_path", "passage_path"], "optional": ["bert_config", "query_prefix", "passage_prefix"]},
    "hf-dpr": {"required": ["question_encoder_path", "ctx_encoder_path"], "optional": ["bert_config"]},
}
CHOICES = {"device": ("auto", "cpu", "cuda"), "amp": ("fp16", "bf16", "none")}


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


def validate_config(raw, path="<config>"):
    if not isinstance(raw, dict):
        _fail("config must be a JSON object", path, None)
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        _fail(f"unknown key(s) {', '.join(unknown)}", path, unknown[0], f"valid keys: {', '.join(sorted(DEFAULTS))}")
    cfg = {**DEFAULTS, **raw}
    for key, typ in TYPES.items():
        v = cfg[key]
        if isinstance(v, bool) and typ in (_NUMBER, int):
            _fail(f"expected a number, got {v!r}", path, key)
        if not isinstance(v, typ):
            _fail(f"expected {getattr(typ, '__name__', 'a number or null')}, got {type(v).__name__}", path, key)
    for key, options in CHOICES.items():
        if cfg[key] not in options:
            _fail(f"{cfg[key]!r} is not one of {', '.join(options)}", path, key)
    for key in ("batch_size", "eval_batch_size", "recall_k", "progress_every"):
        if cfg[key] < 1:
            _fail("must be >= 1", path, key)
    if cfg["epochs"] < 0:
        _fail("must be >= 0 (0 = export the initial encoders without training)", path, "epochs")
    if cfg["n_hard_negatives"] < 0 or cfg["lr"] <= 0 or not 0 <= cfg["warmup_ratio"] < 1 or cfg["clip"] <= 0:
        _fail("out of range (n_hard_negatives >= 0, lr > 0, 0 <= warmup_ratio < 1, clip > 0)", path, "lr")
    if cfg["threads"] is not None and cfg["threads"] < 1:
        _fail("must be >= 1 or null", path, "threads")
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
