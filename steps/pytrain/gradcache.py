"""One optimisation step's forward and backward pass, in one graph or with a gradient cache.

A bi-encoder's in-batch loss couples every query with every passage of the batch, so the
batch cannot be split into independent micro-batches. The gradient cache (Gao, Zhang, Han
and Callan, "Scaling Deep Contrastive Learning Batch Size under Memory Limited Setup", 2021)
splits the *computation* instead, and keeps the gradients exactly:

1. encode every chunk of sequences without a graph (no activations kept), remembering the
   random state each chunk started from (dropout);
2. compute the loss over all embeddings (float32) and its gradient w.r.t. the embeddings;
3. encode each chunk again, now with a graph, from the same random state, and backpropagate
   the cached embedding gradient through it: the parameter gradients add up to the one-graph
   gradients, while only one chunk's activations are ever alive.

The cost is one extra forward pass. Each side of the loss (queries, passages) is a `Side`: a
model and how a chunk becomes its rows of embeddings (default `model(*chunk)`: DPR's [CLS]
vector; DCSR's passages give their sentence vectors). `chunks` are per side lists of device
tensors tuples, in the order of the loss's rows and columns.

Losses that are a sum over independent examples (the readers) need no cache: `accumulate_step`
backpropagates each chunk's share of the loss on its own.
"""
import torch


class Side:
    def __init__(self, model, encode=None, row_shape=None):
        self.model = model
        self.encode = encode or (lambda chunk: model(*chunk))
        self.row_shape = tuple(row_shape) if row_shape is not None else (model.config.hidden_size,)


def _rng_state(device):
    cuda = torch.cuda.get_rng_state(device) if device.type == "cuda" else None
    return torch.get_rng_state(), cuda


def _set_rng_state(state, device):
    torch.set_rng_state(state[0])
    if state[1] is not None:
        torch.cuda.set_rng_state(state[1], device)


def _encode(side, chunks, autocast):
    """float32 (float64 for a float64 model) embeddings of the chunks in one graph (empty input: no rows)."""
    if not chunks:
        return _empty(side)
    with autocast():
        reps = [side.encode(c) for c in chunks]
    return _at_least_float32(torch.cat(reps))


def _empty(side):
    param = next(side.model.parameters())
    return torch.zeros((0, *side.row_shape), dtype=_at_least_float32(param).dtype, device=param.device)


def _at_least_float32(t):
    """Half-precision embeddings become float32 for the loss; float32 and float64 stay as they are."""
    return t if t.dtype in (torch.float32, torch.float64) else t.float()


def plain_step(sides, chunks, loss_fn, autocast, scale, gather):
    """Both sides' graphs over this process's rows at once; returns the detached loss."""
    q = _encode(sides[0], chunks[0], autocast)
    p = _encode(sides[1], chunks[1], autocast)
    loss = loss_fn(*gather(q, p))
    if loss.requires_grad:  # a data-parallel process whose slice of a last, short batch is empty has no graph
        scale(loss).backward()
    return loss.detach()


def _cache_reps(side, chunks, autocast):
    """Step 1 for one side: embeddings without a graph and each chunk's starting random state."""
    if not chunks:
        return _empty(side), []
    device = chunks[0][0].device
    reps, states = [], []
    with torch.no_grad(), autocast():
        for c in chunks:
            states.append(_rng_state(device))
            reps.append(_at_least_float32(side.encode(c)))
    return torch.cat(reps), states


def _backward_chunks(side, chunks, states, grad, autocast):
    """Step 3 for one side: re-encode each chunk with a graph and backpropagate its slice of `grad`;
    the parameter gradients accumulate over the chunks."""
    if not chunks:
        return
    device = chunks[0][0].device
    resume = _rng_state(device)
    start = 0
    for c, state in zip(chunks, states):
        _set_rng_state(state, device)
        with autocast():
            rep = side.encode(c)
        n = rep.shape[0]
        torch.autograd.backward(rep, grad_tensors=grad[start:start + n].to(rep.dtype))
        start += n
    _set_rng_state(resume, device)


def cached_step(sides, chunks, loss_fn, autocast, scale, gather):
    """The gradient-cache step (module docstring); returns the detached loss."""
    q_reps, q_states = _cache_reps(sides[0], chunks[0], autocast)
    p_reps, p_states = _cache_reps(sides[1], chunks[1], autocast)
    q_leaf = q_reps.detach().requires_grad_(True)
    p_leaf = p_reps.detach().requires_grad_(True)
    loss = loss_fn(*gather(q_leaf, p_leaf))
    if not loss.requires_grad:
        return loss.detach()
    scale(loss).backward()  # the gradient w.r.t. this process's embeddings, scaled as the loss is
    for side, cs, states, leaf in ((sides[0], chunks[0], q_states, q_leaf), (sides[1], chunks[1], p_states, p_leaf)):
        if leaf.grad is not None:
            _backward_chunks(side, cs, states, leaf.grad, autocast)
    return loss.detach()


def pair_step(chunk):
    """The bi-encoder step for a `grad_cache_chunk` setting: one graph (None) or the cache."""
    return plain_step if chunk is None else cached_step


def accumulate_step(parts, loss_of, autocast, scale, device):
    """A loss that is a sum over independent examples, one chunk at a time: `parts` are (chunk,
    share) pairs, `loss_of(chunk)` the chunk's mean loss, `share` its weight in the batch's loss
    (its examples over the global batch's). Each chunk's graph is freed by its backward pass.
    Returns the detached loss of this process's parts (a zero when it has none: a data-parallel
    process still takes part in the step's gradient sum)."""
    if not parts:
        return torch.zeros((), dtype=torch.float32, device=device)
    total = None
    for chunk, share in parts:
        with autocast():
            loss = loss_of(chunk) * share
        scale(loss).backward()
        total = loss.detach() if total is None else total + loss.detach()
    return total


def shares(weights, group, chunk):
    """This process's chunks of a batch whose loss is a weighted mean over its rows (weights: 1 a
    question, or its target tokens): [(slice of rows, the chunk's weight over the batch's)], chunks
    of at most `chunk` rows of this process's contiguous slice; weightless chunks are left out."""
    weights = [int(w) for w in weights]
    total = sum(weights)
    a, b = group.slice(len(weights))
    out = []
    for s, e in chunk_rows(b - a, chunk):
        w = sum(weights[a + s:a + e])
        if w > 0:
            out.append((slice(a + s, a + e), w / total))
    return out


def chunk_rows(n, size):
    """Row ranges [start, end) of at most `size` rows covering 0..n (size None: one range)."""
    if n == 0:
        return []
    if size is None or size >= n:
        return [(0, n)]
    return [(s, min(n, s + size)) for s in range(0, n, size)]
