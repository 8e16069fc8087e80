"""Pure computations exposed for the tests (pytrain/selftest.py's protocol: JSON on stdin, one
`RESULT <json>` line out; `batch` runs several)."""
from types import SimpleNamespace

import torch

from pytrain.model_configs import T5Config
from qa.fid.fid_io import Decoder, load_state
from qa.fid.t5_model import FiDT5, relative_position_bucket


def _buckets(a):
    rel = torch.as_tensor(a["relative"], dtype=torch.long)
    return relative_position_bucket(rel, a["bidirectional"], a.get("num_buckets", 32), a.get("max_distance", 128)).tolist()


def _tiny(seed):
    c = T5Config.from_dict({"vocab_size": 40, "d_model": 16, "d_kv": 4, "d_ff": 32, "num_layers": 2, "num_heads": 2, "dropout_rate": 0.0})
    return FiDT5(c).init_weights(seed)


def _varied(seed):
    """A random tiny model whose greedy output varies step to step: a small embedding lets the
    attention, not the residual copy of the last token, decide the next token."""
    m = _tiny(seed)
    with torch.no_grad():
        m.shared.weight.mul_(0.05)
    return m


def _generate(a):
    """Greedy decoding twice on the same input, with and without the key/value cache (full recomputation)."""
    torch.manual_seed(0)
    m = _varied(a["seed"]).eval()
    ids = torch.as_tensor(a["input_ids"], dtype=torch.long)
    mask = (ids != 0).long()
    cached = m.generate(ids, mask, a["max_length"])
    enc, enc_mask = m.encode_passages(ids, mask)
    full = []
    with torch.no_grad():
        for b in range(ids.size(0)):
            seq = [0]
            for _ in range(a["max_length"]):
                h, _ = m.decoder.decode(m.shared(torch.as_tensor([seq])), enc[b:b + 1], enc_mask[b:b + 1])
                nxt = int(m.lm_logits(h[:, -1]).argmax(-1))
                if nxt == 1:
                    break
                seq.append(nxt)
            full.append(seq[1:])
    return {"cached": cached, "again": m.generate(ids, mask, a["max_length"]), "full": full}


def _load(a):
    """A tiny model's state saved under HF names, with the tolerated extras and without lm_head, loads back exactly."""
    src = _tiny(1)
    state = {k: v.numpy() for k, v in src.state_dict().items()}
    state["encoder.embed_tokens.weight"] = state["shared.weight"]
    state["decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight"] = torch.zeros(32, 2).numpy()
    if a.get("unknown"):
        state["decoder.block.0.layer.2.DenseReluDense.wi_0.weight"] = state["shared.weight"]
    dst = _tiny(2)
    load_state(dst, state, "<test>")
    return all(torch.equal(dst.state_dict()[k], src.state_dict()[k]) for k in src.state_dict())


def _span(a):
    """A noise mask from a seeded generator and the corruption it gives (span_corruption.py)."""
    import numpy as np  # noqa: PLC0415
    from qa.fid.span_corruption import SpanError, corrupt, noise_mask, span_counts  # noqa: PLC0415
    try:
        if "mask" in a:
            mask = np.asarray(a["mask"], dtype=bool)
        else:
            mask = noise_mask(len(a["tokens"]), a["density"], a["mean_span"], np.random.default_rng(a["seed"]))
        counts = span_counts(len(a["tokens"]), a.get("density", 0.15), a.get("mean_span", 3.0))
        inp, tgt = corrupt(a["tokens"], mask, a["vocab_size"], a["sentinels"], 1)
        return {"mask": [int(b) for b in mask], "counts": list(counts), "input": inp, "target": tgt}
    except SpanError as e:
        return {"error": str(e)}


TESTS = {
    "span": _span,
    "buckets": _buckets,
    "generate": _generate,
    "load": _load,
    "decode": lambda a: Decoder(a["pieces"])(a["ids"]),
    "names": lambda a: sorted(_tiny(1).state_dict()),
}


