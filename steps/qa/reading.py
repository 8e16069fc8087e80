"""What the two readers (dpr_reader, fid) share on top of the training package: the initial model
from a flag, the dev score as model selection sees it (EM, then F1 for ties, then the earlier
epoch), and result.json's selection fields."""
import os

from pytrain.errors import InputError
from pytrain.selection import BestEpoch
from qa.em_f1 import dev_score, exact_match


def init_flag(init_from, other, other_flag, other_kind):
    """(init, flag): --init-from (an earlier model of the same reader: checkpoint) or the other flag
    (pre-trained weights of `other_kind`); they exclude each other."""
    if init_from and other:
        raise InputError(f"both --init-from and {other_flag} are given", fix="pass one of them")
    if init_from:
        return {"kind": "checkpoint", "path": os.path.abspath(init_from)}, "--init-from"
    if other:
        return {"kind": other_kind, "path": os.path.abspath(other)}, other_flag
    return None, None


def dev_em_summary(result):
    """The text of a reader's `done:` line (pytrain/train_program.py): its dev EM; none for a result
    without one (pretrain-span)."""
    return f"dev EM {result['dev_em']}" if "dev_em" in result else None


def em_f1_selector():
    """The readers' rule: the best dev EM, ties broken by dev F1, a full tie keeps the earlier epoch
    (QReCC's sentence answers leave EM at 0 for every epoch of a small reader, so EM alone would
    keep the first epoch by default)."""
    return BestEpoch(higher=True, name="dev EM")


def scored(golds, predictions):
    """(selection score, metrics fields) of a dev evaluation's answers."""
    s = dev_score(golds, predictions)
    return (s["em"], s["f1"]), {"dev_em": s["em"], "dev_f1": s["f1"], "dev_questions": s["questions"]}


def passage_fields(golds, reads, has_answer):
    """Where a reader that selects a passage fails, per dev evaluation: the share of questions whose
    selected passage holds the answer (`dev_right_passage`) and the EM among those
    (`dev_em_given_right_passage`, null when none); `reads` are (answer, selected candidate index)
    pairs, `has_answer` the dev candidates' flags [Q, P] (none in inputs written before it: no fields)."""
    if has_answer is None or not reads:
        return {}
    right = [i for i, (_, b) in enumerate(reads) if b >= 0 and has_answer[i, b]]
    em = sum(exact_match(golds[i], reads[i][0]) for i in right)
    return {"dev_right_passage": len(right) / len(reads), "dev_em_given_right_passage": em / len(right) if right else None}


def selection_result(fit, writer):
    """result.json's selection fields: the kept epoch's EM and F1 and both per scored epoch."""
    em, f1 = fit.best_score if fit.best_score is not None else (None, None)
    return {"dev_em": em, "dev_f1": f1, "dev_em_per_epoch": writer.per_epoch("dev_em"), "dev_f1_per_epoch": writer.per_epoch("dev_f1")}


def dev_limit(cfg, n):
    """How many dev questions model selection scores (dev_questions; 0 = all)."""
    return n if cfg["dev_questions"] == 0 else min(cfg["dev_questions"], n)
