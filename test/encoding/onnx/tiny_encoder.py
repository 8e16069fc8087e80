"""Tiny BERT-like encoders exported to ONNX with the project's encoder contract, for tests and
bench/encode/. Needs /usr/bin/python3 with torch (Debian python3-torch).

Contract: inputs input_ids, attention_mask, token_type_ids (int64 [batch, seq], dynamic axes),
output embedding (float32 [batch, hidden]).

  export:  tiny_encoder.py export --out m.onnx [--kind meanpool|bert] [--layers 2 --hidden 128 ...]
           [--ids ids.npy [--types types.npy] --ref ref.npy]   (also writes torch's embeddings)
  run:     tiny_encoder.py run --out m.onnx --ids ids.npy [--types types.npy] --ref ref.npy
           (re-creates the same seeded model and writes torch's embeddings for ids.npy)
  bench:   tiny_encoder.py bench ... --ids ids.npy --batch 32 --threads 2   (prints JSON seq/s)
"""
import argparse
import json
import time

import numpy as np
import torch
from torch import nn


class MeanPool(nn.Module):
    """Token + token-type embedding, masked mean over real tokens."""

    def __init__(self, vocab, hidden):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.typ = nn.Embedding(2, hidden)

    def forward(self, input_ids, attention_mask, token_type_ids):
        x = self.tok(input_ids) + self.typ(token_type_ids)
        m = attention_mask.unsqueeze(-1).to(x.dtype)
        return (x * m).sum(1) / m.sum(1).clamp(min=1.0)


class Layer(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden)
        self.ff1 = nn.Linear(hidden, 4 * hidden)
        self.ff2 = nn.Linear(4 * hidden, hidden)
        self.ln2 = nn.LayerNorm(hidden)

    def forward(self, x, bias):
        b, s, h = x.shape
        d = h // self.heads
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / d**0.5 + bias, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, h)
        x = self.ln1(x + self.out(y))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class TinyBert(nn.Module):
    """BERT-shaped encoder (post-LN, GELU), [CLS] (position 0) vector as the embedding."""

    def __init__(self, vocab, hidden, layers, heads, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(max_len, hidden)
        self.typ = nn.Embedding(2, hidden)
        self.ln = nn.LayerNorm(hidden)
        self.layers = nn.ModuleList([Layer(hidden, heads) for _ in range(layers)])

    def forward(self, input_ids, attention_mask, token_type_ids):
        s = input_ids.shape[1]
        pos = torch.arange(s, device=input_ids.device).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(pos) + self.typ(token_type_ids))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x[:, 0]


def build(a):
    torch.manual_seed(a.seed)
    if a.kind == "meanpool":
        return MeanPool(a.vocab, a.hidden).eval()
    return TinyBert(a.vocab, a.hidden, a.layers, a.heads, a.max_len).eval()


def inputs(a):
    ids = torch.from_numpy(np.load(a.ids).astype(np.int64))
    mask = (ids != 0).to(torch.int64)
    types = torch.from_numpy(np.load(a.types).astype(np.int64)) if a.types else torch.zeros_like(ids)
    return ids, mask, types


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["export", "run", "bench"])
    p.add_argument("--out", required=True)
    p.add_argument("--kind", default="bert", choices=["meanpool", "bert"])
    p.add_argument("--vocab", type=int, default=1000)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--max-len", type=int, default=512)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ids")
    p.add_argument("--types")
    p.add_argument("--ref")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    model = build(a)
    if a.cmd == "export":
        ex = torch.ones(2, 5, dtype=torch.int64)
        axes = {0: "batch", 1: "seq"}
        torch.onnx.export(
            model, (ex, ex, torch.zeros_like(ex)), a.out, opset_version=14,
            input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["embedding"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, "embedding": {0: "batch"}},
        )
        if not (a.ids and a.ref):
            return
        a.cmd = "run"
    ids, mask, types = inputs(a)
    with torch.no_grad():
        if a.cmd == "run":
            np.save(a.ref, model(ids, mask, types).numpy().astype(np.float32))
            return
        model(ids[: a.batch], mask[: a.batch], types[: a.batch])  # warm-up
        t0 = time.perf_counter()
        for s in range(0, ids.shape[0], a.batch):
            model(ids[s : s + a.batch], mask[s : s + a.batch], types[s : s + a.batch])
        dt = time.perf_counter() - t0
    print(json.dumps({"seconds": dt, "rows": int(ids.shape[0]), "seq_per_s": ids.shape[0] / dt, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
