"""The GPU features every trainer offers, set from its config the same way: the attention kernel
(`attention`: auto, sdpa or math) and activation checkpointing of its models, and what result.json
records of them with the gradient cache's chunk (`grad_cache_chunk`)."""
from pytrain.errors import InputError


def configure_models(models, cfg):
    """Each model's `configure(attention=..., checkpointing=...)`; returns the attention mode in use."""
    for m in models:
        try:
            m.configure(attention=cfg["attention"], checkpointing=cfg["activation_checkpointing"])
        except ValueError as e:
            raise InputError(str(e), field="attention", fix="use 'auto' or 'math'") from e
    return models[0].attention_mode


def feature_fields(cfg, attention):
    return {"attention": attention, "grad_cache_chunk": cfg["grad_cache_chunk"], "activation_checkpointing": cfg["activation_checkpointing"]}


def describe(cfg, attention, amp, device):
    """One log line of the features a training runs with."""
    chunk = cfg["grad_cache_chunk"]
    return (f"on {device}; attention {attention}; gradient cache {'off' if chunk is None else 'chunks of ' + str(chunk)}; "
            f"activation checkpointing {'on' if cfg['activation_checkpointing'] else 'off'}; amp {amp.mode}")
