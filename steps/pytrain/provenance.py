"""What a trained model's numbers depend on beyond its inputs and config (the machine's
environment: logged as the step's `ran on:` line, not written into its outputs, since it differs
between two machines that compute the same bytes under one key), and whether its dev curve
reached a plateau."""
import json
import os
import platform
import sys

import numpy as np
import torch

CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile", "neon", "asimd")


def _cpu():
    model, flags = platform.processor() or platform.machine(), []
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "Model") and model in ("", platform.machine(), platform.processor()):
                    model = value.strip()
                elif key in ("flags", "Features") and not flags:
                    present = set(value.split())
                    flags = [fl for fl in CPU_FLAGS if fl in present]
    except OSError:
        pass
    return model, flags


def _blas():
    """The BLAS/LAPACK torch was built with and the vector ISA it uses, from torch's build summary."""
    try:
        text = torch.__config__.show()
    except Exception:  # noqa: BLE001 - a summary we cannot read is not an error
        return None
    out = {}
    for line in text.splitlines():
        if "CPU capability usage:" in line:
            out["cpu_capability"] = line.split(":", 1)[1].strip()
        for item in line.split(","):
            key, _, value = item.strip().partition("=")
            if key.endswith(("BLAS_INFO", "LAPACK_INFO")) or key == "USE_MKLDNN":
                out[key.split()[-1]] = value
    return out or None


def environment(device):
    """Everything recorded here may make two runs of the same config differ: CPU model and vector
    extensions (BLAS kernels differ), torch/numpy versions and their BLAS, thread counts, GPU."""
    model, flags = _cpu()
    env = {
        "python": sys.version.split()[0], "torch": torch.__version__, "numpy": np.__version__,
        "platform": platform.platform(), "cpu_model": model, "cpu_flags": flags,
        "torch_threads": torch.get_num_threads(), "torch_interop_threads": torch.get_num_interop_threads(),
        # Thread counts and the kernel choices a user can force (BLAS core type, ATen's vector ISA).
        "env": {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY") if k in os.environ},
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(), "blas": _blas(),
    }
    capability = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", None)
    if capability is not None:
        env["cpu_capability"] = capability()
    if device.type == "cuda":
        env["gpu"] = torch.cuda.get_device_name(device)
        env["cuda"] = torch.version.cuda
        env["cudnn"] = torch.backends.cudnn.version()
    return env


def numerics_field():
    """{"numerics": identity} with the numerics identity this step's key holds (the pipeline passes
    it as CSPIPE_NUMERICS_IDENTITY, canonical JSON), so a report can tell which numerics each model
    came from and refuse to compare models of different ones; {} when run outside cspipe."""
    raw = os.environ.get("CSPIPE_NUMERICS_IDENTITY")
    return {"numerics": json.loads(raw)} if raw else {}


def plateau_summary(per_epoch, patience):
    """How much the best dev recall still rose in the last `window` selectable epochs
    (window = max(2, patience)): a small gain means the curve reached its plateau."""
    epochs = sorted(int(e) for e in per_epoch if int(e) >= 1)
    window = max(2, patience)
    if len(epochs) <= window:
        return {"window": window, "epochs": len(epochs), "gain": None}
    before = max(per_epoch[str(e)] for e in epochs[:-window])
    within = max(per_epoch[str(e)] for e in epochs[-window:])
    return {"window": window, "epochs": len(epochs), "best_before": before, "best_within": within,
            "gain": round(max(0.0, within - before), 6)}
