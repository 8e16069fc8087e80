"""The readers' dev scores, as steps/qa/scoring.ts computes them (the tests hold both to the same
numbers): SQuAD's answer normalisation, exact match and token F1, max over the gold answers."""
from collections import Counter
import re
import string


def normalize_answer(s):
    """SQuAD normalisation, as steps/qa/scoring.ts (the test holds both to the same strings)."""
    t = s.lower()
    t = "".join(ch for ch in t if ch not in set(string.punctuation))
    t = re.sub(r"\b(a|an|the)\b", " ", t)
    return " ".join(t.split())


def exact_match(golds, prediction):
    p = normalize_answer(prediction)
    return max((1.0 if normalize_answer(g) == p else 0.0) for g in golds) if golds else 0.0


def token_f1(golds, prediction):
    """SQuAD token F1 (multiset overlap of the normalised tokens), max over the gold answers: steps/qa/scoring.ts's tokenF1."""
    p = normalize_answer(prediction).split()

    def one(gold):
        g = normalize_answer(gold).split()
        if not g or not p:
            return 1.0 if len(g) == len(p) else 0.0
        same = sum((Counter(g) & Counter(p)).values())
        if same == 0:
            return 0.0
        precision, recall = same / len(p), same / len(g)
        return 2 * precision * recall / (precision + recall)
    return max(one(g) for g in golds) if golds else 0.0


def dev_score(golds_per_question, predictions):
    """Mean EM and F1 of predictions[i] against golds_per_question[i] (the dev split's model-selection score)."""
    n = len(predictions)
    em = sum(exact_match(golds_per_question[i], a) for i, a in enumerate(predictions))
    f1 = sum(token_f1(golds_per_question[i], a) for i, a in enumerate(predictions))
    return {"em": em / max(1, n), "f1": f1 / max(1, n), "questions": n}
