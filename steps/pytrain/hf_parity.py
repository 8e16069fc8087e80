"""Optional check against Hugging Face's BertModel when `transformers` is importable."""
import numpy as np
import torch

PARITY_ATOL = 1e-4


def check_against_transformers(model, log, seed=0):
    try:
        import transformers  # noqa: PLC0415 - optional, present in users' containers only
    except ImportError:
        log("note: transformers not importable; skipping the BertModel parity check")
        return None
    c = model.config
    hf_cfg = transformers.BertConfig(**{k: v for k, v in c.to_hf_dict().items()
                                        if k not in ("add_pooling_layer", "architectures", "model_type")})
    ref = transformers.BertModel(hf_cfg, add_pooling_layer=False).eval()
    state = {k: v for k, v in model.state_dict().items() if not k.startswith("pooler.")}
    missing, unexpected = ref.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith(("position_ids", "token_type_ids"))]
    if missing or unexpected:
        raise RuntimeError(f"transformers parity: names differ (missing {missing[:5]}, unexpected {unexpected[:5]})")
    rng = np.random.default_rng(seed)
    ids = torch.as_tensor(rng.integers(1, c.vocab_size, size=(3, 9)), dtype=torch.long)
    ids[1, 6:] = 0
    mask = (ids != 0).long()
    types = torch.zeros_like(ids)
    types[:, 4:] = 1 if c.type_vocab_size > 1 else 0
    was = model.training
    model.eval()
    with torch.no_grad():
        ours = model(ids, mask, types)
        theirs = ref(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state[:, 0]
    model.train(was)
    diff = float((ours - theirs).abs().max())
    if not diff < PARITY_ATOL:
        raise RuntimeError(f"transformers parity failed: max abs diff {diff:.3g} >= {PARITY_ATOL}")
    log(f"transformers {transformers.__version__} BertModel parity ok: max abs diff {diff:.3g}")
    return diff
