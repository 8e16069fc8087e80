#!/usr/bin/env python3
"""GPU check (bench/gpu/main.ts runs it): the trainer's own model, loss and gradient-cache code
(steps/training/dpr) timed with random weights and random token ids.

    python3 gpu_bench.py CONFIG.json      -> one JSON line on stdout

CONFIG: {"bert": {...BertConfig fields}, "train": [{"name", "queries", "passages", "query_len",
"passage_len", "chunk" (null: one graph)}], "steps", "encode": {"rows", "len", "batch"},
"search": {"rows", "queries", "dim", "depth"}, "seed"}. On CUDA: bf16 autocast for training
(fp16 where bf16 is missing), fp16 for encoding, TF32 off for the search matmul; on CPU: float32.
Peak memory: torch.cuda.max_memory_allocated per measurement on CUDA; on CPU the process's
peak resident set (ru_maxrss), which only grows.
"""
import contextlib
import json
import resource
import sys
import time

import torch

from pytrain.bert_model import build_random
from pytrain.gradcache import Side, chunk_rows, pair_step
from pytrain.model_configs import BertConfig
from training.dpr.losses import in_batch_nll


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def peak_reset(device):
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def peak_bytes(device):
    if device.type == "cuda":
        return int(torch.cuda.max_memory_allocated(device))
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def is_oom(e):
    return isinstance(e, getattr(torch.cuda, "OutOfMemoryError", ())) or "out of memory" in str(e)


def tokens(gen, rows, length, vocab, device):
    ids = torch.randint(1000, vocab, (rows, length), generator=gen)
    ids[:, 0] = 101
    ids[:, -1] = 102
    return ids.to(device), torch.ones_like(ids).to(device), torch.zeros_like(ids).to(device)


def train_case(case, cfg, steps, device, amp_dtype, gen):
    q_model = build_random(cfg, 1).configure(attention="auto").to(device).train()
    p_model = build_random(cfg, 2).configure(attention="auto").to(device).train()
    opt = torch.optim.AdamW(list(q_model.parameters()) + list(p_model.parameters()), lr=1e-5)
    q = tokens(gen, case["queries"], case["query_len"], cfg.vocab_size, device)
    p = tokens(gen, case["passages"], case["passage_len"], cfg.vocab_size, device)

    def chunks(t):
        return [tuple(x[s:e] for x in t) for s, e in chunk_rows(t[0].shape[0], case["chunk"])]

    def autocast():
        return torch.autocast(device_type="cuda", dtype=amp_dtype) if amp_dtype is not None else contextlib.nullcontext()

    step = pair_step(case["chunk"])
    loss_fn = lambda a, b: in_batch_nll(a, b)[0]  # noqa: E731
    peak_reset(device)

    def one():
        opt.zero_grad(set_to_none=True)
        loss = step((Side(q_model), Side(p_model)), (chunks(q), chunks(p)), loss_fn, autocast, lambda x: x, lambda a, b: (a, b))
        opt.step()
        return loss

    try:
        one()  # warm-up (allocator, kernels)
        sync(device)
        t0 = time.perf_counter()
        for _ in range(steps):
            loss = one()
        sync(device)
        seconds = (time.perf_counter() - t0) / steps
        return {"name": case["name"], "seconds_per_step": seconds, "steps_per_s": 1 / seconds, "peak_bytes": peak_bytes(device),
                "loss": float(loss), "chunk": case["chunk"]}
    except RuntimeError as e:
        if not is_oom(e):
            raise
        return {"name": case["name"], "oom": True, "peak_bytes": peak_bytes(device), "chunk": case["chunk"]}
    finally:
        del q_model, p_model, opt
        peak_reset(device)


def encode_case(enc, cfg, device, gen):
    model = build_random(cfg, 3).configure(attention="auto").to(device).eval()
    ids, mask, types = tokens(gen, enc["rows"], enc["len"], cfg.vocab_size, device)
    ctx = torch.autocast(device_type="cuda", dtype=torch.float16) if device.type == "cuda" else contextlib.nullcontext()
    peak_reset(device)
    with torch.inference_mode(), ctx:
        model(ids[:enc["batch"]], mask[:enc["batch"]], types[:enc["batch"]])
        sync(device)
        t0 = time.perf_counter()
        for s in range(0, enc["rows"], enc["batch"]):
            model(ids[s:s + enc["batch"]], mask[s:s + enc["batch"]], types[s:s + enc["batch"]]).float().cpu()
        sync(device)
    seconds = time.perf_counter() - t0
    return {"rows": enc["rows"], "len": enc["len"], "batch": enc["batch"], "seconds": seconds, "passages_per_s": enc["rows"] / seconds,
            "dtype": "fp16" if device.type == "cuda" else "fp32", "peak_bytes": peak_bytes(device)}


def search_case(s, device, gen):
    torch.backends.cuda.matmul.allow_tf32 = False
    shard = torch.randn(s["rows"], s["dim"], generator=gen).to(device)
    queries = torch.randn(s["queries"], s["dim"], generator=gen).to(device)
    torch.topk(queries[:8] @ shard.t(), s["depth"], dim=1)
    sync(device)
    t0 = time.perf_counter()
    for q0 in range(0, s["queries"], 256):
        torch.topk(queries[q0:q0 + 256] @ shard.t(), s["depth"], dim=1).indices.cpu()
    sync(device)
    seconds = time.perf_counter() - t0
    return {"rows": s["rows"], "queries": s["queries"], "dim": s["dim"], "seconds": seconds,
            "gscores_per_s": s["rows"] * s["queries"] / seconds / 1e9}


def main(argv):
    with open(argv[0], encoding="utf-8") as f:
        conf = json.load(f)
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    if device.type == "cpu":
        torch.set_num_threads(int(conf.get("threads", 1)))
    amp = None
    if device.type == "cuda":
        amp = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    cfg = BertConfig.from_dict(conf["bert"])
    gen = torch.Generator().manual_seed(int(conf.get("seed", 0)))
    out = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu", "torch": torch.__version__,
           "amp": str(amp).replace("torch.", "") if amp is not None else "fp32",
           "train": [train_case(c, cfg, int(conf["steps"]), device, amp, gen) for c in conf["train"]],
           "encode": encode_case(conf["encode"], cfg, device, gen),
           "search": search_case(conf["search"], device, gen)}
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
