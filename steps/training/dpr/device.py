"""Where and in which precision the trainer computes: the device (one rule for every caller),
mixed precision, and seeding."""
import os
import random
import sys

import numpy as np
import torch

from errors import TrainingInputError

# Set by the executors: "cuda-required" when the step requires a GPU (no --allow-cpu),
# "cpu-allowed" under --allow-cpu, "auto" otherwise.
DEVICE_HINT_ENV = "CSPIPE_DEVICE_HINT"


def seed_everything(seed, deterministic=True):
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)
    if deterministic:
        # cuBLAS needs a fixed workspace for deterministic GEMMs; set before CUDA initialises.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)


def cuda_summary():
    """What this interpreter's torch says about CUDA, for messages and result.json."""
    return {"python": sys.executable, "torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "cuda_available": torch.cuda.is_available(), "devices": torch.cuda.device_count() if torch.cuda.is_available() else 0,
            "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES")}


def require_cuda_message():
    s = cuda_summary()
    build = "a CPU-only build (torch.version.cuda is None)" if s["torch_cuda"] is None else f"built for CUDA {s['torch_cuda']}"
    return (f"a GPU is required but torch {s['torch']} at {s['python']} ({build}) sees no CUDA device"
            + (f" (CUDA_VISIBLE_DEVICES={s['CUDA_VISIBLE_DEVICES']!r})" if s["CUDA_VISIBLE_DEVICES"] is not None else ""))


def pick_device(name, local_rank=0, env=os.environ):
    """The device: `cuda` and a GPU-required step (env hint) need CUDA and fail at once without it;
    `auto` elsewhere takes CUDA when torch sees it; `cpu` is CPU."""
    required = name == "cuda" or (name == "auto" and env.get(DEVICE_HINT_ENV) == "cuda-required")
    if required and not torch.cuda.is_available():
        raise TrainingInputError(require_cuda_message(), field="device",
                                 fix="run on a machine whose torch sees a GPU (a CUDA build of torch), "
                                     "or pass --allow-cpu to the pipeline (or device 'cpu') to train on CPU")
    if name == "cpu" or not torch.cuda.is_available():
        return torch.device("cpu")
    return torch.device("cuda", local_rank)


def _grad_scaler(enabled):
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        try:
            return amp.GradScaler("cuda", enabled=enabled)
        except TypeError:
            pass
    return torch.cuda.amp.GradScaler(enabled=enabled)


class Amp:
    """fp16 autocast + GradScaler or bf16 autocast on CUDA; plain float32 on CPU. The loss
    (losses.py) leaves autocast: similarities and cross-entropy are float32 either way."""

    def __init__(self, mode, device, log):
        self.dtype = None
        if device.type == "cuda" and mode != "none":
            if mode == "bf16" and not torch.cuda.is_bf16_supported():
                raise TrainingInputError(f"amp 'bf16' needs a GPU with bfloat16 support (Ampere or newer); "
                                         f"{torch.cuda.get_device_name(device)} has none", field="amp",
                                         fix="set amp to 'fp16' (loss scaling) or 'none'")
            self.dtype = torch.float16 if mode == "fp16" else torch.bfloat16
        elif device.type != "cuda" and mode != "none":
            log(f"note: amp '{mode}' applies on CUDA only; training in float32 on {device.type}")
        self.device = device
        self.scaler = _grad_scaler(self.dtype == torch.float16)

    def autocast(self):
        if self.dtype is None:
            return torch.autocast(device_type="cpu", enabled=False)
        return torch.autocast(device_type=self.device.type, dtype=self.dtype)

    def scale(self, loss):
        return self.scaler.scale(loss)
