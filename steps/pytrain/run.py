"""Where a program computes and how it starts: one function, `setup_run`, that every program
calls first. It fixes the CPU threads, picks the device, and seeds every random stream; a check
of the machine against the numerics a step's key names belongs here too.

Threads: the program's `--threads` flag (or a config's `threads`, for direct use of a program),
else CSPIPE_THREADS, which the executors set from the step's declared cpus, else 1. Nothing else
in the environment chooses them: the numbers must not depend on what the user happened to export.
1 is the default because on the 2-core reference machine 1 thread trained the tiny model faster
than 2 (bench/training/train-steps.ts measures it)."""
import os
import random
import sys

import numpy as np
import torch

from pytrain.errors import InputError

# Set by the executors: "cuda-required" when the step requires a GPU (no --allow-cpu),
# "cpu-allowed" under --allow-cpu, "auto" otherwise.
DEVICE_HINT_ENV = "CSPIPE_DEVICE_HINT"
# Set by the executors from the step's declared cpus.
THREADS_ENV = "CSPIPE_THREADS"


def torch_threads(explicit=None, env=os.environ):
    """The thread rule (module docstring): an explicit choice, else CSPIPE_THREADS, else 1."""
    if explicit is not None:
        return int(explicit)
    try:
        return max(1, int(env.get(THREADS_ENV, "1") or 1))
    except ValueError as e:
        raise InputError(f"{THREADS_ENV}={env.get(THREADS_ENV)!r} is not a thread count", field=THREADS_ENV,
                         fix="a positive integer (the executors set it from the step's cpus)") from e


def seed_everything(seed, deterministic=True):
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)
    if deterministic:
        # cuBLAS needs a fixed workspace for deterministic GEMMs; set before CUDA initialises.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        # Strict, not warn_only: with warn_only, fused attention on CUDA keeps its non-deterministic
        # backward (flash and memory-efficient accumulate with atomics; cuDNN attention is chosen
        # too) and only warns, as it did on an H200 with torch 2.11 (2026-11-29); strict mode makes
        # torch pick their deterministic backward or another kernel, and an op with no deterministic
        # kernel stops the program instead of publishing other bytes under the same key.
        torch.use_deterministic_algorithms(True)


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
        raise InputError(require_cuda_message(), field="device",
                         fix="run on a machine whose torch sees a GPU (a CUDA build of torch), "
                             "or pass --allow-cpu to the pipeline (or device 'cpu') to train on CPU")
    if name == "cpu" or not torch.cuda.is_available():
        return torch.device("cpu")
    return torch.device("cuda", local_rank)


def setup_run(cfg, threads_flag=None, log=None):
    """Every program's start: threads (the rule above; `threads_flag` is --threads, `cfg["threads"]`
    a config's), the device (`cfg["device"]`, default auto; in a data-parallel worker the GPU of its
    LOCAL_RANK), and with `cfg["seed"]` every random stream seeded (deterministic algorithms unless
    `cfg["deterministic"]` is false). Returns the device."""
    explicit = threads_flag if threads_flag is not None else cfg.get("threads")
    torch.set_num_threads(torch_threads(explicit))
    if log is not None:
        log(f"torch {torch.__version__}, {torch.get_num_threads()} CPU thread(s)")
    device = pick_device(cfg.get("device", "auto"), int(os.environ.get("LOCAL_RANK", "0")))
    if cfg.get("seed") is not None:
        seed_everything(cfg["seed"], cfg.get("deterministic", True))
    return device
