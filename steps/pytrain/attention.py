"""The attention kernels the models offer: torch's fused scaled_dot_product_attention (torch >=
2.0: flash / memory-efficient / math, chosen by torch, never materialising the [batch, heads,
seq, seq] probabilities for the backward pass) or the explicit softmax ("math", what the ONNX
exports use). `attention` in a config: "sdpa", "math" or "auto" (sdpa where torch has it)."""
import inspect
import math

import torch
from torch.nn import functional as F

HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


def takes_scale(signature=inspect.signature, version=torch.__version__):
    """Whether scaled_dot_product_attention takes `scale` (torch >= 2.1; 2.0 always divides by
    sqrt(head width)). Asked of its signature, which some builds do not expose for the builtin
    (torch 2.11 on Python 3.12: ValueError, which stopped every trainer on an H200 on
    2026-11-29), else of the version."""
    try:
        return "scale" in signature(getattr(F, "scaled_dot_product_attention", None)).parameters
    except (TypeError, ValueError):
        major, minor = (int("".join(c for c in part if c.isdigit()) or 0) for part in version.split(".")[:2])
        return (major, minor) >= (2, 1)


_TAKES_SCALE = HAS_SDPA and takes_scale()
ATTENTION_MODES = ("auto", "sdpa", "math")


def use_fused(attention):
    """Whether `attention` means the fused kernel here; ValueError for a mode torch cannot run."""
    if attention not in ATTENTION_MODES:
        raise ValueError(f"attention must be one of {', '.join(ATTENTION_MODES)}, got {attention!r}")
    if attention == "sdpa" and not HAS_SDPA:
        raise ValueError(f"attention 'sdpa' needs torch >= 2.0 (scaled_dot_product_attention); this is torch {torch.__version__}")
    return attention == "sdpa" or (attention == "auto" and HAS_SDPA)


def fused_attention(q, k, v, mask, dropout_p, scale=None):
    """softmax(q kᵀ · scale + mask) v in one kernel (scale None: 1/sqrt(head width)); `mask` is
    boolean (True = attend) or additive."""
    if scale is None:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
    if _TAKES_SCALE:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p, scale=scale)
    return F.scaled_dot_product_attention(q * (scale * math.sqrt(q.size(-1))), k, v, attn_mask=mask, dropout_p=dropout_p)
