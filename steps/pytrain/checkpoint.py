"""Reading encoder weights from any of the known checkpoint layouts, and writing ours.

A checkpoint is a flat {name: tensor} map. The encoder's names are Hugging Face BERT names
(`embeddings.word_embeddings.weight`, `encoder.layer.0.attention.self.query.weight`, ...)
behind a layout-specific prefix. The prefixes tried for each role, first match wins ties:
"""
import json
import os

import numpy as np
import torch

from pytrain.errors import InputError
from pytrain.safetensors_np import read_safetensors, write_safetensors

PREFIXES = {
    "query": [
        "question_encoder.bert_model.",  # HF facebook/dpr-question_encoder-*
        "question_model.",               # original facebookresearch/DPR biencoder checkpoints
        "query_encoder.",                # bi-encoder dumps keyed by role
        "bert_model.",                   # a bare HF DPREncoder
        "bert.",                         # HF Bert*For* task models
        "",                              # plain BertModel (our own checkpoints)
    ],
    "passage": [
        "ctx_encoder.bert_model.",       # HF facebook/dpr-ctx_encoder-*
        "ctx_model.",                    # original DPR
        "passage_encoder.",
        "bert_model.",
        "bert.",
        "",
    ],
}
# Buffers that some HF versions store; they carry no weights.
IGNORABLE_SUFFIXES = ("embeddings.position_ids", "embeddings.token_type_ids")
# TF-converted BERT checkpoints name LayerNorm parameters gamma/beta.
LEGACY_RENAMES = ((".gamma", ".weight"), (".beta", ".bias"))


def resolve_weights_file(path):
    """A file, or a directory holding model.safetensors / pytorch_model.bin (HF layout)."""
    if os.path.isdir(path):
        for name in ("model.safetensors", "pytorch_model.bin"):
            cand = os.path.join(path, name)
            if os.path.isfile(cand):
                return cand
        raise InputError("directory holds neither model.safetensors nor pytorch_model.bin", file=path,
                                 fix="point to the weights file or an HF model directory")
    if not os.path.isfile(path):
        raise InputError("checkpoint file not found", file=path)
    return path


def read_state_dict(path, allow_pickle=False):
    """{name: float32/int numpy array} from .safetensors (own parser) or .bin/.pt (torch.load on CPU)."""
    path = resolve_weights_file(path)
    if path.endswith(".safetensors"):
        try:
            tensors, _ = read_safetensors(path)
        except ValueError as e:
            raise InputError(str(e), file=path) from e
        return tensors
    try:
        obj = torch.load(path, map_location="cpu", weights_only=not allow_pickle)
    except Exception as e:  # noqa: BLE001 - torch raises several unpickling types
        raise InputError(f"torch.load failed ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})",
                                 file=path, fix="convert it to .safetensors, or set allow_pickle: true if you trust the file") from e
    if isinstance(obj, dict) and "model_dict" in obj:  # original DPR: CheckpointState._asdict()
        obj = obj["model_dict"]
    if isinstance(obj, dict) and "state_dict" in obj and isinstance(obj["state_dict"], dict):
        obj = obj["state_dict"]
    if not isinstance(obj, dict):
        raise InputError(f"expected a dict of tensors, got {type(obj).__name__}", file=path)
    out = {}
    for k, v in obj.items():
        if torch.is_tensor(v):
            t = v.detach().cpu()
            out[k] = (t.float() if t.is_floating_point() else t).numpy()
    return out


def _normalise(name):
    for old, new in LEGACY_RENAMES:
        if name.endswith(old) and "LayerNorm" in name:
            return name[: -len(old)] + new
    return name


def choose_prefix(model_keys, ckpt_keys, role):
    best, best_hits = None, -1
    for prefix in PREFIXES[role]:
        hits = sum(1 for k in ckpt_keys if k.startswith(prefix) and _normalise(k[len(prefix):]) in model_keys)
        if hits > best_hits:
            best, best_hits = prefix, hits
    return best


def recorded_source(source):
    """A loaded checkpoint as a load report names it: its file name. The report goes into the
    model's outputs, and the whole path is where this store keeps the input (another store,
    another path, under one key); the key holds the input's digest. Errors keep the whole path."""
    return os.path.basename(str(source)) if source else source


def load_encoder(model, state, role, prefix=None, source="<checkpoint>"):
    """Copies weights into `model`; raises on missing or mis-shaped tensors; returns a report dict.

    Keys under the prefix that the model does not have are reported as `unexpected` (and
    printed by the caller); the pooler of a plain BERT checkpoint is `ignored` when the model
    has none, since DPR's embedding is the [CLS] hidden state.
    """
    own = model.state_dict()
    if prefix is None:
        prefix = choose_prefix(set(own), state.keys(), role)
    mapped, unexpected, ignored = {}, [], []
    for k in sorted(state):
        if not k.startswith(prefix):
            continue
        name = _normalise(k[len(prefix):])
        if name in own:
            mapped[name] = state[k]
        elif name.endswith(IGNORABLE_SUFFIXES) or (name.startswith("pooler.") and not hasattr(model, "pooler")):
            ignored.append(k)
        else:
            unexpected.append(k)
    missing = sorted(set(own) - set(mapped))
    if missing:
        raise InputError(
            f"{len(missing)} encoder weights missing under prefix '{prefix}' (role {role}): {', '.join(missing[:8])}"
            + (" ..." if len(missing) > 8 else ""), file=source,
            fix="check the checkpoint kind and the bert config (layer count, pooler), or give the prefix explicitly")
    bad = [f"{n} {list(np.shape(mapped[n]))} vs {list(own[n].shape)}" for n in sorted(mapped)
           if tuple(np.shape(mapped[n])) != tuple(own[n].shape)]
    if bad:
        raise InputError(f"shape mismatch (checkpoint vs model): {'; '.join(bad[:5])}", file=source,
                                 fix="the bert config does not match the checkpoint; read it from the checkpoint's config.json")
    with torch.no_grad():
        for name, value in mapped.items():
            own[name].copy_(torch.as_tensor(np.asarray(value, dtype=np.float32)))
    return {"source": recorded_source(source), "role": role, "prefix": prefix, "loaded": len(mapped),
            "unexpected": unexpected, "ignored": ignored}


def save_encoder(model, path, metadata=None):
    tensors = {k: v.detach().float().cpu().numpy() for k, v in model.state_dict().items()}
    write_safetensors(path, tensors, {"format": "pt", **(metadata or {})})


def read_bert_config_near(path):
    """The config.json beside a weights file (or inside an HF model directory), or None."""
    d = path if os.path.isdir(path) else os.path.dirname(path)
    cand = os.path.join(d, "config.json")
    if os.path.isfile(cand):
        with open(cand, encoding="utf-8") as f:
            cfg = json.load(f)
        return cfg.get("bert_config", cfg)
    return None
