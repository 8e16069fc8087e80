"""Hard-negative sampling: n per example per step from its mined list, never a gold passage."""


def candidates(mined_row, gold):
    """Mined ids in rank order without padding (-1), gold passages and repeats."""
    seen, out = set(), []
    for pid in mined_row:
        pid = int(pid)
        if pid < 0 or pid in gold or pid in seen:
            continue
        seen.add(pid)
        out.append(pid)
    return out


def random_non_gold(rng, n_passages, gold, avoid):
    """A uniformly random passage that is not gold (and not already chosen, when possible)."""
    if n_passages <= len(gold):
        raise ValueError(f"cannot draw a negative: all {n_passages} passages are gold")
    for _ in range(1000):
        pid = int(rng.integers(0, n_passages))
        if pid not in gold and pid not in avoid:
            return pid
    for _ in range(1000):
        pid = int(rng.integers(0, n_passages))
        if pid not in gold:
            return pid
    raise ValueError("could not draw a non-gold negative in 2000 tries")


def sample_negatives(rng, mined_row, gold, n, n_passages, filter_gold=True):
    """Returns (n passage ids, how many came from the random fallback).

    Uniform without replacement over the filtered top-k list; when it holds fewer than n
    ids, the rest are random non-gold passages from the collection (counted as fallbacks).
    `filter_gold=False` keeps gold passages in the mined list, as the authors' released
    code does (a gold passage can then be drawn as a "negative").
    """
    if n <= 0:
        return [], 0
    cands = candidates(mined_row if mined_row is not None else (), gold if filter_gold else set())
    if len(cands) >= n:
        picks = rng.choice(len(cands), size=n, replace=False)
        return [cands[int(j)] for j in picks], 0
    chosen = list(cands)
    fallback = 0
    while len(chosen) < n:
        chosen.append(random_non_gold(rng, n_passages, gold, set(chosen)))
        fallback += 1
    return chosen, fallback


def gold_set(pos, gold_row=None):
    g = {int(pos)}
    if gold_row is not None:
        g.update(int(x) for x in gold_row if int(x) >= 0)
    return g

