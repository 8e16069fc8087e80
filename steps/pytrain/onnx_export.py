"""ONNX export of one encoder, with parity fixtures for the Node (onnxruntime-node) side.

Contract: inputs input_ids, attention_mask, token_type_ids (int64 [batch, seq]);
output embedding (float32 [batch, hidden]); dynamic axes `batch` and `seq`; opset 14.
"""
import copy
import inspect
import os

import numpy as np
import torch

INPUT_NAMES = ["input_ids", "attention_mask", "token_type_ids"]
OUTPUT_NAME = "embedding"
PARITY_ATOL = 1e-4


class _Export(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(input_ids, attention_mask, token_type_ids)


def parity_inputs(vocab_size, type_vocab_size, seed, batch=3, seq=11):
    """Rows of different lengths (right-padded with 0), [CLS]-like id first, mixed token types."""
    rng = np.random.default_rng(int(seed))
    ids = rng.integers(1, vocab_size, size=(batch, seq)).astype(np.int64)
    types = np.zeros((batch, seq), dtype=np.int64)
    for r in range(batch):
        length = max(2, seq - 3 * r)
        ids[r, length:] = 0
        if type_vocab_size > 1:
            types[r, length // 2:length] = 1
    return {"input_ids": ids, "attention_mask": (ids != 0).astype(np.int64), "token_type_ids": types}


def export_encoder(model, path, opset=14, seed=0):
    """Writes `path` (.onnx) and `<dir>/parity/<stem>/{inputs, embedding}.npy`; returns the fixture dir."""
    # The explicit softmax attention: fused SDPA kernels are not exported by every torch version.
    m = copy.deepcopy(model).float().cpu().eval().configure(attention="math")
    wrapper = _Export(m).eval()
    c = m.config
    dummy = parity_inputs(c.vocab_size, c.type_vocab_size, seed, batch=2, seq=7)
    args = tuple(torch.as_tensor(dummy[n]) for n in INPUT_NAMES)
    kwargs = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False  # torch >= 2.5: keep the TorchScript exporter (same graph on every version)
    axes = {n: {0: "batch", 1: "seq"} for n in INPUT_NAMES}
    axes[OUTPUT_NAME] = {0: "batch"}
    with torch.no_grad():
        torch.onnx.export(wrapper, args, path, input_names=INPUT_NAMES, output_names=[OUTPUT_NAME],
                          dynamic_axes=axes, opset_version=opset, do_constant_folding=True, **kwargs)
    fixture = parity_inputs(c.vocab_size, c.type_vocab_size, seed + 1)
    with torch.no_grad():
        expected = m(*(torch.as_tensor(fixture[n]) for n in INPUT_NAMES)).numpy().astype(np.float32)
    return save_fixture(path, fixture, INPUT_NAMES, OUTPUT_NAME, expected)


def save_fixture(path, fixture, inputs, output, expected):
    """The parity fixture of the export at `path`: `<dir>/parity/<stem>/{inputs, output}.npy`; returns that directory."""
    fdir = os.path.join(os.path.dirname(path), "parity", os.path.splitext(os.path.basename(path))[0])
    os.makedirs(fdir, exist_ok=True)
    for n in inputs:
        np.save(os.path.join(fdir, f"{n}.npy"), fixture[n])
    np.save(os.path.join(fdir, f"{output}.npy"), expected)
    return fdir


def check_with_onnxruntime(path, fixture_dir, log, inputs=INPUT_NAMES, output=OUTPUT_NAME):
    """If Python onnxruntime is importable, runs the fixture and fails loudly on mismatch (else the Node side checks it)."""
    try:
        import onnxruntime  # noqa: PLC0415 - optional, present in users' containers only
    except ImportError:
        log(f"note: python onnxruntime not importable; parity fixtures for {os.path.basename(path)} are checked on the Node side")
        return None
    sess = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = {n: np.load(os.path.join(fixture_dir, f"{n}.npy")) for n in inputs}
    got = sess.run([output], feeds)[0]
    want = np.load(os.path.join(fixture_dir, f"{output}.npy"))
    diff = float(np.max(np.abs(got - want)))
    if not diff < PARITY_ATOL:
        raise RuntimeError(f"ONNX parity failed for {path}: max abs diff {diff:.3g} >= {PARITY_ATOL}")
    log(f"onnx parity ok for {os.path.basename(path)}: max abs diff {diff:.3g}")
    return diff
