"""Model selection: which epoch a training keeps and when it stops. One rule for every trainer,
as a small object the epoch loop asks after each evaluation (`observe(epoch, score)`); another
rule is another class with the same method, and no loop changes.

`BestEpoch` keeps the epoch with the best score: strictly better replaces the kept epoch, a tie
keeps the earlier. Scores are numbers or tuples compared in order (the readers' (EM, F1): F1
breaks EM ties). `higher` says which way is better (dev Recall@k, EM/F1: higher; dev loss: lower).
With `patience` > 0 the training stops once `patience` epochs in a row brought no gain of at least
`min_delta` in the score's first component over the best so far.

`LastEpoch` keeps the last epoch the loop ran: the end of a schedule decayed to zero, with the
dev score logged but never deciding. Where a dev curve is flat and noisy near its end, the best
epoch is whichever the noise favoured, and a training perturbed by the last bit of a sum keeps
another epoch; the last epoch moves only as much as the weights do."""
from typing import NamedTuple


class Verdict(NamedTuple):
    kept: bool
    stop: bool


def _primary(score):
    return score[0] if isinstance(score, tuple) else score


class BestEpoch:
    # The loop copies the weights of each newly kept epoch, to restore them after the last.
    keeps_final_weights = False

    def __init__(self, higher=True, patience=0, min_delta=0.0, name="the dev score"):
        self.higher, self.patience, self.min_delta, self.name = higher, patience, min_delta, name
        self.best_epoch, self.best_score, self.last_gain = None, None, 0

    def _better(self, a, b):
        return a > b if self.higher else a < b

    def _gain(self, a, b):
        d = _primary(a) - _primary(b) if self.higher else _primary(b) - _primary(a)
        return d >= self.min_delta

    def observe(self, epoch, score):
        """Records an epoch's score; kept: it is now the best; stop: patience has run out."""
        kept = self.best_score is None or self._better(score, self.best_score)
        if kept:
            if self.best_score is None or self._gain(score, self.best_score):
                self.last_gain = epoch
            self.best_epoch, self.best_score = epoch, score
        return Verdict(kept, self.patience > 0 and epoch - self.last_gain >= self.patience)

    def stop_message(self, epoch, epochs):
        return (f"plateau: no {self.name} gain of {self.min_delta} or more since epoch {self.last_gain}; "
                f"stopping after epoch {epoch} of {epochs}")


class LastEpoch:
    """Keeps every epoch as it comes, so the last one run is the one kept; never stops early."""
    # The weights the loop ends with are the kept ones: no copy of them per epoch.
    keeps_final_weights = True

    def __init__(self, name="the dev score"):
        self.name = name
        self.best_epoch, self.best_score = None, None

    def observe(self, epoch, score):
        self.best_epoch, self.best_score = epoch, score
        return Verdict(True, False)

    def stop_message(self, epoch, epochs):
        raise AssertionError("LastEpoch never stops a training")
