"""What a training writes besides its weights: one metrics.jsonl row per scored epoch (each also
an `EPOCH <json>` line on stdout, which the pipeline turns into progress and curves), and
result.json, whose common fields every trainer shares (`common_result`).

Same key, same bytes: a training's outputs hold what it computed, never how the run went. Wall
seconds and the machine it ran on differ between two runs of one key (a clock; another CPU of the
same pinned numerics), so they would give one key two digests, and every step downstream two keys.
They go to the step's log instead: the EPOCH lines keep an epoch's seconds (`RUN_ONLY`), and
`common_result`'s "run" field (seconds, the machine's environment) is logged, never written."""
import json
import os
import time

import torch

from pytrain.provenance import environment, numerics_field


# Fields of an epoch's row that say how the run went (wall seconds): in its EPOCH line, not in metrics.jsonl.
RUN_ONLY = ("seconds", "train_seconds")


class MetricsWriter:
    """Truncates `<out_dir>/metrics.jsonl`; `record(row)` appends the row without its RUN_ONLY
    fields and emits its EPOCH line with them. A disabled writer (a data-parallel process other
    than the first) records nothing."""

    def __init__(self, out_dir, emit, enabled=True):
        self.rows, self.emit, self.enabled = [], emit, enabled
        self.path = os.path.join(out_dir, "metrics.jsonl")
        if enabled:
            os.makedirs(out_dir, exist_ok=True)
            open(self.path, "w").close()

    def record(self, row):
        if not self.enabled:
            return
        self.rows.append(row)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({k: v for k, v in row.items() if k not in RUN_ONLY}, sort_keys=True) + "\n")
        self.emit("EPOCH " + json.dumps(row, sort_keys=True))

    def per_epoch(self, field):
        """{epoch: value} of one field over the recorded rows (result.json's `<field>_per_epoch`)."""
        return {str(r["epoch"]): r[field] for r in self.rows if field in r}


def write_result(out_dir, result):
    """Writes result.json: every field of `result` but "run" (how the run went: the log's, see the
    module docstring). Returns `result` whole."""
    with open(os.path.join(out_dir, "result.json"), "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in result.items() if k != "run"}, f, indent=2, sort_keys=True)
    return result


def common_result(fit, device, amp, group, t0, **gpu_features):
    """The fields every trainer's result.json has: what was kept, on what numerics (the identity
    the key holds) and with which GPU features (`gpu_features`: attention, grad_cache_chunk,
    activation_checkpointing); and "run", never written: the wall seconds and the environment of
    the machine it ran on (provenance.environment)."""
    return {
        "best_epoch": fit.best_epoch or 0, "epochs_run": fit.epochs_run, "stopped_early": fit.stopped_early,
        "steps": fit.steps, "torch_version": torch.__version__,
        "device": str(device), "threads": torch.get_num_threads(), "amp": amp.mode, "world_size": group.world_size,
        "peak_gpu_memory_bytes": torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None,
        **numerics_field(), **gpu_features,
        "run": {"seconds": round(time.time() - t0, 3), "environment": environment(device)},
    }
