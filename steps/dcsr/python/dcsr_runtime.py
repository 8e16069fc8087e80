"""Seeding, device and mixed precision for the DCSR trainer (the same policy as the DPR trainer's)."""
import os
import random

import numpy as np
import torch

from errors import TrainingInputError


def seed_everything(seed, deterministic=True):
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)
    if deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)


def pick_device(name):
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise TrainingInputError("device 'cuda' requested but torch sees no GPU", field="device", fix="use 'auto' or 'cpu'")
    return torch.device(name)


class Amp:
    """fp16 autocast + GradScaler or bf16 autocast on CUDA; float32 on CPU."""

    def __init__(self, mode, device, log):
        self.dtype = None
        if device.type == "cuda" and mode != "none":
            self.dtype = torch.float16 if mode == "fp16" else torch.bfloat16
        elif device.type != "cuda" and mode != "none":
            log(f"note: amp '{mode}' applies on CUDA only; training in float32 on {device.type}")
        enabled = self.dtype == torch.float16
        amp = getattr(torch, "amp", None)
        try:
            self.scaler = amp.GradScaler("cuda", enabled=enabled) if amp is not None and hasattr(amp, "GradScaler") else torch.cuda.amp.GradScaler(enabled=enabled)
        except TypeError:
            self.scaler = torch.cuda.amp.GradScaler(enabled=enabled)

    def autocast(self, device):
        if self.dtype is None:
            return torch.autocast(device_type="cpu", enabled=False)
        return torch.autocast(device_type=device.type, dtype=self.dtype)
