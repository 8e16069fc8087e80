"""The epoch loop every trainer runs: steps that never wait for the device (losses are summed on
it and read once per epoch), an evaluation after each epoch, a metrics row, the selection rule
(selection.py) deciding which epoch's weights are kept and when to stop, and the kept weights
restored at the end.

A trainer is a *task* the loop drives:
    task.models            the modules trained (their weights are what is kept)
    task.steps_per_epoch   optimisation steps per epoch
    task.batches(epoch)    the epoch's batches, planned on the host (the same in every process)
    task.step(batch)       forward and backward of one batch; returns the loss as a detached device
                           tensor, or None when the batch holds nothing to learn from
    task.evaluate()        (score for the selection rule, fields for the metrics row); called in the
                           first process only, the score is passed to the others
    task.counters()        running counts for the rows (e.g. fallback negatives)
    task.partial_loss      True when each process's loss is its share of the batch's (summed over
                           the processes once per epoch), False when every process has the whole loss
"""
import time
from typing import NamedTuple

import numpy as np
import torch

from pytrain.distributed import Single


class Fit(NamedTuple):
    best_epoch: object
    best_score: object
    epochs_run: int
    stopped_early: bool
    steps: int


def epoch_order(seed, epoch, n):
    """The example order of one epoch: a permutation fixed by (seed, epoch)."""
    return np.random.default_rng([int(seed), int(epoch)]).permutation(n)


def epoch_slices(seed, epoch, n, batch_size):
    """The epoch's batches: consecutive slices of `epoch_order`."""
    order = epoch_order(seed, epoch, n)
    return [order[s:s + batch_size] for s in range(0, n, batch_size)]


class Keeper:
    """The kept epoch's weights, on the host (only the first process keeps them)."""

    def __init__(self, models):
        self.models, self.state = models, None

    def keep(self):
        self.state = [{k: v.detach().clone().cpu() for k, v in m.state_dict().items()} for m in self.models]

    def restore(self):
        if self.state is not None:
            for m, s in zip(self.models, self.state):
                m.load_state_dict(s)


def run_epoch(task, updater, batches, device, progress, step=0):
    """One epoch's steps; returns (summed loss as a device tensor, steps that learnt)."""
    loss_sum = torch.zeros((), dtype=torch.float32, device=device)
    learnt = 0
    for batch in batches:
        loss = task.step(batch)
        if loss is not None:
            updater.step()
            loss_sum += loss
            learnt += 1
        updater.advance()
        step += 1
        progress(step)
    return loss_sum, learnt


def _mean_loss(loss_sum, learnt, task, group):
    """The epoch's train loss: the epoch's one host sync."""
    if task.partial_loss and group.world_size > 1:
        loss_sum = group.sum_tensor(loss_sum)
    return float((loss_sum / learnt).item()) if learnt else None


def _evaluate(task, group, device):
    score, fields = task.evaluate() if group.is_main else (None, {})
    return group.broadcast_score(score, device), fields


class Loop:
    """Runs `task` for up to `epochs` epochs (module docstring). `initial`: None, or "logged"
    (the starting weights scored as epoch 0, never kept) or "candidate" (scored and kept unless
    an epoch beats them)."""

    def __init__(self, task, updater, selector, writer, device, group=None, log=None, emit=None):
        self.task, self.updater, self.selector, self.writer, self.device = task, updater, selector, writer, device
        self.group = group or Single()
        self.log, self.emit = log or (lambda _m: None), (emit if self.group.is_main else None) or (lambda _l: None)
        # Only the first process keeps weights, and only for a rule that may keep an earlier epoch.
        self.keeper = Keeper(task.models) if self.group.is_main and not selector.keeps_final_weights else None

    def _record(self, epoch, fields, extra, t0):
        self.writer.record({"epoch": epoch, **fields, **extra, **self.task.counters(), "seconds": round(time.time() - t0, 3)})

    def _observe(self, epoch, score):
        verdict = self.selector.observe(epoch, score)
        if verdict.kept and self.keeper is not None:
            self.keeper.keep()
        return verdict

    def _score_start(self, initial, t0):
        score, fields = _evaluate(self.task, self.group, self.device)
        self._record(0, fields, {"selectable": initial == "candidate", "train_loss": None, "steps": 0}, t0)
        if initial == "candidate":
            self._observe(0, score)

    def run(self, epochs, progress_every, initial=None, eval_every=1):
        """`eval_every`: the dev score after every eval_every-th epoch and the last; the epochs
        between are trained and recorded without one (never kept, never counted for patience)."""
        t0, total = time.time(), self.task.steps_per_epoch * epochs
        if initial is not None:
            self._score_start(initial, t0)

        def progress(done):
            if done % progress_every == 0 or done == total:
                self.emit(f"PROGRESS {done} {total}")

        self.emit(f"PROGRESS 0 {total}")
        step, stopped = 0, None
        for epoch in range(1, epochs + 1):
            t_epoch = time.perf_counter()
            loss_sum, learnt = run_epoch(self.task, self.updater, self.task.batches(epoch), self.device, progress, step)
            step += self.task.steps_per_epoch
            train_loss = _mean_loss(loss_sum, learnt, self.task, self.group)
            train_seconds = time.perf_counter() - t_epoch
            scored = epoch % eval_every == 0 or epoch == epochs
            score, fields = _evaluate(self.task, self.group, self.device) if scored else (None, {})
            self._record(epoch, fields, {"selectable": scored, "train_loss": train_loss, "steps": step, "lr": self.updater.lr,
                                         "train_seconds": round(train_seconds, 4)}, t0)
            if scored and self._observe(epoch, score).stop and epoch < epochs:
                stopped = epoch
                self.log(self.selector.stop_message(epoch, epochs))
                break
        if self.keeper is not None:
            self.keeper.restore()
        return Fit(self.selector.best_epoch, self.selector.best_score, stopped or epochs, stopped is not None, step)
