"""The DPR extractive reader: a BERT encoder (steps/pytrain/bert_model.py, Hugging Face
parameter names, so bert-base-uncased loads) with a span head (start/end logit per token) and a
passage-selection head on [CLS]. Saved under Hugging Face DPRReader's names
(`span_predictor.encoder.bert_model.*`, `span_predictor.qa_outputs.*`, `span_predictor.qa_classifier.*`).
"""
import json
import os

import torch
from torch import nn

from pytrain.bert_model import BertModel
from pytrain.checkpoint import load_encoder, read_state_dict
from pytrain.errors import InputError
from pytrain.model_configs import BertConfig
from pytrain.safetensors_np import read_safetensors, write_safetensors

ENCODER_PREFIX = "span_predictor.encoder.bert_model."
HEAD_PREFIX = "span_predictor."
# A plain BERT checkpoint (bert-base-uncased: `bert.` + MLM/NSP heads under `cls.`).
BERT_PREFIXES = ("bert.", "")


class Reader(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.encoder = BertModel(config)
        self.qa_outputs = nn.Linear(config.hidden_size, 2)
        self.qa_classifier = nn.Linear(config.hidden_size, 1)

    def init_heads(self, seed):
        g = torch.Generator().manual_seed(int(seed) + 7)
        with torch.no_grad():
            for lin in (self.qa_outputs, self.qa_classifier):
                lin.weight.copy_(torch.randn(lin.weight.shape, generator=g) * self.config.initializer_range)
                lin.bias.zero_()
        return self

    def configure(self, attention="auto", checkpointing=False):
        """The encoder's attention kernel and activation checkpointing (pytrain/bert_model.py)."""
        self.encoder.configure(attention, checkpointing)
        return self

    @property
    def attention_mode(self):
        return self.encoder.attention_mode

    def forward(self, input_ids, attention_mask):
        """start_logits, end_logits [B, L] and relevance_logits [B] (token types are all 0)."""
        h = self.encoder.hidden_states(input_ids, attention_mask, torch.zeros_like(input_ids))
        logits = self.qa_outputs(h)
        return logits[..., 0], logits[..., 1], self.qa_classifier(h[:, 0]).squeeze(-1)


def _bert_config(d, vocab_size=None):
    d = dict(d)
    if vocab_size is not None:
        d.setdefault("vocab_size", vocab_size)
    try:
        return BertConfig.from_dict(d)
    except ValueError as e:
        raise InputError(str(e), field="bert_config") from e


def build_reader(init, seed, vocab_size, allow_pickle, log):
    """A reader from `init`: random (a tiny BERT), checkpoint (an earlier reader's directory) or
    bert (a Hugging Face BERT directory or weights file; the heads start random)."""
    kind = init["kind"]
    if kind == "random":
        model = Reader(_bert_config(init.get("bert_config") or {}, vocab_size))
        model.encoder.init_weights(seed)
        return model.init_heads(seed), {"kind": "random"}
    path = init["path"]
    if kind == "checkpoint":
        cfg_path = os.path.join(path, "config.json")
        if not os.path.isfile(cfg_path):
            raise InputError("not a reader directory (no config.json)", path, fix="pass the output directory of an earlier reader training")
        with open(cfg_path, encoding="utf-8") as f:
            model = Reader(_bert_config(json.load(f)))
        tensors, _ = read_safetensors(os.path.join(path, "reader.safetensors"))
        report = load_encoder(model.encoder, tensors, "query", prefix=ENCODER_PREFIX, source=path)
        with torch.no_grad():
            for name in ("qa_outputs.weight", "qa_outputs.bias", "qa_classifier.weight", "qa_classifier.bias"):
                if HEAD_PREFIX + name not in tensors:
                    raise InputError(f"missing tensor {HEAD_PREFIX + name}", path, fix="pass a directory written by the reader trainer")
                model.state_dict()[name].copy_(torch.as_tensor(tensors[HEAD_PREFIX + name]))
        return model, {"kind": kind, **report}
    cfg_file = os.path.join(path if os.path.isdir(path) else os.path.dirname(path), "config.json")
    if not os.path.isfile(cfg_file):
        raise InputError("no config.json beside the BERT weights", path, fix="place the model's config.json next to pytorch_model.bin")
    with open(cfg_file, encoding="utf-8") as f:
        model = Reader(_bert_config(json.load(f)))
    state = read_state_dict(path, allow_pickle)
    prefix = next((p for p in BERT_PREFIXES if any(k.startswith(p + "embeddings.") for k in state)), None)
    if prefix is None:
        raise InputError("no BERT embeddings found (expected keys under 'bert.' or none)", path)
    report = load_encoder(model.encoder, state, "query", prefix=prefix, source=path)
    if report["unexpected"]:
        log(f"note: {len(report['unexpected'])} checkpoint tensors under '{prefix}' unused")
    return model.init_heads(seed), {"kind": kind, **report}


def save_reader(model, out_dir, own):
    tensors = {ENCODER_PREFIX + k: v.detach().float().cpu().numpy() for k, v in model.encoder.state_dict().items()}
    for name in ("qa_outputs.weight", "qa_outputs.bias", "qa_classifier.weight", "qa_classifier.bias"):
        tensors[HEAD_PREFIX + name] = model.state_dict()[name].detach().float().cpu().numpy()
    write_safetensors(os.path.join(out_dir, "reader.safetensors"), tensors, {"format": "pt"})
    conf = {**model.config.to_hf_dict(), "architectures": ["DPRReader"], "cspipe": own}
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(conf, f, indent=2, sort_keys=True)


def span_loss(start_logits, end_logits, eligible, spans):
    """Marginal likelihood of the answer spans: -log sum_k p_start(s_k) p_end(e_k), with the
    softmaxes over the eligible (passage text) positions of one sequence. `spans` [K, 2]."""
    neg = torch.finfo(start_logits.dtype).min
    ls = torch.log_softmax(start_logits.masked_fill(~eligible, neg), dim=-1)
    le = torch.log_softmax(end_logits.masked_fill(~eligible, neg), dim=-1)
    return -torch.logsumexp(ls[spans[:, 0]] + le[spans[:, 1]], dim=0)


def selection_loss(relevance):
    """Cross-entropy of the passage with the answer (index 0) among the question's passages."""
    return -torch.log_softmax(relevance, dim=-1)[0]
