"""torch side of bench/qa/main.ts: the DPR reader answering questions the way its trainer answers
the dev questions (reader_train_loop.answer: the question's top passages in one batch, best
passage by selection logit, best span, whole words), from the same reader directory and inputs the
ONNX side reads. Prints one JSON line per mode: seconds of the best pass, questions/s, the answers.
usage: torch_reader.py --model READER_DIR --inputs INPUTS_DIR --threads N --modes eager,inference
       [--top-docs 50] [--max-answer 10] [--passes 2]
(the modes share one process, each timed after its own warm-up: torch's import is paid once)
  eager      torch.no_grad() (the trainer's path)
  inference  torch.inference_mode()
Threads: torch.set_num_threads(--threads); the parent sets OMP_NUM_THREADS and OPENBLAS_NUM_THREADS
to match (torch.set_num_threads alone leaves OpenBLAS's pool on every core)."""
import argparse
import json
import sys
import time

import torch

from qa.dpr_reader.data import ReaderInputs
from qa.dpr_reader.reader_answers import answer
from qa.dpr_reader.reader_model import build_reader

p = argparse.ArgumentParser()
p.add_argument("--model", required=True)
p.add_argument("--inputs", required=True)
p.add_argument("--threads", type=int, default=1)
p.add_argument("--modes", default="eager,inference")
p.add_argument("--top-docs", type=int, default=50)
p.add_argument("--max-answer", type=int, default=10)
p.add_argument("--passes", type=int, default=2)
a = p.parse_args()
torch.set_num_threads(a.threads)
inp = ReaderInputs(a.inputs)
model, _ = build_reader({"kind": "checkpoint", "path": a.model}, 0, int(inp.meta["vocabSize"]), False, lambda m: None)
model.eval()
cfg = {"eval_top_docs": a.top_docs, "eval_batch_size": a.top_docs, "max_answer_length": a.max_answer}
cpu = torch.device("cpu")
n = inp.dev.question_ids.shape[0]
for mode in a.modes.split(","):
    if mode not in ("eager", "inference"):
        sys.exit(f"unknown mode {mode!r}: eager or inference")
    ctx = torch.no_grad if mode == "eager" else torch.inference_mode
    with ctx():
        answer(model, inp, 0, cfg, cpu, inp.dev)  # warm-up
        best, answers = float("inf"), []
        for _ in range(a.passes):
            t0 = time.perf_counter()
            answers = [answer(model, inp, q, cfg, cpu, inp.dev) for q in range(n)]
            best = min(best, time.perf_counter() - t0)
    print(json.dumps({"mode": mode, "seconds": best, "questions": n, "questions_per_s": n / best, "answers": answers, "torch": torch.__version__}), flush=True)
