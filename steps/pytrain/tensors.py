"""Token rows from host arrays to device tensors: trimmed to the longest row (trailing all-padding
columns change nothing: pad id 0 is masked), to CUDA through pinned memory without blocking."""
import numpy as np
import torch


def trim(ids, types=None):
    """Drops trailing all-padding columns."""
    nz = np.nonzero((ids != 0).any(axis=0))[0]
    width = int(nz[-1]) + 1 if len(nz) else 1
    return ids[:, :width], (types[:, :width] if types is not None else None)


def to_device(array, device):
    """A host array as a tensor on `device`; to CUDA through pinned memory without blocking the host."""
    t = torch.from_numpy(np.ascontiguousarray(array))
    if device.type == "cuda":
        return t.pin_memory().to(device, non_blocking=True)
    return t


def to_batch(ids, types, device):
    """(input_ids, attention_mask, token_type_ids) int64 tensors on `device`, trimmed to the longest row."""
    ids, types = trim(np.asarray(ids), None if types is None else np.asarray(types))
    t_ids = to_device(ids.astype(np.int64), device)
    t_types = torch.zeros_like(t_ids) if types is None else to_device(types.astype(np.int64), device)
    return t_ids, (t_ids != 0).long(), t_types
