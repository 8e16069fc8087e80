"""The program's config keys (checked by pytrain/config.py): generated from steps/qa/config-schema.ts by scripts/gen-python.ts; do not edit."""

from qa.dpr_reader.config_schema import SCHEMA as _BASE

_SHARED = ["warmup_ratio", "clip", "adam_eps", "epochs", "start_is_candidate", "seed", "device", "threads", "world_size", "grad_cache_chunk", "activation_checkpointing", "deterministic", "dev_questions", "progress_every", "allow_pickle"]
_OWN = {
    "weight_decay": {
        "kind": "number",
        "default": 0.01,
        "min": 0,
        "doc": "AdamW weight decay, on weights only (not norm weights)",
    },
    "eval_batch_size": {
        "kind": "int",
        "default": 8,
        "min": 1,
        "doc": "questions per batch in the dev evaluation and prediction",
    },
    "lr": {
        "kind": "number",
        "default": 0.0001,
        "min": 0,
        "minExclusive": True,
        "doc": "AdamW learning rate",
    },
    "batch_size": {
        "kind": "int",
        "default": 1,
        "min": 1,
        "doc": "questions per step (each with n_context passages)",
    },
    "n_context": {
        "kind": "int",
        "default": 50,
        "min": 1,
        "doc": "passages per question (the paper: top 50)",
    },
    "answer_max_length": {
        "kind": "int",
        "default": 100,
        "min": 1,
        "doc": "longest target and greedy decoding length in tokens, eos included",
    },
    "amp": {
        "kind": "enum",
        "values": ["bf16", "fp16", "none"],
        "default": "bf16",
        "doc": "mixed precision on CUDA only (bf16: T5 v1.0 overflows in fp16); CPU trains in float32",
    },
    "attention": {
        "kind": "enum",
        "values": ["auto", "sdpa", "math"],
        "default": "auto",
        "doc": "auto = torch's fused scaled_dot_product_attention where torch has it (>= 2.0), with the relative position bias as its additive mask; else the explicit float32 softmax (math)",
    },
}

SCHEMA = {"fields": {k: _BASE["fields"][k] if k in _SHARED else _OWN[k] for k in ["weight_decay", "warmup_ratio", "clip", "adam_eps", "epochs", "start_is_candidate", "seed", "device", "threads", "world_size", "grad_cache_chunk", "activation_checkpointing", "deterministic", "eval_batch_size", "dev_questions", "progress_every", "allow_pickle", "lr", "batch_size", "n_context", "answer_max_length", "amp", "attention"]}, "init_kinds": {
        "random": {
            "required": [],
            "optional": ["t5_config"],
        },
        "checkpoint": {
            "required": ["path"],
            "optional": [],
        },
        "hf-t5": {
            "required": ["path"],
            "optional": [],
        },
    }}
