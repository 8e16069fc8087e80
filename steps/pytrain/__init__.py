"""cspipe's Python training package: what the trainers (training/dpr, dcsr/python, qa/dpr_reader,
qa/fid) and the GPU encoder share. A trainer is a small task on top of it (loop.py says what a
task provides). Modules, one a line:
  A program's edges
    program          stdout protocol, exit codes, the check that torch/numpy import
    train_program    a training program's command line and its tail once the config is loaded
    run              setup_run: threads, device, seeds (every program calls it first)
    config           the one config validator (schemas generated from the TypeScript sources)
    errors           InputError, the one bad-input error
    npy_inputs       input .npy files: memory-mapped, checked, each failure one InputError
    selftest         the self-test protocol the Node tests drive pure computations through
  Training
    training         what every trainer sets up around its task: amp, optimiser, metrics, loop
    loop             the epoch loop (no per-step host sync)
    selection        which epoch is kept and when the training stops
    optim            AdamW + the linear schedule + the step after backward
    amp              mixed precision (fp16 with a GradScaler, or bf16; float32 on CPU)
    gradcache        one-graph, gradient-cache and chunked steps
    distributed      data parallel on one machine's GPUs, keeping the one-process loss
    features         attention kernel and activation checkpointing, set from the config
    attention        the attention kernels: torch's fused sdpa or the explicit softmax
    checks           the GPU features checked on CPU (chunks, data parallel, checkpointing)
    tensors          token rows from host arrays to device tensors
    metrics          metrics.jsonl rows and result.json's common fields
    provenance       what the numbers depend on beyond inputs and config; plateau of a curve
  Models and weights
    bert_model       a compact BERT whose state_dict names equal Hugging Face's BertModel
    model_configs    the model configurations (generated from model-configs.ts; do not edit)
    hf_config        reading and writing Hugging Face config.json for model_configs
    checkpoint       encoder weights from the known checkpoint layouts, and writing ours
    safetensors_np   safetensors reader and writer in plain numpy
    onnx_export      ONNX export of one encoder, with parity fixtures for the Node side
    hf_parity        optional check against transformers' BertModel
    vocab_identity   which vocabulary token ids mean (the vocab digest), checked on input
"""
