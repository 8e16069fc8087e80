"""AdamW with decoupled weight decay on weights only, and DPR's linear warm-up/decay schedule."""
import math

import torch

NO_DECAY = ("bias", "LayerNorm.weight")


def param_groups(models, weight_decay):
    """Weight decay on every matrix/embedding; none on biases and LayerNorm weights."""
    decay, no_decay = [], []
    for model in models:
        for name, p in model.named_parameters():
            if p.requires_grad:
                (no_decay if name.endswith(NO_DECAY) else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def warmup_steps(total_steps, warmup_ratio):
    return int(math.ceil(total_steps * warmup_ratio))


def linear_schedule(total_steps, warmup):
    """lr multiplier: ramps 0 -> 1 over `warmup` steps, then 1 -> 0 linearly at total_steps."""
    def f(step):
        if step < warmup:
            return float(step + 1) / float(max(1, warmup))
        return max(0.0, float(total_steps - step) / float(max(1, total_steps - warmup)))
    return f


def make_optimizer(models, cfg, total_steps):
    opt = torch.optim.AdamW(param_groups(models, cfg["weight_decay"]), lr=cfg["lr"], eps=cfg["adam_eps"],
                            betas=(0.9, 0.999))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, linear_schedule(total_steps, warmup_steps(total_steps, cfg["warmup_ratio"])))
    return opt, sched
