"""AdamW with decoupled weight decay on weights only, the linear warm-up/decay schedule of DPR
(and of both readers), and one optimisation step after the backward pass."""
import math

import torch

# BERT's parameters without weight decay; T5 has no biases and names its norms layer_norm.
NO_DECAY = ("bias", "LayerNorm.weight")
T5_NO_DECAY = ("layer_norm.weight",)


def param_groups(models, weight_decay, no_decay=NO_DECAY):
    """Weight decay on every matrix/embedding; none on parameters named with a `no_decay` suffix."""
    decay, plain = [], []
    for model in models:
        for name, p in model.named_parameters():
            if p.requires_grad:
                (plain if name.endswith(no_decay) else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": plain, "weight_decay": 0.0}]


def warmup_steps(total_steps, warmup_ratio):
    return int(math.ceil(total_steps * warmup_ratio))


def linear_schedule(total_steps, warmup):
    """lr multiplier: ramps 0 -> 1 over `warmup` steps, then 1 -> 0 linearly at total_steps."""
    def f(step):
        if step < warmup:
            return float(step + 1) / float(max(1, warmup))
        return max(0.0, float(total_steps - step) / float(max(1, total_steps - warmup)))
    return f


def make_optimizer(models, cfg, total_steps, no_decay=NO_DECAY):
    opt = torch.optim.AdamW(param_groups(models, cfg["weight_decay"], no_decay), lr=cfg["lr"], eps=cfg["adam_eps"],
                            betas=(0.9, 0.999))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, linear_schedule(total_steps, warmup_steps(total_steps, cfg["warmup_ratio"])))
    return opt, sched


class Updater:
    """After a step's backward pass: the data-parallel gradient sum, unscaling (fp16), clipping
    and the optimiser step (`step`); then, for every step whether it learnt or not, the schedule
    and zeroed gradients (`advance`)."""

    def __init__(self, models, cfg, total_steps, amp, group, no_decay=NO_DECAY):
        self.opt, self.sched = make_optimizer(models, cfg, total_steps, no_decay)
        self.params = [p for m in models for p in m.parameters()]
        self.amp, self.group, self.clip = amp, group, cfg["clip"]

    def step(self):
        self.group.all_reduce_grads(self.params)
        self.amp.scaler.unscale_(self.opt)
        torch.nn.utils.clip_grad_norm_(self.params, self.clip)
        self.amp.scaler.step(self.opt)
        self.amp.scaler.update()

    def advance(self):
        self.sched.step()
        self.opt.zero_grad(set_to_none=True)

    @property
    def lr(self):
        return float(self.sched.get_last_lr()[0])
