"""FiD greedy generation throughput for bench/qa/main.ts: the trainer's FiDT5.generate (passages
encoded separately, one decoder over all of them, cached keys and values) on a seeded random T5
of the given shape and seeded random inputs. The embedding row of eos is zeroed so that the random
model decodes the full answer length (its eos logit is 0 while others are drawn around 0, so the
argmax almost never lands on it); every generated token is counted. Prints one JSON line.
usage: fid_generate.py --threads N [--questions 16] [--batch 1] [--contexts 3] [--passage-len 96]
       [--answer-len 40] [--vocab 2000] [--d-model 64] [--d-kv 32] [--d-ff 256] [--layers 2]
       [--heads 2] [--passes 2] [--seed 0]"""
import argparse
import json
import time

import torch

from pytrain.model_configs import T5Config
from qa.fid.t5_model import FiDT5

p = argparse.ArgumentParser()
for name, default in [("threads", 1), ("questions", 16), ("batch", 1), ("contexts", 3), ("passage-len", 96), ("answer-len", 40), ("vocab", 2000),
                      ("d-model", 64), ("d-kv", 32), ("d-ff", 256), ("layers", 2), ("heads", 2), ("passes", 2), ("seed", 0)]:
    p.add_argument(f"--{name}", type=int, default=default)
a = p.parse_args()
torch.set_num_threads(a.threads)
cfg = T5Config.from_dict({"vocab_size": a.vocab, "d_model": a.d_model, "d_kv": a.d_kv, "d_ff": a.d_ff, "num_layers": a.layers, "num_heads": a.heads, "dropout_rate": 0.0})
model = FiDT5(cfg).init_weights(a.seed).eval()
with torch.no_grad():
    model.shared.weight[cfg.eos_token_id].zero_()
g = torch.Generator().manual_seed(a.seed)
ids = torch.randint(2, a.vocab, (a.questions, a.contexts, a.passage_len), generator=g)
mask = torch.ones_like(ids)
with torch.inference_mode():
    model.generate(ids[:1], mask[:1], 2)  # warm-up
    best, tokens, encode = float("inf"), 0, float("inf")
    for _ in range(a.passes):
        t0 = time.perf_counter()
        got = 0
        for s in range(0, a.questions, a.batch):
            got += sum(len(x) for x in model.generate(ids[s:s + a.batch], mask[s:s + a.batch], a.answer_len))
        t = time.perf_counter() - t0
        if t < best:
            best, tokens = t, got
        t0 = time.perf_counter()
        for s in range(0, a.questions, a.batch):
            model.encode_passages(ids[s:s + a.batch], mask[s:s + a.batch])
        encode = min(encode, time.perf_counter() - t0)
print(json.dumps({"seconds": best, "encode_seconds": encode, "questions": a.questions, "tokens": tokens, "tokens_per_s": tokens / best,
                  "decode_tokens_per_s": tokens / max(1e-9, best - encode), "torch": torch.__version__}))
