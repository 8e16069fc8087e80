"""FiD's inputs, checkpoints and decoding of ids to text.

Input directory (prepare-fid-inputs, steps/qa/fid/steps.ts):
    meta.json              {vocabDigest, vocabSize, padId 0, eosId 1, nContext, passageLength, answerLength}
    pieces.json            [[piece, type], ...] the SentencePiece vocabulary (type: 1 normal, 2 unknown, 3 control, ...)
    train/input_ids.npy    int32 [Q, K, L] `question: ... title: ... context: ...</s>` per passage, pad 0
    train/labels.npy       int32 [Q, T] answer ids + eos, -100 padded
    dev/input_ids.npy      int32 [Qd, K, L]
    dev/answers.json       [[gold answers] per dev question]
Evaluation inputs (prepare-fid-eval-inputs): input_ids.npy, qids.json, pieces.json, meta.json.
"""
import json
import os

import numpy as np
import torch

from pytrain.checkpoint import read_state_dict, recorded_source
from pytrain.errors import InputError
from pytrain.model_configs import T5Config
from pytrain.npy_inputs import load_npy
from pytrain.safetensors_np import read_safetensors, write_safetensors
from qa.fid.t5_model import FiDT5

# Keys a Hugging Face T5 checkpoint may hold that this model does not use: the tied copies of
# the shared embedding and the decoder's cross-attention bias that T5 never reads.
TOLERATED = ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight")


def npy(path, ndim):
    return load_npy(path, "write the inputs with the prepare-fid-inputs step", ndim=ndim)


def read_json(path):
    if not os.path.isfile(path):
        raise InputError("missing input file", path)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Decoder:
    """SentencePiece ids -> text: pieces joined, '▁' as space, the leading space dropped; control pieces skipped."""

    def __init__(self, pieces):
        self.pieces = pieces

    def __call__(self, ids):
        out = []
        for i in ids:
            if i < 0 or i >= len(self.pieces):
                continue
            piece, kind = self.pieces[i]
            if kind == 3:
                continue
            out.append(" ⁇ " if kind == 2 else piece)
        text = "".join(out).replace("\u2581", " ")
        return text[1:] if text.startswith(" ") else text


def load_state(model, state, source, allow_tied_head=True):
    own = model.state_dict()
    unexpected = []
    loaded = 0
    for k in sorted(state):
        if k in own:
            if tuple(np.shape(state[k])) != tuple(own[k].shape):
                raise InputError(f"shape mismatch for {k}: {list(np.shape(state[k]))} vs {list(own[k].shape)}", source, fix="the config does not match the weights")
            with torch.no_grad():
                own[k].copy_(torch.as_tensor(np.asarray(state[k], dtype=np.float32)))
            loaded += 1
        elif k in TOLERATED or (k == "lm_head.weight" and allow_tied_head and model.config.tie_word_embeddings):
            continue
        else:
            unexpected.append(k)
    missing = sorted(set(own) - set(state))
    if missing:
        raise InputError(f"{len(missing)} weights missing: {', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}", source, fix="check that the checkpoint is a T5 v1.0 model of this config")
    if unexpected:
        raise InputError(f"{len(unexpected)} unknown weights: {', '.join(unexpected[:6])}", source, fix="only T5 v1.0 (relu feed-forward) checkpoints load")
    return {"source": recorded_source(source), "loaded": loaded}


def build_model(init, seed, vocab_size, allow_pickle):
    kind = init["kind"]
    if kind == "random":
        d = dict(init.get("t5_config") or {})
        d.setdefault("vocab_size", vocab_size)
        model = FiDT5(T5Config.from_dict(d)).init_weights(seed)
        return model, {"kind": "random"}
    path = init["path"]
    cfg_file = os.path.join(path if os.path.isdir(path) else os.path.dirname(path), "config.json")
    try:
        config = T5Config.from_dict(read_json(cfg_file))
    except ValueError as e:
        raise InputError(str(e), cfg_file) from e
    model = FiDT5(config)
    if kind == "checkpoint":
        tensors, _ = read_safetensors(os.path.join(path, "fid.safetensors"))
        return model, {"kind": kind, **load_state(model, tensors, path)}
    return model, {"kind": kind, **load_state(model, read_state_dict(path, allow_pickle), path)}


def save_model(model, out_dir, own):
    tensors = {k: v.detach().float().cpu().numpy() for k, v in model.state_dict().items()}
    write_safetensors(os.path.join(out_dir, "fid.safetensors"), tensors, {"format": "pt"})
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump({**model.config.to_hf_dict(), "cspipe": own}, f, indent=2, sort_keys=True)
