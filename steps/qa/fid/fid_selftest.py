"""Pure computations exposed for the tests (JSON on stdin, one `RESULT <json>` line out)."""
import json
import sys

import torch

from fid_io import Decoder, load_state
from t5_model import FiDT5, T5Config, relative_position_bucket


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
    from span_corruption import SpanError, corrupt, noise_mask, span_counts  # noqa: PLC0415
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


def _batch(items):
    """[[name, arg], ...] -> one result each ({"error": message} for bad input): one interpreter start for many checks."""
    from qa_config import QaInputError  # noqa: PLC0415
    out = []
    for name, arg in items:
        try:
            out.append(TESTS[name](arg))
        except QaInputError as e:
            out.append({"error": " ".join(str(e).split())})
    return out


def run_selftest(name, stdin):
    if name == "batch":
        sys.stdout.write("RESULT " + json.dumps(_batch(json.loads(stdin))) + "\n")
        return 0
    if name not in TESTS:
        sys.stderr.write(f"error: unknown selftest {name!r} (known: {', '.join(sorted(TESTS))})\n")
        return 2
    sys.stdout.write("RESULT " + json.dumps(TESTS[name](json.loads(stdin or "{}"))) + "\n")
    return 0
