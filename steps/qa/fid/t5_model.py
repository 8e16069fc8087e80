"""A compact T5 encoder-decoder whose parameter names are Hugging Face's (t5-base loads), used
as Fusion-in-Decoder (Izacard & Grave, 2021): each passage is encoded on its own, the encoder
outputs of a question's passages are concatenated, and one decoder attends over all of them.

T5 v1.0 as released: relative position bias only in the first block of each stack (32
buckets, max distance 128; bidirectional in the encoder, causal in the decoder; none in
cross-attention), RMS layer norm computed in float32 with no bias and no mean, no biases in
linear layers, no 1/sqrt(d) in attention, ReLU feed-forward, the LM head tied to the shared
embedding with the decoder output scaled by d_model^-0.5, decoder start = pad = 0, eos = 1.
The configuration is `model_configs.T5Config` (generated from steps/pytrain/model-configs.ts).
Attention runs as the explicit float32 softmax or, configured so (`configure`), torch's fused
kernel with the relative position bias as its additive mask and T5's scale of 1.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint as activation_checkpoint

from pytrain.attention import fused_attention, use_fused


def relative_position_bucket(relative_position, bidirectional, num_buckets=32, max_distance=128):
    """T5's bucket of `memory position - query position`: half the buckets exact for small
    distances, the other half logarithmic up to max_distance; bidirectional splits the buckets
    between keys after (upper half) and before the query; causal maps keys after to 0."""
    ret = torch.zeros_like(relative_position)
    n = relative_position
    if bidirectional:
        num_buckets //= 2
        ret = ret + (n > 0).long() * num_buckets
        n = torch.abs(n)
    else:
        n = -torch.clamp(n, max=0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    large = max_exact + (torch.log(n.float().clamp(min=1) / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).long()
    large = torch.clamp(large, max=num_buckets - 1)
    return ret + torch.where(is_small, n, large)


class T5LayerNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        if self.weight.dtype in (torch.float16, torch.bfloat16):
            x = x.to(self.weight.dtype)
        return self.weight * x


class T5Attention(nn.Module):
    def __init__(self, c, has_relative_bias, bidirectional):
        super().__init__()
        self.c, self.bidirectional = c, bidirectional
        inner = c.num_heads * c.d_kv
        self.q = nn.Linear(c.d_model, inner, bias=False)
        self.k = nn.Linear(c.d_model, inner, bias=False)
        self.v = nn.Linear(c.d_model, inner, bias=False)
        self.o = nn.Linear(inner, c.d_model, bias=False)
        if has_relative_bias:
            self.relative_attention_bias = nn.Embedding(c.relative_attention_num_buckets, c.num_heads)
        self.dropout = nn.Dropout(c.dropout_rate)
        self.fused = False  # set by FiDT5.configure

    def compute_bias(self, q_len, k_len, q_offset, device):
        ctx = torch.arange(q_offset, q_offset + q_len, dtype=torch.long, device=device)[:, None]
        mem = torch.arange(k_len, dtype=torch.long, device=device)[None, :]
        buckets = relative_position_bucket(mem - ctx, self.bidirectional, self.c.relative_attention_num_buckets, self.c.relative_attention_max_distance)
        return self.relative_attention_bias(buckets).permute(2, 0, 1).unsqueeze(0)

    def _split(self, x):
        return x.view(x.size(0), -1, self.c.num_heads, self.c.d_kv).transpose(1, 2)

    def forward(self, x, bias, kv_source=None, past=None):
        """`past`: cached (k, v) (self-attention: of earlier positions, extended here; cross-attention: reused)."""
        q = self._split(self.q(x))
        if kv_source is None:
            k, v = self._split(self.k(x)), self._split(self.v(x))
            if past is not None:
                k, v = torch.cat([past[0], k], 2), torch.cat([past[1], v], 2)
        elif past is not None:
            k, v = past
        else:
            k, v = self._split(self.k(kv_source)), self._split(self.v(kv_source))
        if self.fused:
            out = fused_attention(q, k, v, bias.to(q.dtype), self.dropout.p if self.training else 0.0, scale=1.0)
        else:
            scores = torch.matmul(q, k.transpose(-1, -2)) + bias
            w = self.dropout(torch.softmax(scores.float(), dim=-1).type_as(scores))
            out = torch.matmul(w, v)
        out = out.transpose(1, 2).reshape(x.size(0), -1, self.c.num_heads * self.c.d_kv)
        return self.o(out), (k, v)


class T5LayerSelfAttention(nn.Module):
    def __init__(self, c, has_bias, bidirectional):
        super().__init__()
        self.SelfAttention = T5Attention(c, has_bias, bidirectional)
        self.layer_norm = T5LayerNorm(c.d_model, c.layer_norm_epsilon)
        self.dropout = nn.Dropout(c.dropout_rate)

    def forward(self, x, bias, past=None):
        h, kv = self.SelfAttention(self.layer_norm(x), bias, past=past)
        return x + self.dropout(h), kv


class T5LayerCrossAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.EncDecAttention = T5Attention(c, False, True)
        self.layer_norm = T5LayerNorm(c.d_model, c.layer_norm_epsilon)
        self.dropout = nn.Dropout(c.dropout_rate)

    def forward(self, x, enc, bias, past=None):
        h, kv = self.EncDecAttention(self.layer_norm(x), bias, kv_source=enc, past=past)
        return x + self.dropout(h), kv


class T5DenseReluDense(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.wi = nn.Linear(c.d_model, c.d_ff, bias=False)
        self.wo = nn.Linear(c.d_ff, c.d_model, bias=False)
        self.dropout = nn.Dropout(c.dropout_rate)

    def forward(self, x):
        return self.wo(self.dropout(F.relu(self.wi(x))))


class T5LayerFF(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.DenseReluDense = T5DenseReluDense(c)
        self.layer_norm = T5LayerNorm(c.d_model, c.layer_norm_epsilon)
        self.dropout = nn.Dropout(c.dropout_rate)

    def forward(self, x):
        return x + self.dropout(self.DenseReluDense(self.layer_norm(x)))


class T5Block(nn.Module):
    def __init__(self, c, decoder, first):
        super().__init__()
        self.decoder = decoder
        layers = [T5LayerSelfAttention(c, first, not decoder)]
        if decoder:
            layers.append(T5LayerCrossAttention(c))
        layers.append(T5LayerFF(c))
        self.layer = nn.ModuleList(layers)

    def forward(self, x, bias, enc=None, cross_bias=None, past=None):
        x, self_kv = self.layer[0](x, bias, None if past is None else past[0])
        cross_kv = None
        if self.decoder:
            x, cross_kv = self.layer[1](x, enc, cross_bias, None if past is None else past[1])
        return self.layer[-1](x), (self_kv, cross_kv)


def additive_mask(mask, dtype):
    return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


class T5Stack(nn.Module):
    def __init__(self, c, decoder):
        super().__init__()
        self.c, self.is_decoder = c, decoder
        n = c.num_decoder_layers if decoder else c.num_layers
        self.block = nn.ModuleList([T5Block(c, decoder, i == 0) for i in range(n)])
        self.final_layer_norm = T5LayerNorm(c.d_model, c.layer_norm_epsilon)
        self.dropout = nn.Dropout(c.dropout_rate)
        self.checkpointing = False

    def encode(self, embeds, mask):
        x = self.dropout(embeds)
        L = x.size(1)
        bias = self.block[0].layer[0].SelfAttention.compute_bias(L, L, 0, x.device).to(x.dtype) + additive_mask(mask, x.dtype)
        for blk in self.block:
            if self.checkpointing and self.training:
                x = activation_checkpoint(lambda h, b=blk: b(h, bias)[0], x, use_reentrant=False)
            else:
                x = blk(x, bias)[0]
        return self.dropout(self.final_layer_norm(x))

    def decode(self, embeds, enc, enc_mask, past=None, offset=0):
        x = self.dropout(embeds)
        q_len = x.size(1)
        k_len = offset + q_len
        bias = self.block[0].layer[0].SelfAttention.compute_bias(q_len, k_len, offset, x.device).to(x.dtype)
        future = torch.arange(k_len, device=x.device)[None, :] > torch.arange(offset, k_len, device=x.device)[:, None]
        bias = bias.masked_fill(future[None, None], torch.finfo(x.dtype).min)
        cross_bias = additive_mask(enc_mask, x.dtype)
        presents = []
        for i, blk in enumerate(self.block):
            x, kv = blk(x, bias, enc, cross_bias, None if past is None else past[i])
            presents.append(kv)
        return self.dropout(self.final_layer_norm(x)), presents


class FiDT5(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.shared = nn.Embedding(config.vocab_size, config.d_model)
        self.encoder = T5Stack(config, False)
        self.decoder = T5Stack(config, True)
        if not config.tie_word_embeddings:
            self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)

    def init_weights(self, seed):
        """T5's init (Mesh TF scales) from a seed."""
        g = torch.Generator().manual_seed(int(seed))
        c, f = self.config, self.config.initializer_factor
        with torch.no_grad():
            for name, p in sorted(self.named_parameters()):
                if name.endswith("layer_norm.weight"):
                    p.fill_(f)
                    continue
                if name == "shared.weight" or name == "lm_head.weight":
                    std = f * 1.0
                elif name.endswith((".q.weight",)):
                    std = f * (c.d_model * c.d_kv) ** -0.5
                elif name.endswith((".k.weight", ".v.weight")):
                    std = f * c.d_model ** -0.5
                elif name.endswith(".o.weight"):
                    std = f * (c.num_heads * c.d_kv) ** -0.5
                elif name.endswith("wi.weight"):
                    std = f * c.d_model ** -0.5
                elif name.endswith("wo.weight"):
                    std = f * c.d_ff ** -0.5
                elif name.endswith("relative_attention_bias.weight"):
                    std = f * c.d_model ** -0.5
                else:
                    raise RuntimeError(f"no init rule for {name}")
                p.copy_(torch.randn(p.shape, generator=g) * std)
        return self

    def configure(self, attention="auto", checkpointing=False):
        """attention: "sdpa", "math" or "auto" (pytrain/attention.py); checkpointing: recompute each
        encoder block's activations in the backward pass (FiD's memory option)."""
        fused = use_fused(attention)
        for m in self.modules():
            if isinstance(m, T5Attention):
                m.fused = fused
        self.encoder.checkpointing = bool(checkpointing)
        return self

    @property
    def attention_mode(self):
        return "sdpa" if self.encoder.block[0].layer[0].SelfAttention.fused else "math"

    def encode_passages(self, input_ids, attention_mask):
        """[B, K, L] ids -> encoder states [B, K*L, d] and their mask [B, K*L] (FiD's fusion)."""
        b, k, l = input_ids.shape
        ids = input_ids.reshape(b * k, l)
        m = attention_mask.reshape(b * k, l)
        h = self.encoder.encode(self.shared(ids), m)
        return h.reshape(b, k * l, -1), attention_mask.reshape(b, k * l)

    def lm_logits(self, h):
        if self.config.tie_word_embeddings:
            return torch.matmul(h * (self.config.d_model ** -0.5), self.shared.weight.t())
        return self.lm_head(h)

    def loss(self, input_ids, attention_mask, labels):
        """Token cross-entropy of `labels` [B, T] (-100 = padding), teacher forcing from decoder start 0."""
        enc, enc_mask = self.encode_passages(input_ids, attention_mask)
        start = torch.full_like(labels[:, :1], self.config.decoder_start_token_id)
        dec_in = torch.cat([start, labels[:, :-1]], 1).masked_fill(torch.cat([start, labels[:, :-1]], 1) == -100, self.config.pad_token_id)
        h, _ = self.decoder.decode(self.shared(dec_in), enc, enc_mask)
        logits = self.lm_logits(h)
        return F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), labels.reshape(-1), ignore_index=-100)

    @torch.no_grad()
    def generate(self, input_ids, attention_mask, max_length):
        """Greedy decoding with cached keys and values; per question the ids up to (not including) eos."""
        enc, enc_mask = self.encode_passages(input_ids, attention_mask)
        b = input_ids.size(0)
        cur = torch.full((b, 1), self.config.decoder_start_token_id, dtype=torch.long, device=input_ids.device)
        past, out, done = None, [[] for _ in range(b)], torch.zeros(b, dtype=torch.bool, device=input_ids.device)
        for step in range(max_length):
            h, past = self.decoder.decode(self.shared(cur), enc, enc_mask, past, offset=step)
            nxt = self.lm_logits(h[:, -1]).float().argmax(-1)
            for i in range(b):
                if not done[i] and int(nxt[i]) != self.config.eos_token_id:
                    out[i].append(int(nxt[i]))
            done |= nxt == self.config.eos_token_id
            if bool(done.all()):
                break
            cur = nxt[:, None]
        return out
