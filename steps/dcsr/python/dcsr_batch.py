"""One step's sentences (pure numpy): per example a positive sentence, an in-passage negative
and mined negatives, as (passage row, marker slot) columns, and the mask of columns that must
not count as negatives of a query.

Per example i (DCSR, Wu et al. 2022, §3.2):
  positive      a slot labelled 1 in the positive passage (uniform);
  in-passage    a slot labelled 0 there (neither contains the answer nor neighbours one that
                does); none: a sentence of the first mined negative passage stands in (another
                slot than its mined one where the passage has two);
  mined         BM25 mode: `n` distinct mined passages, one uniform sentence of each;
                sentence mode (DCSR x IHN): `n` distinct mined sentences.
Mined lists lose padding, gold passages, repeats and passages without a vector first; a
shortfall is made up by random non-gold passages (counted as fallbacks).
Columns: [positives of examples 0..B-1, then each example's negatives in order]; query i's
target is column i.
"""
import numpy as np


def _gold(pos, gold_row):
    g = {int(pos)}
    g.update(int(x) for x in gold_row if int(x) >= 0)
    return g


def _random_passage(rng, marked, gold, avoid=()):
    n = len(marked)
    for _ in range(10000):
        r = int(rng.integers(0, n))
        if r not in gold and r not in avoid and marked[r] > 0:
            return r
    raise ValueError("could not draw a non-gold passage with a sentence vector in 10000 tries")


class Sampler:
    def __init__(self, inputs, cfg, seed):
        self.inp, self.cfg = inputs, cfg
        self.rng = np.random.default_rng([int(seed), 1])  # separate from the example order
        self.fallbacks = 0
        self.in_passage_fallbacks = 0

    def _mined(self, i, gold):
        """The candidate negatives of example i: (row, slot or None) in rank order."""
        inp, out, seen = self.inp, [], set()
        if inp.neg is not None:
            for r in inp.neg[i]:
                r = int(r)
                if r < 0 or r in gold or r in seen or inp.marked[r] == 0:
                    continue
                seen.add(r)
                out.append((r, None))
        else:
            for r, s in zip(inp.neg_rows[i], inp.neg_slots[i]):
                r, s = int(r), int(s)
                if r < 0 or r in gold or (r, s) in seen or s >= inp.marked[r]:
                    continue
                seen.add((r, s))
                out.append((r, s))
        return out

    def example(self, i):
        """Columns (row, slot) of example i: positive, in-passage negative (if configured), mined negatives."""
        inp, rng, n = self.inp, self.rng, self.cfg["negative_sentences"]
        pos = int(inp.pos[i])
        labels = np.asarray(inp.labels[i])
        gold = _gold(pos, inp.gold[i])
        positives = np.flatnonzero(labels == 1)
        pos_slot = int(positives[rng.integers(0, len(positives))])
        cands = self._mined(i, gold)
        picks = [cands[int(j)] for j in rng.choice(len(cands), size=min(n, len(cands)), replace=False)] if cands else []
        while len(picks) < n:
            picks.append((_random_passage(rng, inp.marked, gold, {p[0] for p in picks}), None))
            self.fallbacks += 1
        negs = [(r, int(rng.integers(0, inp.marked[r])) if s is None else s) for r, s in picks]
        cols = [(pos, pos_slot)]
        if self.cfg["in_passage_negatives"] > 0:
            inside = np.flatnonzero(labels == 0)
            if len(inside) > 0:
                cols.append((pos, int(inside[rng.integers(0, len(inside))])))
            else:
                self.in_passage_fallbacks += 1
                r, s = negs[0]
                if inp.marked[r] > 1:
                    other = int(rng.integers(0, inp.marked[r] - 1))
                    cols.append((r, other if other < s else other + 1))
                else:
                    r2 = _random_passage(rng, inp.marked, gold, {r})
                    cols.append((r2, int(rng.integers(0, inp.marked[r2]))))
        return cols + negs, gold

    def batch(self, idx):
        """(columns, mask): columns in the layout above; mask[i, c] True where column c may not be a negative of query i."""
        per = [self.example(int(i)) for i in idx]
        cols = [p[0][0] for p in per] + [c for p in per for c in p[0][1:]]
        golds = [p[1] for p in per]
        mask = column_mask(cols, [int(self.inp.pos[int(i)]) for i in idx], [np.asarray(self.inp.labels[int(i)]) for i in idx], golds)
        return cols, mask


def column_mask(cols, pos_rows, labels, golds):
    """mask[i, c]: column c is not query i's target and is a sentence of one of its other gold
    passages, or a sentence of its positive passage labelled 1 (answer) or 2 (excluded)."""
    b = len(pos_rows)
    mask = np.zeros((b, len(cols)), dtype=bool)
    for i in range(b):
        for c, (r, s) in enumerate(cols):
            if c == i:
                continue
            if r == pos_rows[i]:
                mask[i, c] = labels[i][s] in (1, 2)
            elif r in golds[i]:
                mask[i, c] = True
    return mask
