"""A compact BERT encoder whose state_dict names equal Hugging Face's `BertModel`.

DPR's vector is the last hidden state of the first ([CLS]) token: Hugging Face's DPR
encoders build `BertModel(config, add_pooling_layer=False)` and return
`sequence_output[:, 0, :]` as `pooler_output` (a projection exists only when
projection_dim > 0, which is 0 for the released DPR-NQ models). The optional pooler here
exists only so that plain BERT checkpoints with a pooler load without leftovers; it is
never used for the embedding. The configuration is `model_configs.BertConfig` (generated from
steps/pytrain/model-configs.ts).
"""
import math

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils import checkpoint as activation_checkpoint

from pytrain.attention import fused_attention, use_fused


class BertEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids):
        seq = input_ids.size(1)
        positions = torch.arange(seq, dtype=torch.long, device=input_ids.device).unsqueeze(0)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions) + self.token_type_embeddings(token_type_ids)
        return self.dropout(self.LayerNorm(x))


class BertSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads = c.num_attention_heads
        self.head_dim = c.hidden_size // c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)
        self.dropout = nn.Dropout(c.attention_probs_dropout_prob)
        self.fused = False  # set by BertModel.configure

    def _split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x, masks, queries):
        """Attention of the rows `queries` (x itself, or its first token) over every row of x."""
        keep, additive = masks
        q, k, v = self._split(self.query(queries)), self._split(self.key(x)), self._split(self.value(x))
        if self.fused:
            p = self.dropout.p if self.training else 0.0
            ctx = fused_attention(q, k, v, keep, p).transpose(1, 2)
        else:
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + additive
            probs = self.dropout(torch.softmax(scores, dim=-1))
            ctx = torch.matmul(probs.to(v.dtype), v).transpose(1, 2)
        return ctx.reshape(queries.size(0), queries.size(1), self.heads * self.head_dim)


class BertSelfOutput(nn.Module):
    def __init__(self, c, in_size):
        super().__init__()
        self.dense = nn.Linear(in_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, h, residual):
        return self.LayerNorm(self.dropout(self.dense(h)) + residual)


class BertAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertSelfOutput(c, c.hidden_size)

    def forward(self, x, masks, queries):
        return self.output(self.self(x, masks, queries), queries)


class BertIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)

    def forward(self, x):
        return F.gelu(self.dense(x))


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertSelfOutput(c, c.intermediate_size)

    def forward(self, x, masks, first_only=False):
        """The layer's output for every row of x, or (`first_only`) for its first token only: keys
        and values still come from every row, so that row's output is the same function of the input."""
        a = self.attention(x, masks, x[:, :1] if first_only else x)
        return self.output(self.intermediate(a), a)


class BertEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(c) for _ in range(c.num_hidden_layers)])
        self.checkpointing = False  # set by BertModel.configure

    def forward(self, x, masks, first_only=False):
        """Every layer over every row; with `first_only` the last layer over the first token only
        (the rows nothing downstream reads are not computed)."""
        last = len(self.layer) - 1
        for i, layer in enumerate(self.layer):
            only = first_only and i == last
            if self.checkpointing and torch.is_grad_enabled():
                # Only the layer's input is kept; its activations are recomputed in the backward
                # pass (with the same dropout masks: the RNG state is restored).
                x = activation_checkpoint.checkpoint(layer, x, masks, only, use_reentrant=False)
            else:
                x = layer(x, masks, only)
        return x


class BertPooler(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)

    def forward(self, h):
        return torch.tanh(self.dense(h[:, 0]))


class BertModel(nn.Module):
    """`forward` returns the [CLS] vector (DPR's embedding); `hidden_states` the whole sequence."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.encoder = BertEncoder(config)
        if config.add_pooling_layer:
            self.pooler = BertPooler(config)

    def init_weights(self, seed):
        """HF's BERT init (normal(0, initializer_range), zero bias, LayerNorm 1/0, pad row 0) from a seed."""
        g = torch.Generator().manual_seed(int(seed))
        std = self.config.initializer_range
        with torch.no_grad():
            for name, p in sorted(self.named_parameters()):
                if "LayerNorm" in name:
                    p.fill_(1.0 if name.endswith("weight") else 0.0)
                elif name.endswith("bias"):
                    p.zero_()
                else:
                    p.copy_(torch.randn(p.shape, generator=g) * std)
            self.embeddings.word_embeddings.weight[0].zero_()
        return self

    def configure(self, attention="auto", checkpointing=False):
        """attention: "sdpa" (fused, torch >= 2.0), "math" (explicit softmax; the ONNX export's),
        or "auto" (sdpa where torch has it); checkpointing: recompute layer activations in backward."""
        fused = use_fused(attention)
        for layer in self.encoder.layer:
            layer.attention.self.fused = fused
        self.encoder.checkpointing = bool(checkpointing)
        return self

    @property
    def attention_mode(self):
        return "sdpa" if self.encoder.layer and self.encoder.layer[0].attention.self.fused else "math"

    def hidden_states(self, input_ids, attention_mask, token_type_ids, first_only=False):
        """The last layer's states of every token, or (`first_only`) of the first token only, [batch, 1, hidden]."""
        x = self.embeddings(input_ids, token_type_ids)
        keep = attention_mask[:, None, None, :].bool()
        additive = (~keep).to(x.dtype) * torch.finfo(torch.float32).min
        return self.encoder(x, (keep, additive), first_only)

    def forward(self, input_ids, attention_mask, token_type_ids):
        """The [CLS] vector. Nothing reads the other tokens' last states, so the last layer runs for
        that token only (its keys and values still over the whole sequence): the same function of the
        input as `hidden_states(...)[:, 0]`, not the same bits (other matrix shapes sum in another
        order), and with dropout another draw of masks. It saves most of the last layer: a mini
        QReCC fine-tuning (2 layers, 96 passage tokens) trained in 20.1 s against 27.6 s, side by side."""
        return self.hidden_states(input_ids, attention_mask, token_type_ids, first_only=True)[:, 0]


def build_random(config, seed):
    return BertModel(config).init_weights(seed)
