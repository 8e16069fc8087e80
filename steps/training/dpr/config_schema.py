"""The program's config keys (checked by pytrain/config.py): generated from steps/training/config-schema.ts by scripts/gen-python.ts; do not edit."""

SCHEMA = {
    "fields": {
        "lr": {
            "kind": "number",
            "default": 0.00003,
            "min": 0,
            "minExclusive": True,
            "doc": "AdamW learning rate",
        },
        "weight_decay": {
            "kind": "number",
            "default": 0.1,
            "min": 0,
            "doc": "AdamW weight decay, on weights only (not biases, not LayerNorm weights)",
        },
        "warmup_ratio": {
            "kind": "number",
            "default": 0.1,
            "min": 0,
            "max": 1,
            "maxExclusive": True,
            "doc": "linear warm-up over ceil(ratio x steps), then linear decay to 0 at the planned last step",
        },
        "clip": {
            "kind": "number",
            "default": 2,
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
            "doc": "epochs to train (the most, with patience); 0 = export the initial encoders without training",
        },
        "patience": {
            "kind": "int",
            "default": 0,
            "min": 0,
            "doc": "stop after this many epochs without a dev Recall@k gain of at least min_delta over the best so far (0 = train every epoch)",
        },
        "min_delta": {
            "kind": "number",
            "default": 0,
            "min": 0,
            "doc": "the smallest dev Recall@k gain (a fraction) that counts as progress for patience",
        },
        "batch_size": {
            "kind": "int",
            "default": 128,
            "min": 1,
            "doc": "queries per step (each brings its positive and n_hard_negatives passages)",
        },
        "n_hard_negatives": {
            "kind": "int",
            "default": 1,
            "min": 0,
            "doc": "mined negatives sampled per example per step (0 = in-batch negatives only)",
        },
        "seed": {
            "kind": "int",
            "default": 42,
            "doc": "seeds the initial weights of a random init, the example order of each epoch and the negatives stream",
        },
        "device": {
            "kind": "enum",
            "values": ["auto", "cpu", "cuda"],
            "default": "auto",
            "doc": "auto = cuda when torch sees a GPU; cuda fails at once without one (as does auto in a step that requires a GPU: env CSPIPE_DEVICE_HINT=cuda-required)",
        },
        "amp": {
            "kind": "enum",
            "values": ["fp16", "bf16", "none"],
            "default": "fp16",
            "doc": "mixed precision on CUDA only (fp16 + GradScaler, or bf16); similarities and the loss are always float32; CPU trains in float32",
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
            "doc": "data-parallel processes (DDP, one per GPU, launched with torchrun by the trainer itself); null = one per visible CUDA device, 1 on CPU. The global batch stays batch_size: each process encodes its slice and every example sees every in-batch negative",
        },
        "grad_cache_chunk": {
            "kind": "int?",
            "default": None,
            "min": 1,
            "doc": "GradCache: encode a step's sequences in chunks of this many, first without a graph, then again chunk by chunk to backpropagate the loss's gradients w.r.t. the embeddings; the same gradients with the activations of one chunk in memory (null = the whole batch in one graph)",
        },
        "activation_checkpointing": {
            "kind": "bool",
            "default": False,
            "doc": "recompute each BERT layer's activations during the backward pass instead of keeping them (torch.utils.checkpoint): the same gradients, about a third more compute",
        },
        "attention": {
            "kind": "enum",
            "values": ["auto", "sdpa", "math"],
            "default": "auto",
            "doc": "auto = torch's fused scaled_dot_product_attention where torch has it (>= 2.0), else the explicit softmax (math); the ONNX export always uses math",
        },
        "deterministic": {
            "kind": "bool",
            "default": True,
            "doc": "torch.use_deterministic_algorithms: the same inputs, seed and machine give the same weights",
        },
        "eval_batch_size": {
            "kind": "int",
            "default": 128,
            "min": 1,
            "doc": "batch of the dev encoding",
        },
        "eval_before_training": {
            "kind": "bool",
            "default": True,
            "doc": "dev Recall@k of the initial model as epoch 0 (logged, never selected)",
        },
        "eval_every": {
            "kind": "int",
            "default": 1,
            "min": 1,
            "doc": "dev Recall@k after every eval_every-th epoch and after the last; only those epochs can be selected or count for patience",
        },
        "recall_k": {
            "kind": "int",
            "default": 5,
            "min": 1,
            "doc": "the dev Recall@k logged per epoch (and, with select best, the score that selects)",
        },
        "select": {
            "kind": "enum",
            "values": ["best", "last"],
            "default": "best",
            "doc": "model selection: best = the epoch with the best dev Recall@k is kept (DPR's rule; a tie keeps the earlier); last = the last epoch is kept (patience must be 0)",
        },
        "mask_false_negatives": {
            "kind": "bool",
            "default": True,
            "doc": "a column whose passage is a gold passage of the query (other than its target) is masked out of the softmax",
        },
        "filter_gold_negatives": {
            "kind": "bool",
            "default": True,
            "doc": "gold passages are removed from the mined lists before sampling (false = the authors' released code)",
        },
        "progress_every": {
            "kind": "int",
            "default": 10,
            "min": 1,
            "doc": "steps between PROGRESS lines",
        },
        "save_checkpoint": {
            "kind": "bool",
            "default": True,
            "doc": "write the safetensors encoders and config.json",
        },
        "export_onnx": {
            "kind": "bool",
            "default": True,
            "doc": "export both encoders to ONNX with parity fixtures",
        },
        "onnx_opset": {
            "kind": "int",
            "default": 14,
            "min": 7,
            "doc": "ONNX opset of the export",
        },
        "parity_check_transformers": {
            "kind": "bool",
            "default": True,
            "doc": "compare with HF BertModel when transformers imports (else a logged note)",
        },
        "allow_pickle": {
            "kind": "bool",
            "default": False,
            "doc": ".bin checkpoints are read with torch.load(weights_only=True) unless true",
        },
    },
    "init_kinds": {
        "random": {
            "required": [],
            "optional": ["bert_config"],
        },
        "checkpoint": {
            "required": ["query_path", "passage_path"],
            "optional": ["bert_config", "query_prefix", "passage_prefix"],
        },
        "hf-dpr": {
            "required": ["question_encoder_path", "ctx_encoder_path"],
            "optional": ["bert_config"],
        },
    },
}
