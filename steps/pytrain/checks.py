"""The package's GPU features checked on CPU, for any trainer's task (loop.py): a step in chunks
(the gradient cache, or per-example chunks), data parallel over gloo processes, and activation
checkpointing give the one-graph gradients; the step loop makes no tensor-to-host call. A
trainer's self-test hands in a *factory*: a module-level function (so worker processes can import
it) `factory(seed, chunk, group, checkpointing) -> (task, batch)` building a tiny task and one batch
(no dropout: the data-parallel processes would draw other masks than one process does).

    features  {world, chunks, seed} -> {chunks: [{chunk, max_abs_diff}], checkpointing: {max_abs_diff, forward_calls, forward_calls_without},
                                        ddp: [{chunk, max_abs_diff, loss}], max_abs_grad, loss_ref, syncs}
"""
import os
import sys
import tempfile

import torch

from pytrain import distributed
from pytrain.loop import run_epoch

SYNC_METHODS = ("item", "tolist", "numpy", "cpu", "__float__", "__int__", "__bool__")


def _grads(task):
    return torch.cat([p.grad.reshape(-1) if p.grad is not None else torch.zeros(p.numel(), dtype=p.dtype) for m in task.models for p in m.parameters()])


def step_gradients(factory, seed, chunk, group=None, checkpointing=False):
    """(loss, gradients, module forward calls) of one step of the factory's batch: activation
    checkpointing shows as more forward calls (each checkpointed layer runs again in backward)."""
    task, batch = factory(seed, chunk, group or distributed.Single(), checkpointing)
    calls = [0]
    hooks = [m.register_forward_pre_hook(lambda *_: calls.__setitem__(0, calls[0] + 1)) for model in task.models for m in model.modules()]
    loss = task.step(batch)
    for h in hooks:
        h.remove()
    return float(loss), _grads(task), calls[0]


def _ddp_worker(rank, world, port, factory, seed, chunks, out):
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank)})
    torch.set_num_threads(1)
    group = distributed.Group("cpu")
    results = []
    for chunk in chunks:
        task, batch = factory(seed, chunk, group, False)
        loss = task.step(batch)
        group.all_reduce_grads([p for m in task.models for p in m.parameters()])
        total = group.sum_tensor(loss) if task.partial_loss else loss
        results.append({"grads": _grads(task), "loss": float(total)})
    if rank == 0:
        torch.save(results, out)
    group.close()


def data_parallel(factory, seed, world, chunks):
    """One step per `chunks` entry in `world` gloo processes: rank 0's summed gradients and the batch's loss."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "rank0.pt")
        torch.multiprocessing.spawn(_ddp_worker, args=(world, distributed.free_port(), factory, seed, chunks, out), nprocs=world)
        return torch.load(out)


def host_syncs(factory, seed, steps, own_dirs, chunk=None):
    """(tensor-to-host calls made by code in `own_dirs` and the package while the loop runs `steps`
    steps of the factory's batch, the summed loss)."""
    from pytrain.amp import Amp  # noqa: PLC0415
    from pytrain.optim import Updater  # noqa: PLC0415
    task, batch = factory(seed, chunk, distributed.Single(), False)
    cfg = {"lr": 1e-3, "weight_decay": 0.01, "adam_eps": 1e-8, "warmup_ratio": 0.1, "clip": 1.0}
    updater = Updater(task.models, cfg, 100, Amp("none", torch.device("cpu"), lambda _m: None), distributed.Single())
    own = {os.path.dirname(os.path.abspath(__file__)), *own_dirs}
    calls = {m: 0 for m in SYNC_METHODS}
    originals = {m: getattr(torch.Tensor, m) for m in SYNC_METHODS}

    def counting(name):
        def f(self, *args, **kwargs):
            if os.path.dirname(os.path.abspath(sys._getframe(1).f_code.co_filename)) in own:
                calls[name] += 1
            return originals[name](self, *args, **kwargs)
        return f

    for m in SYNC_METHODS:
        setattr(torch.Tensor, m, counting(m))
    try:
        total, _ = run_epoch(task, updater, [batch] * steps, torch.device("cpu"), lambda _done: None)
    finally:
        for m in SYNC_METHODS:
            setattr(torch.Tensor, m, originals[m])
    return calls, float(total)


def features(factory, a, own_dir):
    """The `features` self-test of a trainer (module docstring)."""
    seed, world, chunks = a.get("seed", 0), a.get("world", 2), a.get("chunks", [None, 2])
    loss_ref, g_ref, forwards = step_gradients(factory, seed, None)
    diff = lambda g: float((g - g_ref).abs().max())  # noqa: E731
    _, g_ckpt, forwards_ckpt = step_gradients(factory, seed, None, checkpointing=True)
    return {
        "max_abs_grad": float(g_ref.abs().max()), "loss_ref": loss_ref,
        "chunks": [{"chunk": c, "max_abs_diff": diff(step_gradients(factory, seed, c)[1])} for c in chunks],
        "checkpointing": {"max_abs_diff": diff(g_ckpt), "forward_calls": forwards_ckpt, "forward_calls_without": forwards},
        "ddp": [{"chunk": c, "max_abs_diff": diff(r["grads"]), "loss": r["loss"]} for c, r in zip(chunks, data_parallel(factory, seed, world, chunks))],
        "syncs": host_syncs(factory, seed, 3, [own_dir])[0],
    }
