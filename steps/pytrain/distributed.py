"""Data-parallel training on the GPUs of one machine (DDP), keeping the one-process loss.

Every process runs the same program on the same global batch order and samples the same
batch (same seeds), but computes only its contiguous slice of it. Two kinds of loss:
- coupled (the bi-encoders: every query against every passage of the batch): each process
  encodes its slice, the embeddings are all-gathered (`gather_rows`), and every process
  computes the loss of the whole global batch. A process's own rows keep their autograd graph
  (the others' are constants), so its backward pass yields the gradient of the global loss
  through its own examples;
- per example (the readers): each process's loss is its slice's share of the batch's loss.
Either way the sum of the processes' gradients (one all-reduce) is exactly the one-process
gradient. Dropout masks differ from a one-process run (each process draws its own), as they
would between two chunkings of one process.

The gradients are summed explicitly after the backward pass instead of by wrapping the
encoders in torch's DistributedDataParallel: the gradient-cache step backpropagates each
encoder several times per step, which DistributedDataParallel would reduce every time.

`launch` re-executes the trainer as one worker process per device with torchrun's environment
(RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), so the trainer also runs as it is
under `torchrun --nproc_per_node N`. Only rank 0 writes outputs and prints PROGRESS/EPOCH lines.
"""
import os
import signal
import socket
import subprocess
import sys
import time

import torch
import torch.distributed as dist

from pytrain.run import pick_device

BUCKET_ELEMENTS = 1 << 25  # 32M values (128 MB of float32) per all-reduce


def slices(n, world):
    """Contiguous [start, end) per rank covering 0..n; sizes differ by at most one (the first n % world get one more)."""
    base, extra = divmod(n, world)
    out, start = [], 0
    for r in range(world):
        end = start + base + (1 if r < extra else 0)
        out.append((start, end))
        start = end
    return out


class Single:
    """One process: nothing to gather or reduce."""

    rank, world_size, is_main = 0, 1, True

    def slice(self, n):
        return 0, n

    def counts(self, n):
        return [n]

    def gather_rows(self, local, counts):
        return local

    def all_reduce_grads(self, params):
        pass

    def sum_tensor(self, t):
        return t

    def broadcast_score(self, score, device):
        return score

    def barrier(self):
        pass

    def close(self):
        pass


class Group:
    """A torch.distributed process group started by torchrun (env:// rendezvous)."""

    def __init__(self, device_type):
        self.backend = "nccl" if device_type == "cuda" else "gloo"
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        if device_type == "cuda":
            torch.cuda.set_device(self.local_rank)
        dist.init_process_group(backend=self.backend, init_method="env://")
        self.rank, self.world_size = dist.get_rank(), dist.get_world_size()
        self.is_main = self.rank == 0

    def slice(self, n):
        return slices(n, self.world_size)[self.rank]

    def counts(self, n):
        """Rows per rank of n rows in contiguous slices."""
        return [e - s for s, e in slices(n, self.world_size)]

    def gather_parts(self, local, sizes):
        """Every rank's rows (`sizes[r]` of them, any trailing shape) as a list in rank order;
        this rank's part keeps its graph."""
        width = max(sizes)
        rest = tuple(local.shape[1:])
        pad = torch.zeros((width - local.shape[0], *rest), dtype=local.dtype, device=local.device)
        bufs = [torch.empty((width, *rest), dtype=local.dtype, device=local.device) for _ in sizes]
        dist.all_gather(bufs, torch.cat([local.detach(), pad]))
        return [local if r == self.rank else bufs[r][:sizes[r]] for r in range(self.world_size)]

    def gather_rows(self, local, counts):
        """All ranks' rows concatenated in rank order: the global rows when each rank holds a contiguous slice."""
        return torch.cat(self.gather_parts(local, counts))

    def all_reduce_grads(self, params):
        """Sums every parameter's gradient over the ranks (missing gradients count as zeros)."""
        grads = []
        for p in params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
            grads.append(p.grad)
        bucket, size = [], 0
        for g in grads + [None]:
            if g is not None:
                bucket.append(g)
                size += g.numel()
            if bucket and (g is None or size >= BUCKET_ELEMENTS):
                flat = torch.cat([b.reshape(-1) for b in bucket])
                dist.all_reduce(flat, op=dist.ReduceOp.SUM)
                offset = 0
                for b in bucket:
                    b.copy_(flat[offset:offset + b.numel()].view_as(b))
                    offset += b.numel()
                bucket, size = [], 0

    def sum_tensor(self, t):
        """The sum of a tensor over the ranks (e.g. an epoch's summed loss shares)."""
        t = t.clone()
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return t

    def broadcast_score(self, score, device):
        """Rank 0's score (a number or a tuple of numbers; pickled, so exact) on every rank: it
        decides the kept epoch and patience, which must agree everywhere."""
        box = [score]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def barrier(self):
        dist.barrier()

    def close(self):
        dist.destroy_process_group()


