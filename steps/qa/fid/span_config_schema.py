"""The program's config keys (checked by pytrain/config.py): generated from steps/qa/fid/span-config.ts by scripts/gen-python.ts; do not edit."""

from qa.fid.config_schema import SCHEMA as _BASE

_SHARED = ["weight_decay", "warmup_ratio", "clip", "adam_eps", "seed", "device", "threads", "world_size", "activation_checkpointing", "deterministic", "progress_every", "attention"]
_OWN = {
    "epochs": {
        "kind": "int",
        "default": 4,
        "min": 0,
        "doc": "epochs over the collection, new noise masks each; the epoch with the lowest dev loss is kept (0 = export the initial model)",
    },
    "grad_cache_chunk": {
        "kind": "int?",
        "default": None,
        "min": 1,
        "doc": "passages per chunk of a step's forward and backward pass (the loss is a sum over target tokens, so each chunk backpropagates its share on its own: the same gradients with one chunk's activations in memory; null = the whole batch at once)",
    },
    "eval_batch_size": {
        "kind": "int",
        "default": 64,
        "min": 1,
        "doc": "passages per forward pass in the dev loss",
    },
    "lr": {
        "kind": "number",
        "default": 0.001,
        "min": 0,
        "minExclusive": True,
        "doc": "AdamW learning rate",
    },
    "batch_size": {
        "kind": "int",
        "default": 32,
        "min": 1,
        "doc": "passages per step",
    },
    "amp": {
        "kind": "enum",
        "values": ["bf16", "none"],
        "default": "bf16",
        "doc": "mixed precision on CUDA only (bf16: T5 v1.0 overflows in fp16); CPU trains in float32",
    },
    "noise_density": {
        "kind": "number",
        "default": 0.15,
        "min": 0,
        "max": 1,
        "minExclusive": True,
        "maxExclusive": True,
        "doc": "fraction of each passage's tokens corrupted (T5: 0.15)",
    },
    "mean_span_length": {
        "kind": "number",
        "default": 3,
        "min": 1,
        "doc": "mean length of a corrupted span in tokens (T5: 3)",
    },
    "sentinels": {
        "kind": "int",
        "default": 32,
        "min": 2,
        "doc": "sentinel ids added above the vocabulary (T5's <extra_id_i> is id vocab - 1 - i); at least the most spans a passage gets, plus one",
    },
}

SCHEMA = {"fields": {k: _BASE["fields"][k] if k in _SHARED else _OWN[k] for k in ["weight_decay", "warmup_ratio", "clip", "adam_eps", "epochs", "seed", "device", "threads", "world_size", "grad_cache_chunk", "activation_checkpointing", "deterministic", "eval_batch_size", "progress_every", "lr", "batch_size", "amp", "attention", "noise_density", "mean_span_length", "sentinels"]}, "init_kinds": {
        "random": {
            "required": [],
            "optional": ["t5_config"],
        },
    }}
