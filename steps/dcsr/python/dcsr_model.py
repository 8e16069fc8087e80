"""DCSR's sentence vectors: the passage encoder's last hidden state at each marker token, one
pass per passage (Wu et al. 2022, §3.2); the NLL over every sentence vector of a batch; and the
ONNX export of the passage encoder that returns the marker vectors, with parity fixtures."""
import copy
import inspect

import numpy as np
import torch
from torch.nn import functional as F

from pytrain.onnx_export import check_with_onnxruntime, parity_inputs, save_fixture

SENTENCE_INPUTS = ["input_ids", "attention_mask", "token_type_ids", "marker_positions"]
SENTENCE_OUTPUT = "sentence_embeddings"
SENTENCE_ONNX = "sentence_encoder.onnx"


def gather_markers(hidden, positions):
    """hidden [B, L, H], positions int64 [B, M] (-1 = no sentence: the [CLS] state) -> [B, M, H]."""
    idx = positions.clamp(min=0).unsqueeze(-1).expand(-1, -1, hidden.size(-1))
    return torch.gather(hidden, 1, idx)


class SentenceEncoder(torch.nn.Module):
    """The exported graph: a BertModel's hidden states gathered at the marker positions."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids, marker_positions):
        return gather_markers(self.model.hidden_states(input_ids, attention_mask, token_type_ids), marker_positions)


def sentence_nll(q, s, mask=None):
    """Mean over queries of -log softmax(q_i . s_c)[i]: the target of query i is column i;
    masked columns (see dcsr_batch.column_mask) get -inf."""
    scores = q.float() @ s.float().t()
    if mask is not None:
        scores = scores.masked_fill(torch.as_tensor(mask, device=scores.device), float("-inf"))
    return F.cross_entropy(scores, torch.arange(q.size(0), device=scores.device)), scores


def marker_fixture(vocab_size, type_vocab_size, seed, batch=3, seq=11, markers=4):
    """Parity inputs plus marker positions inside each row's real tokens (-1 padded, one row with none)."""
    fx = parity_inputs(vocab_size, type_vocab_size, seed, batch=batch, seq=seq)
    rng = np.random.default_rng(int(seed) + 17)
    pos = -np.ones((batch, markers), dtype=np.int64)
    for r in range(batch - 1):
        length = int(fx["attention_mask"][r].sum())
        k = min(markers - r, length - 1)
        pos[r, :k] = np.sort(rng.choice(np.arange(1, length), size=k, replace=False))
    fx["marker_positions"] = pos
    return fx


def export_sentence_encoder(model, path, opset=14, seed=0):
    """Writes `path` and `<dir>/parity/sentence_encoder/{inputs, sentence_embeddings}.npy`; returns the fixture dir."""
    m = SentenceEncoder(copy.deepcopy(model).float().cpu().eval()).eval()
    c = m.model.config
    dummy = marker_fixture(c.vocab_size, c.type_vocab_size, seed, batch=2, seq=7, markers=3)
    kwargs = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    axes = {n: {0: "batch", 1: "seq"} for n in SENTENCE_INPUTS[:3]}
    axes["marker_positions"] = {0: "batch", 1: "markers"}
    axes[SENTENCE_OUTPUT] = {0: "batch", 1: "markers"}
    with torch.no_grad():
        torch.onnx.export(m, tuple(torch.as_tensor(dummy[n]) for n in SENTENCE_INPUTS), path, input_names=SENTENCE_INPUTS,
                          output_names=[SENTENCE_OUTPUT], dynamic_axes=axes, opset_version=opset, do_constant_folding=True, **kwargs)
    fixture = marker_fixture(c.vocab_size, c.type_vocab_size, seed + 1)
    with torch.no_grad():
        expected = m(*(torch.as_tensor(fixture[n]) for n in SENTENCE_INPUTS)).numpy().astype(np.float32)
    return save_fixture(path, fixture, SENTENCE_INPUTS, SENTENCE_OUTPUT, expected)


def check_sentence_encoder(path, fixture_dir, log):
    """The sentence encoder's parity fixture under Python onnxruntime, when it imports."""
    return check_with_onnxruntime(path, fixture_dir, log, SENTENCE_INPUTS, SENTENCE_OUTPUT)
