"""Which rows an encode step reads and in which batches (pure, numpy only)."""
import numpy as np


def split_rows(n, shards, shard):
    """Rows [start, end) of one shard: the first n % shards shards get one more row
    (steps/encoding/onnx/shards.ts splitRows)."""
    base, extra = divmod(n, shards)
    start = shard * base + min(shard, extra)
    return start, start + base + (1 if shard < extra else 0)


def real_lengths(ids, block=1 << 16):
    """Per row: last non-pad position + 1 (0 for an all-pad row), read in blocks from a memory map."""
    out = np.empty(ids.shape[0], dtype=np.int64)
    width = ids.shape[1]
    for s in range(0, ids.shape[0], block):
        nz = np.asarray(ids[s:s + block]) != 0
        last = width - np.argmax(nz[:, ::-1], axis=1)
        out[s:s + block] = np.where(nz.any(axis=1), last, 0)
    return out


def batches(lengths, order, batch_size, max_tokens):
    """Consecutive runs of `order` with at most batch_size rows and batch_size x longest <= max_tokens."""
    out, cur, longest = [], [], 0
    for i in order:
        n = int(lengths[i])
        if cur and (len(cur) + 1 > batch_size or (len(cur) + 1) * max(longest, n) > max_tokens):
            out.append(cur)
            cur, longest = [], 0
        cur.append(int(i))
        longest = max(longest, n)
    if cur:
        out.append(cur)
    return out
