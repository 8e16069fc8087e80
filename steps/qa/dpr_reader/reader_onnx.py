"""ONNX export of the reader with parity fixtures for the Node side (onnxruntime-node).

Contract: inputs input_ids, attention_mask (int64 [batch, seq]); outputs start_logits,
end_logits (float32 [batch, seq]) and relevance_logits (float32 [batch]); opset 14.
"""
import copy
import inspect
import os

import numpy as np
import torch

INPUTS = ["input_ids", "attention_mask"]
OUTPUTS = ["start_logits", "end_logits", "relevance_logits"]


def fixture(vocab_size, seed, batch=3, seq=13):
    rng = np.random.default_rng(int(seed))
    ids = rng.integers(1, vocab_size, size=(batch, seq)).astype(np.int64)
    for r in range(batch):
        ids[r, max(3, seq - 4 * r):] = 0
    return {"input_ids": ids, "attention_mask": (ids != 0).astype(np.int64)}


def export_reader(model, path, opset, seed, log):
    m = copy.deepcopy(model).float().cpu().eval()
    dummy = fixture(m.config.vocab_size, seed, batch=2, seq=7)
    kwargs = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    axes = {n: {0: "batch", 1: "seq"} for n in INPUTS + OUTPUTS[:2]}
    axes["relevance_logits"] = {0: "batch"}
    with torch.no_grad():
        torch.onnx.export(m, tuple(torch.as_tensor(dummy[n]) for n in INPUTS), path, input_names=INPUTS, output_names=OUTPUTS,
                          dynamic_axes=axes, opset_version=opset, do_constant_folding=True, **kwargs)
    fx = fixture(m.config.vocab_size, seed + 1)
    with torch.no_grad():
        outs = m(*(torch.as_tensor(fx[n]) for n in INPUTS))
    d = os.path.join(os.path.dirname(path), "parity", "reader")
    os.makedirs(d, exist_ok=True)
    for n in INPUTS:
        np.save(os.path.join(d, f"{n}.npy"), fx[n])
    for n, t in zip(OUTPUTS, outs):
        np.save(os.path.join(d, f"{n}.npy"), t.numpy().astype(np.float32))
    log(f"exported {os.path.basename(path)} (opset {opset}); parity fixtures in {os.path.relpath(d, os.path.dirname(path))}")
    return d
