"""cspipe's Python training package: what the trainers (training/dpr, dcsr/python, qa/dpr_reader,
qa/fid) and the GPU encoder share. A trainer is a small task on top of it (loop.py says what a
task provides). Modules:
    program      stdout protocol, exit codes, the check that torch/numpy import
    run          setup_run: threads, device, seeds (every program calls it first)
    config       the one config validator (schemas generated from the TypeScript sources)
    errors       InputError, the one bad-input error
    loop         the epoch loop (no per-step host sync); selection: which epoch is kept
    optim, amp   AdamW + linear schedule + the step after backward; mixed precision
    gradcache    one-graph, gradient-cache and chunked steps; distributed: data parallel
    features     attention kernel, activation checkpointing; metrics: metrics.jsonl, result.json
    bert_model, model_configs (generated), hf_config, checkpoint, safetensors_np, onnx_export,
    hf_parity, vocab_identity, provenance, tensors, selftest
"""
