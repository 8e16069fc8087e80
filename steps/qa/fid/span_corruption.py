"""T5's span-corruption objective (Raffel et al. 2020, §3.1.4 and §3.3), pure numpy.

The rule, as numbered cases (tests: test/qa/fid-span.test.ts):
1. A sequence of n >= 2 tokens gets round(n x density) noise tokens (half to even, as Python and
   TensorFlow round), at least 1 and at most n - 1.
2. Their number of spans is round(noise / mean_span_length), at least 1 and at most the number
   of kept tokens, so that every noise span follows a kept one.
3. The noise tokens are cut into that many spans of positive length, and the kept tokens into as
   many runs of positive length, each cut equally likely (distinct cut points drawn without
   replacement); the sequence is kept run 1, noise span 1, kept run 2, noise span 2, ...: it
   starts with a kept token and ends with noise.
4. Sentinels: the i-th noise span (from 0) is sentinel i; sentinel i has id vocab_size - 1 - i,
   where vocab_size counts the sentinels (T5's <extra_id_i>, the highest ids first).
5. Input: the kept tokens with each noise span replaced by its sentinel, then eos.
   Target: for each span its sentinel then its tokens, then one more sentinel (the T5 paper's
   Figure 2: "<X> for inviting <Y> last <Z>"), then eos.
6. A sequence of fewer than 2 tokens cannot be corrupted: the caller skips it (and counts it).
"""
import numpy as np


class SpanError(ValueError):
    pass


def random_segmentation(n_items, n_segments, rng):
    """n_items cut into n_segments positive lengths (rule 3)."""
    if n_segments < 1 or n_segments > n_items:
        raise SpanError(f"cannot cut {n_items} items into {n_segments} positive segments")
    cuts = np.sort(rng.choice(np.arange(1, n_items), n_segments - 1, replace=False)) if n_segments > 1 else np.zeros(0, dtype=np.int64)
    return np.diff(np.concatenate([[0], cuts, [n_items]])).astype(np.int64)


def span_counts(length, density, mean_span):
    """(noise tokens, spans) of a sequence of `length` tokens (rules 1-2)."""
    if length < 2:
        raise SpanError(f"a sequence of {length} token(s) cannot be corrupted")
    n_noise = min(max(int(round(length * density)), 1), length - 1)
    n_spans = min(max(int(round(n_noise / mean_span)), 1), length - n_noise)
    return n_noise, n_spans


def noise_mask(length, density, mean_span, rng):
    """Boolean mask of the noise tokens (rules 1-3)."""
    n_noise, n_spans = span_counts(length, density, mean_span)
    noise = random_segmentation(n_noise, n_spans, rng)
    keep = random_segmentation(length - n_noise, n_spans, rng)
    mask = np.zeros(length, dtype=bool)
    pos = 0
    for k, n in zip(keep.tolist(), noise.tolist()):
        pos += k
        mask[pos:pos + n] = True
        pos += n
    return mask


def corrupt(tokens, mask, vocab_size, sentinels, eos_id):
    """(input ids, target ids) of one sequence under a noise mask (rules 4-5)."""
    tokens = [int(t) for t in tokens]
    if len(tokens) != len(mask):
        raise SpanError(f"{len(tokens)} tokens but a mask of {len(mask)}")
    inp, tgt, s, i = [], [], 0, 0
    while i < len(tokens):
        if not mask[i]:
            inp.append(tokens[i])
            i += 1
            continue
        if s + 1 >= sentinels:
            raise SpanError(f"more than {sentinels - 1} noise spans need more sentinels (config key sentinels)")
        sid = vocab_size - 1 - s
        inp.append(sid)
        tgt.append(sid)
        while i < len(tokens) and mask[i]:
            tgt.append(tokens[i])
            i += 1
        s += 1
    tgt.append(vocab_size - 1 - s)
    return inp + [eos_id], tgt + [eos_id]


def max_spans(length, density, mean_span):
    """The most noise spans a sequence of up to `length` tokens gets (to size the sentinels)."""
    return max((span_counts(n, density, mean_span)[1] for n in range(2, length + 1)), default=0)
