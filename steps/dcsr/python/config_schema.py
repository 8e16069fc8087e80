"""The program's config keys (checked by pytrain/config.py): generated from steps/dcsr/config-schema.ts by scripts/gen-python.ts; do not edit."""

from training.dpr.config_schema import SCHEMA as _BASE

_SHARED = ["lr", "weight_decay", "warmup_ratio", "clip", "adam_eps", "epochs", "patience", "min_delta", "batch_size", "seed", "device", "amp", "threads", "deterministic", "eval_batch_size", "eval_before_training", "eval_every", "recall_k", "select", "progress_every", "save_checkpoint", "export_onnx", "onnx_opset", "parity_check_transformers", "allow_pickle", "world_size", "grad_cache_chunk", "activation_checkpointing", "attention"]
_OWN = {
    "in_passage_negatives": {
        "kind": "int",
        "default": 1,
        "min": 0,
        "max": 1,
        "doc": "a sentence of the positive passage that neither contains the answer nor neighbours one that does, per example (DCSR: 1; 0 = the '+1/+2 BM25 random' ablations); where the passage has none, a sentence of a negative passage stands in",
    },
    "negative_sentences": {
        "kind": "int",
        "default": 1,
        "min": 1,
        "max": 2,
        "doc": "mined negatives per example: one random sentence from each of this many mined passages (BM25 negatives), or this many mined sentences (DCSR x IHN)",
    },
    "dev_top_m": {
        "kind": "int",
        "default": 3000,
        "min": 1,
        "doc": "model selection: sentences of the dev collection retrieved per dev query before the HasAns passage ranking",
    },
    "max_markers": {
        "kind": "int",
        "default": 10,
        "min": 1,
        "doc": "marker slots per passage; must equal the width of the tokens' markers.npy",
    },
}

SCHEMA = {"fields": {k: _BASE["fields"][k] if k in _SHARED else _OWN[k] for k in ["lr", "weight_decay", "warmup_ratio", "clip", "adam_eps", "epochs", "patience", "min_delta", "batch_size", "seed", "device", "amp", "threads", "deterministic", "eval_batch_size", "eval_before_training", "eval_every", "recall_k", "select", "progress_every", "save_checkpoint", "export_onnx", "onnx_opset", "parity_check_transformers", "allow_pickle", "world_size", "grad_cache_chunk", "activation_checkpointing", "attention", "in_passage_negatives", "negative_sentences", "dev_top_m", "max_markers"]}, "init_kinds": _BASE["init_kinds"]}
