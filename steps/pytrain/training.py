"""What every trainer sets up the same way around its task (loop.py): mixed precision, the
optimiser, the metrics writer and the loop, and result.json with the common fields."""
import time

from pytrain.amp import Amp
from pytrain.distributed import Single
from pytrain.features import configure_models, describe, feature_fields
from pytrain.loop import Loop
from pytrain.metrics import MetricsWriter, common_result, write_result
from pytrain.optim import NO_DECAY, Updater


class Training:
    def __init__(self, cfg, device, out_dir, log, emit, group=None):
        self.cfg, self.device, self.out_dir, self.log, self.emit = cfg, device, out_dir, log, emit
        self.group = group or Single()
        self.t0 = time.time()
        self.amp = Amp(cfg["amp"], device, log)
        self.writer = MetricsWriter(out_dir, emit, enabled=self.group.is_main)
        self.attention = None

    def configure(self, models):
        """The attention kernel and activation checkpointing of the models (features.py), then on the device in training mode."""
        self.attention = configure_models(models, self.cfg)
        for m in models:
            m.to(self.device).train()

    def fit(self, task, selector, initial=None, no_decay=NO_DECAY, eval_every=1):
        """Runs the loop over `cfg["epochs"]` (initial, eval_every: loop.Loop.run's); the kept
        weights are in the task's models afterwards (in the first process)."""
        cfg = self.cfg
        updater = Updater(task.models, cfg, task.steps_per_epoch * cfg["epochs"], self.amp, self.group, no_decay)
        if self.group.world_size > 1:
            self.log(f"rank {self.group.rank} of {self.group.world_size} ({self.group.backend}) on {self.device}")
        self.log(f"{task.steps_per_epoch} steps per epoch of {cfg['batch_size']} examples {describe(cfg, self.attention, self.amp, self.device)}")
        loop = Loop(task, updater, selector, self.writer, self.device, self.group, self.log, self.emit)
        return loop.run(cfg["epochs"], cfg["progress_every"], initial, eval_every)

    def finish(self, fit, write_outputs, **own):
        """After the loop: in the first process the kept model's outputs (`write_outputs()` -> their
        names) and result.json, the common fields (metrics.common_result) then the trainer's own,
        which it returns; every other process returns None. All meet at a barrier first."""
        if not self.group.is_main:
            self.group.barrier()
            return None
        outputs = write_outputs()
        self.group.barrier()
        common = common_result(fit, self.device, self.amp, self.group, self.t0, **feature_fields(self.cfg, self.attention))
        return write_result(self.out_dir, {**common, **own, "outputs": outputs})