def start(cfg, module, argv, log, training=True):
    """The process group a program runs in: (group, None) inside a worker started by `launch` or
    torchrun; (Single(), None) for one process; (None, status) after launching the workers when
    more than one process is wanted (`cfg["world_size"]`, else one per visible CUDA device)."""
    if not training:
        return Single(), None
    if in_worker():
        return Group(pick_device(cfg["device"], int(os.environ.get("LOCAL_RANK", "0"))).type), None
    device = pick_device(cfg["device"])  # a GPU-required step without CUDA fails here, at once
    world = resolve_world_size(cfg.get("world_size"), torch.cuda.device_count() if device.type == "cuda" else 0)
    if world > 1:
        return None, launch(world, program_command(module), argv, log)
    return Single(), None


def in_worker():
    """True inside a process started by torchrun."""
    return "RANK" in os.environ and "WORLD_SIZE" in os.environ


def resolve_world_size(cfg_world, cuda_devices):
    """The process count: the config's, else one per visible CUDA device, else 1."""
    if cfg_world is not None:
        return int(cfg_world)
    return max(1, cuda_devices)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_env(base, rank, world_size, port):
    """The environment torchrun gives a local worker (static rendezvous on one machine)."""
    return {**base, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world_size),
            "LOCAL_WORLD_SIZE": str(world_size), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
            "OMP_NUM_THREADS": base.get("OMP_NUM_THREADS", "1")}


def program_command(module):
    """The command that runs a program module of the package again: the launcher (steps/__main__.py,
    in the directory above this package) and the module's name."""
    return [sys.executable, os.path.dirname(os.path.dirname(os.path.abspath(__file__))), module]


def launch(world_size, command, argv, log, poll_seconds=0.2):
    """Runs `command argv` (program_command) as `world_size` local worker processes with torchrun's environment
    (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; a free port, so several trainings
    can share a machine) and returns the exit status: 0 when all succeed, else the first failure's,
    after stopping the others. (torchrun itself is not used: its launcher fails with Python 3.11 in
    torch 1.13, and its elastic restarts are of no use to a cached step.) The workers write to this
    process's stdout and stderr; a SIGTERM is passed on to them."""
    port = free_port()
    cmd = [*command, *argv]
    log(f"data-parallel: {world_size} worker processes (master 127.0.0.1:{port})")
    procs = [subprocess.Popen(cmd, env=worker_env(dict(os.environ), r, world_size, port)) for r in range(world_size)]

    def stop(*_):
        for p in procs:
            if p.poll() is None:
                p.terminate()

    previous = signal.signal(signal.SIGTERM, lambda *a: (stop(), sys.exit(143)))
    try:
        while True:
            codes = [p.poll() for p in procs]
            failed = [c for c in codes if c not in (None, 0)]
            if failed:
                stop()
                for p in procs:
                    try:
                        p.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        p.kill()
                log(f"data-parallel: a worker exited with {failed[0]}; stopped the others")
                return failed[0]
            if all(c == 0 for c in codes):
                return 0
            time.sleep(poll_seconds)
    finally:
        signal.signal(signal.SIGTERM, previous)
