"""Both readers' per-epoch dev record and kept checkpoint: each scored epoch (0 = the start, when
it is a candidate) is a metrics.jsonl row and an `EPOCH <json>` line, and replaces the kept
weights when qa_config.better_dev says it beats them."""
import json
import os

from qa_config import better_dev


class KeptCheckpoint:
    def __init__(self, out_dir, emit):
        self.path = os.path.join(out_dir, "metrics.jsonl")
        open(self.path, "w").close()
        self.emit, self.rows, self.epoch, self.score, self.state = emit, [], None, None, None

    def record(self, epoch, score, extra, model):
        row = {"epoch": epoch, "dev_em": score["em"], "dev_f1": score["f1"], "dev_questions": score["questions"], **extra}
        self.rows.append(row)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, sort_keys=True) + "\n")
        self.emit("EPOCH " + json.dumps(row, sort_keys=True))
        if better_dev(score, self.score):
            self.epoch, self.score = epoch, score
            self.state = {k: v.detach().clone().cpu() for k, v in model.state_dict().items()}

    def restore(self, model):
        if self.state is not None:
            model.load_state_dict(self.state)

    def result(self):
        """result.json's selection fields."""
        s = self.score
        return {"best_epoch": self.epoch or 0, "dev_em": s["em"] if s else None, "dev_f1": s["f1"] if s else None,
                "dev_em_per_epoch": {str(r["epoch"]): r["dev_em"] for r in self.rows}, "dev_f1_per_epoch": {str(r["epoch"]): r["dev_f1"] for r in self.rows}}
