"""The program's config keys (checked by pytrain/config.py): generated from steps/qa/config-schema.ts by scripts/gen-python.ts; do not edit."""

from training.dpr.config_schema import SCHEMA as _BASE

_SHARED = ["adam_eps", "threads", "progress_every", "allow_pickle", "attention", "onnx_opset"]
_OWN = {
    "weight_decay": {
        "kind": "number",
        "default": 0,
        "min": 0,
        "doc": "AdamW weight decay, on weights only (not biases, not norm weights)",
    },
    "warmup_ratio": {
        "kind": "number",
        "default": 0,
        "min": 0,
        "max": 1,
        "maxExclusive": True,
        "doc": "linear warm-up over ceil(ratio x steps), then linear decay to 0",
    },
    "clip": {
        "kind": "number",
        "default": 1,
        "min": 0,
        "minExclusive": True,
        "doc": "gradient-norm clip",
    },
    "epochs": {
        "kind": "int",
        "default": 10,
        "min": 0,
        "doc": "epochs to train; the epoch with the best dev EM is kept, ties broken by dev F1, then the earlier (0 = export the initial model)",
    },
    "start_is_candidate": {
        "kind": "bool",
        "default": False,
        "doc": "score the initial model on dev as epoch 0 and keep it unless an epoch beats it (for a start that already answers: an earlier reader)",
    },
    "seed": {
        "kind": "int",
        "default": 42,
        "doc": "seeds a random init, the example order and the passage sampling",
    },
    "device": {
        "kind": "enum",
        "values": ["auto", "cpu", "cuda"],
        "default": "auto",
        "doc": "auto = cuda when torch sees a GPU",
    },
    "world_size": {
        "kind": "int?",
        "default": None,
        "min": 1,
        "doc": "data-parallel processes (one per GPU, launched by the trainer itself); null = one per visible CUDA device, 1 on CPU. The global batch stays batch_size: each process computes its share of the batch's loss",
    },
    "grad_cache_chunk": {
        "kind": "int?",
        "default": None,
        "min": 1,
        "doc": "questions per chunk of a step's forward and backward pass (the loss is a sum over questions, so each chunk backpropagates its share on its own: the same gradients with one chunk's activations in memory; null = the whole batch at once)",
    },
    "activation_checkpointing": {
        "kind": "bool",
        "default": False,
        "doc": "recompute each encoder layer's activations during the backward pass instead of keeping them: the same gradients, about a third more compute",
    },
    "deterministic": {
        "kind": "bool",
        "default": True,
        "doc": "torch.use_deterministic_algorithms",
    },
    "eval_batch_size": {
        "kind": "int",
        "default": 64,
        "min": 1,
        "doc": "sequences per forward pass in the dev evaluation",
    },
    "dev_questions": {
        "kind": "int",
        "default": 0,
        "min": 0,
        "doc": "dev questions scored per epoch for model selection (0 = all)",
    },
    "lr": {
        "kind": "number",
        "default": 0.00001,
        "min": 0,
        "minExclusive": True,
        "doc": "AdamW learning rate",
    },
    "batch_size": {
        "kind": "int",
        "default": 16,
        "min": 1,
        "doc": "questions per step",
    },
    "passages_per_question": {
        "kind": "int",
        "default": 24,
        "min": 2,
        "doc": "passages read per training question: 1 with the answer + the rest without, sampled from the top N",
    },
    "max_answer_length": {
        "kind": "int",
        "default": 10,
        "min": 1,
        "doc": "longest answer in tokens (the paper: 30 on QReCC)",
    },
    "eval_top_docs": {
        "kind": "int",
        "default": 50,
        "min": 1,
        "doc": "passages the reader ranks at inference (and in the dev evaluation)",
    },
    "amp": {
        "kind": "enum",
        "values": ["fp16", "bf16", "none"],
        "default": "fp16",
        "doc": "mixed precision on CUDA only; CPU trains in float32",
    },
    "export_onnx": {
        "kind": "bool",
        "default": True,
        "doc": "export the reader to ONNX with parity fixtures (Node answers with it)",
    },
}

SCHEMA = {"fields": {k: _BASE["fields"][k] if k in _SHARED else _OWN[k] for k in ["weight_decay", "warmup_ratio", "clip", "adam_eps", "epochs", "start_is_candidate", "seed", "device", "threads", "world_size", "grad_cache_chunk", "activation_checkpointing", "deterministic", "eval_batch_size", "dev_questions", "progress_every", "allow_pickle", "lr", "batch_size", "passages_per_question", "max_answer_length", "eval_top_docs", "amp", "attention", "export_onnx", "onnx_opset"]}, "init_kinds": {
        "random": {
            "required": [],
            "optional": ["bert_config"],
        },
        "checkpoint": {
            "required": ["path"],
            "optional": [],
        },
        "bert": {
            "required": ["path"],
            "optional": [],
        },
    }}
