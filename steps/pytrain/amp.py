"""Mixed precision: fp16 autocast with a GradScaler, or bf16 autocast, on CUDA; plain float32 on
CPU. Losses leave autocast for their similarities and cross-entropy (training/dpr/losses.py),
so those are float32 either way. A disabled scaler passes the loss and the step through
unchanged, so every trainer takes the same path on every device."""
import torch

from pytrain.errors import InputError


def _grad_scaler(enabled):
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        try:
            return amp.GradScaler("cuda", enabled=enabled)
        except TypeError:
            pass
    return torch.cuda.amp.GradScaler(enabled=enabled)


class Amp:
    def __init__(self, mode, device, log):
        self.dtype = None
        if device.type == "cuda" and mode != "none":
            if mode == "bf16" and not torch.cuda.is_bf16_supported():
                raise InputError(f"amp 'bf16' needs a GPU with bfloat16 support (Ampere or newer); "
                                 f"{torch.cuda.get_device_name(device)} has none", field="amp",
                                 fix="set amp to 'fp16' (loss scaling) or 'none'")
            self.dtype = torch.float16 if mode == "fp16" else torch.bfloat16
        elif device.type != "cuda" and mode != "none":
            log(f"note: amp '{mode}' applies on CUDA only; training in float32 on {device.type}")
        self.device = device
        self.scaler = _grad_scaler(self.dtype == torch.float16)

    @property
    def mode(self):
        """What result.json records: the autocast dtype in use, or none."""
        return {None: "none", torch.float16: "fp16", torch.bfloat16: "bf16"}[self.dtype]

    def autocast(self):
        if self.dtype is None:
            return torch.autocast(device_type="cpu", enabled=False)
        return torch.autocast(device_type=self.device.type, dtype=self.dtype)

    def scale(self, loss):
        return self.scaler.scale(loss)
