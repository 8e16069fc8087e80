"""What the training programs (training.dpr.train, dcsr.python.train_dcsr,
qa.dpr_reader.train_reader, qa.fid.fid train and pretrain-span) share around their own part: the
command line's options, and the tail once the config is loaded: the run's setup, the inputs, the
process group, the task, and one `done:` line. torch is imported only inside `run_training`, which
runs after program.require_modules has said whether torch is there."""
import argparse
import json

from pytrain.program import log


def training_parser(prog, flags, description=None):
    """The command line of a training program: each of `flags` a string option, then --threads N."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    for flag in flags:
        ap.add_argument(flag)
    ap.add_argument("--threads", type=int)
    return ap


def run_training(cfg, threads, module, argv, train, summary, read_inputs=None, training=True):
    """setup_run first (a GPU-required step fails here, at once, before any input is read); then
    `read_inputs()` (bad input exits 2 before any worker starts); then the process group
    (distributed.start: when several processes are wanted, this one launches them and returns
    their exit status; `training` False: one process); then `train(inputs, device, group)`.
    When the result is this process's to report (None in a data-parallel process other than the
    first) and `summary(result)` gives a text, stderr gets `done: best epoch <b>, <text>, <s> s`
    and `ran on: <json>` (the result's "run" field: metrics.common_result).
    Returns the exit status."""
    from pytrain import distributed  # noqa: PLC0415 - torch; see the module's docstring
    from pytrain.run import setup_run  # noqa: PLC0415
    device = setup_run(cfg, threads, log=log)
    inputs = read_inputs() if read_inputs is not None else None
    group, status = distributed.start(cfg, module, argv, log, training=training)
    if group is None:
        return status
    try:
        result = train(inputs, device, group)
    finally:
        group.close()
    text = None if result is None else summary(result)
    if text is not None:
        run = result["run"]
        log(f"done: best epoch {result['best_epoch']}, {text}, {run['seconds']} s")
        log(f"ran on: {json.dumps(run['environment'], sort_keys=True)}")
    return 0
