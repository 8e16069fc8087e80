"""The program's config keys (checked by pytrain/config.py): generated from steps/qa/fid/span-config.ts by scripts/gen-python.ts; do not edit."""

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
            "default": 4,
            "min": 0,
            "doc": "epochs over the collection, new noise masks each; the epoch with the lowest dev loss is kept (0 = export the initial model)",
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
            "doc": "passages per chunk of a step's forward and backward pass (the loss is a sum over target tokens, so each chunk backpropagates its share on its own: the same gradients with one chunk's activations in memory; null = the whole batch at once)",
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
            "doc": "passages per forward pass in the dev loss",
        },
        "progress_every": {
            "kind": "int",
            "default": 10,
            "min": 1,
            "doc": "steps between PROGRESS lines",
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
        "attention": {
            "kind": "enum",
            "values": ["auto", "sdpa", "math"],
            "default": "auto",
            "doc": "auto = torch's fused scaled_dot_product_attention where torch has it (>= 2.0), with the relative position bias as its additive mask; else the explicit float32 softmax (math)",
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
    },
    "init_kinds": {
        "random": {
            "required": [],
            "optional": ["t5_config"],
        },
    },
}
