"""The program's config keys (checked by pytrain/config.py): generated from steps/qa/config-schema.ts by scripts/gen-python.ts; do not edit."""

SCHEMA = {
    "fields": {
        "weight_decay": {
            "kind": "number",
            "default": 0.01,
            "min": 0,
            "doc": "AdamW weight decay, on weights only (not norm weights)",
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
        "adam_eps": {
            "kind": "number",
            "default": 1e-8,
            "min": 0,
            "minExclusive": True,
            "doc": "AdamW epsilon",
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
        "threads": {
            "kind": "int?",
            "default": None,
            "min": 1,
            "doc": "CPU threads when the program is run by hand: --threads, else this, else env CSPIPE_THREADS (which the executors set from the step's cpus), else 1; steps never set it",
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
            "default": 8,
            "min": 1,
            "doc": "questions per batch in the dev evaluation and prediction",
        },
        "dev_questions": {
            "kind": "int",
            "default": 0,
            "min": 0,
            "doc": "dev questions scored per epoch for model selection (0 = all)",
        },
        "progress_every": {
            "kind": "int",
            "default": 10,
            "min": 1,
            "doc": "steps between PROGRESS lines",
        },
        "allow_pickle": {
            "kind": "bool",
            "default": False,
            "doc": ".bin checkpoints are read with torch.load(weights_only=True) unless true",
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
    },
    "init_kinds": {
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
    },
}