def _tiny_t5(seed, checkpointing):
    m = FiDT5(T5Config.from_dict({"vocab_size": 50, "d_model": 16, "d_kv": 4, "d_ff": 32, "num_layers": 2, "num_heads": 2, "dropout_rate": 0.0}))
    return m.init_weights(seed).configure(attention="math", checkpointing=checkpointing).train()


def _fid_task(seed, chunk, group, checkpointing):
    """A tiny FiD task (pytrain/checks.py's factory): 6 questions of 2 passages, answers of 1-4 tokens."""
    import numpy as np  # noqa: PLC0415
    from pytrain.amp import Amp  # noqa: PLC0415
    from qa.fid.fid_trainer import FidTask  # noqa: PLC0415
    rng = np.random.default_rng(seed)
    ids = rng.integers(3, 50, size=(6, 2, 10)).astype(np.int32)
    ids[:, :, 8:] = 0
    labels = np.full((6, 5), -100, dtype=np.int32)
    for q in range(6):
        labels[q, :q % 4 + 2] = list(rng.integers(3, 50, size=q % 4 + 1)) + [1]
    inp = SimpleNamespace(train_ids=ids, train_labels=labels)
    cfg = {"seed": seed, "batch_size": 6, "n_context": 2, "grad_cache_chunk": chunk}
    return FidTask(_tiny_t5(seed, checkpointing), inp, cfg, torch.device("cpu"), Amp("none", torch.device("cpu"), lambda _m: None), group), np.arange(6)


def _span_task(seed, chunk, group, checkpointing):
    """A tiny span-corruption task: 6 passages of 8-12 tokens, noise masks from the epoch's stream."""
    import numpy as np  # noqa: PLC0415
    from pytrain.amp import Amp  # noqa: PLC0415
    from qa.fid.span_trainer import SpanTask  # noqa: PLC0415
    rng = np.random.default_rng(seed)
    tokens = rng.integers(3, 40, size=(6, 12)).astype(np.int32)
    for r in range(6):
        tokens[r, 8 + r % 4:] = 0
    corpus = SimpleNamespace(train=tokens, vocab_size=50, eos_id=1)
    cfg = {"seed": seed, "batch_size": 6, "grad_cache_chunk": chunk, "noise_density": 0.25, "mean_span_length": 2.0, "sentinels": 8}
    task = SpanTask(_tiny_t5(seed, checkpointing), corpus, cfg, torch.device("cpu"), Amp("none", torch.device("cpu"), lambda _m: None), group)
    task.batches(1)
    return task, np.arange(6)


def _features(factory):
    def run(a):
        import os  # noqa: PLC0415
        from pytrain.checks import features  # noqa: PLC0415
        return features(factory, a, os.path.dirname(os.path.abspath(__file__)))
    return run


TESTS["features"] = _features(_fid_task)
TESTS["span-features"] = _features(_span_task)


def _attention(a):
    """The fused kernel (torch >= 2.0) against the explicit float32 softmax on one tiny T5's loss and generations."""
    from pytrain.attention import HAS_SDPA  # noqa: PLC0415
    if not HAS_SDPA:
        return {"has_sdpa": False}
    ids = torch.randint(3, 50, (3, 2, 7), generator=torch.Generator().manual_seed(a.get("seed", 0)))
    labels = torch.randint(3, 50, (3, 4), generator=torch.Generator().manual_seed(1))
    out = {}
    for mode in ("math", "sdpa"):
        m = _tiny_t5(a.get("seed", 0), False).configure(attention=mode).eval()
        with torch.no_grad():
            out[mode] = (float(m.loss(ids, (ids != 0).long(), labels)), m.generate(ids, (ids != 0).long(), 5))
    return {"has_sdpa": True, "loss_diff": abs(out["math"][0] - out["sdpa"][0]), "same_generations": out["math"][1] == out["sdpa"][1]}


TESTS["attention"] = _attention
