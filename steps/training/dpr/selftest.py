"""Small checks the Node tests drive (pytrain/selftest.py's protocol: JSON on stdin, one
`RESULT <json>` line on stdout):

    loss        {q, p, pids?, gold?}                -> {loss, scores}
    negatives   {rows, pos, gold?, n, n_passages, seed, draws} -> {samples, fallbacks}
    roundtrip   {prefix, dtype: F32|F16|BF16, seed} -> {max_abs_diff, prefix, loaded, ignored, unexpected}
    decode      {dtype, bits: [uint16...]}          -> {values}
    load-error  {layers_in_file, layers_in_model}   -> {error}
    run-rules   {versions: [str...]}                -> {deterministic, warn_only, cublas_workspace, takes_scale}
    npy-input   {write: dtype|"garbage"|null, int, expected?, required?, ndim?} -> {shape} or {error} (path as <dir>/x.npy)
    and the training step's: selftest_steps.py
"""
import os
import tempfile

import numpy as np
import torch

from pytrain.attention import takes_scale
from pytrain.bert_model import build_random
from pytrain.checkpoint import load_encoder, read_state_dict
from pytrain.errors import InputError
from pytrain.model_configs import BertConfig
from pytrain.npy_inputs import load_int_npy, load_npy
from pytrain.run import seed_everything
from pytrain.safetensors_np import decode_tensor, write_safetensors
from training.dpr.losses import false_negative_mask, in_batch_nll
from training.dpr.negatives import gold_set, sample_negatives
from training.dpr.selftest_steps import SELFTESTS as STEP_SELFTESTS

TINY_TEST = {"vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
             "intermediate_size": 32, "max_position_embeddings": 32}


def _loss(a):
    q = torch.tensor(a["q"], dtype=torch.float32)
    p = torch.tensor(a["p"], dtype=torch.float32)
    mask = false_negative_mask(a["pids"], [set(g) for g in a["gold"]]) if "pids" in a else None
    loss, scores = in_batch_nll(q, p, mask)
    # -inf (masked) becomes null: JSON has no infinities
    return {"loss": float(loss), "scores": [[x if np.isfinite(x) else None for x in r] for r in scores.tolist()]}


def _negatives(a):
    rng = np.random.default_rng(a["seed"])
    samples, fallbacks = [], 0
    for _ in range(a["draws"]):
        for i, row in enumerate(a["rows"]):
            g = gold_set(a["pos"][i], a["gold"][i] if "gold" in a else None)
            ns, fb = sample_negatives(rng, row, g, a["n"], a["n_passages"])
            samples.append(ns)
            fallbacks += fb
    return {"samples": samples, "fallbacks": fallbacks}


def _cast(arr, dtype):
    if dtype == "F16":
        return arr.astype(np.float16)
    return arr


def _roundtrip(a):
    c = BertConfig.from_dict({**TINY_TEST, "add_pooling_layer": True})
    src = build_random(c, a["seed"]).eval()
    other = build_random(c, a["seed"] + 1)
    prefix = a["prefix"]
    tensors = {prefix + k: _cast(v.numpy(), a["dtype"]) for k, v in src.state_dict().items()}
    tensors.update({"ctx_encoder.bert_model." + k: v.numpy() for k, v in other.state_dict().items()})
    tensors[prefix + "embeddings.position_ids"] = np.arange(c.max_position_embeddings, dtype=np.int64)[None]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.safetensors")
        write_safetensors(path, tensors)
        state = read_state_dict(d)
    dst = build_random(BertConfig.from_dict(TINY_TEST), a["seed"] + 7).eval()
    rep = load_encoder(dst, state, "query", source=path)
    ids = torch.tensor([[2, 5, 7, 9, 0, 0], [3, 4, 0, 0, 0, 0]])
    types = torch.tensor([[0, 0, 1, 1, 0, 0], [0, 1, 0, 0, 0, 0]])
    with torch.no_grad():
        diff = float((src(ids, (ids != 0).long(), types) - dst(ids, (ids != 0).long(), types)).abs().max())
    return {"max_abs_diff": diff, "prefix": rep["prefix"], "loaded": rep["loaded"], "ignored": rep["ignored"],
            "unexpected": rep["unexpected"], "source": rep["source"]}


def _decode(a):
    bits = np.asarray(a["bits"], dtype=np.uint16)
    return {"values": decode_tensor(a["dtype"], bits.astype("<u2").tobytes(), [len(bits)]).tolist()}


def _load_error(a):
    src = build_random(BertConfig.from_dict({**TINY_TEST, "num_hidden_layers": a["layers_in_file"]}), 0)
    dst = build_random(BertConfig.from_dict({**TINY_TEST, "num_hidden_layers": a["layers_in_model"]}), 0)
    state = {"question_model." + k: v.numpy() for k, v in src.state_dict().items()}
    try:
        load_encoder(dst, state, "query", source="ckpt.bin")
    except InputError as e:
        return {"error": str(e)}
    return {"error": None}


def _npy_input(a):
    """pytrain/npy_inputs.py on one file [2, 3] written here (or none, or bytes that are no .npy)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x.npy")
        if a["write"] == "garbage":
            with open(path, "wb") as f:
                f.write(b"not an npy file")
        elif a["write"] is not None:
            np.save(path, np.arange(6, dtype=a["write"]).reshape(2, 3))
        try:
            if a["int"]:
                arr = load_int_npy(path, a["expected"], "write it", a.get("required", True))
            else:
                arr = load_npy(path, "write it", a.get("expected"), a.get("required", True), a.get("ndim"))
            return {"shape": None if arr is None else list(arr.shape)}
        except InputError as e:
            return {"error": str(e).replace(d, "<dir>")}


def _run_rules(a):
    """What every program's start (pytrain/run.py) leaves torch with in deterministic mode, and the
    attention kernel's `scale` rule when the builtin's signature is unreadable."""
    os.environ.pop("CUBLAS_WORKSPACE_CONFIG", None)
    seed_everything(1, deterministic=True)
    def unreadable(fn):
        raise ValueError(f"no signature found for builtin {fn!r}")
    return {"deterministic": torch.are_deterministic_algorithms_enabled(),
            "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
            "cublas_workspace": os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
            "takes_scale": {v: takes_scale(unreadable, v) for v in a["versions"]}}


SELFTESTS = {"loss": _loss, "run-rules": _run_rules, "npy-input": _npy_input, "negatives": _negatives, "roundtrip": _roundtrip, "decode": _decode, "load-error": _load_error,
             **STEP_SELFTESTS}

