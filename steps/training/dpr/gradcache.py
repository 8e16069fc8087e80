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

The cost is one extra forward pass. `chunks` are lists of (input_ids, attention_mask,
token_type_ids) on the device, in the order of the loss's rows and columns.
"""
import torch


def _rng_state(device):
    cuda = torch.cuda.get_rng_state(device) if device.type == "cuda" else None
    return torch.get_rng_state(), cuda


def _set_rng_state(state, device):
    torch.set_rng_state(state[0])
    if state[1] is not None:
        torch.cuda.set_rng_state(state[1], device)


def _encode(model, chunks, autocast):
    """float32 (float64 for a float64 model) [rows, D] embeddings of the chunks in one graph (empty input: [0, D])."""
    if not chunks:
        return _empty(model)
    with autocast():
        reps = [model(*c) for c in chunks]
    return _at_least_float32(torch.cat(reps))


def _empty(model):
    param = next(model.parameters())
    return torch.zeros((0, model.config.hidden_size), dtype=_at_least_float32(param).dtype, device=param.device)


def _at_least_float32(t):
    """Half-precision embeddings become float32 for the loss; float32 and float64 stay as they are."""
    return t if t.dtype in (torch.float32, torch.float64) else t.float()


def plain_step(models, chunks, loss_fn, autocast, scale, gather):
    """Both encoders' graphs over this process's rows at once; returns the detached loss."""
    q = _encode(models[0], chunks[0], autocast)
    p = _encode(models[1], chunks[1], autocast)
    loss = loss_fn(*gather(q, p))
    if loss.requires_grad:  # a data-parallel process whose slice of a last, short batch is empty has no graph
        scale(loss).backward()
    return loss.detach()


def _cache_reps(model, chunks, autocast):
    """Step 1 for one encoder: embeddings without a graph and each chunk's starting random state."""
    if not chunks:
        return _empty(model), []
    device = chunks[0][0].device
    reps, states = [], []
    with torch.no_grad(), autocast():
        for c in chunks:
            states.append(_rng_state(device))
            reps.append(_at_least_float32(model(*c)))
    return torch.cat(reps), states


def _backward_chunks(model, chunks, states, grad, autocast):
    """Step 3 for one encoder: re-encode each chunk with a graph and backpropagate its slice of `grad`;
    the parameter gradients accumulate over the chunks."""
    if not chunks:
        return
    device = chunks[0][0].device
    resume = _rng_state(device)
    start = 0
    for c, state in zip(chunks, states):
        _set_rng_state(state, device)
        with autocast():
            rep = model(*c)
        n = rep.shape[0]
        torch.autograd.backward(rep, grad_tensors=grad[start:start + n].to(rep.dtype))
        start += n
    _set_rng_state(resume, device)


def cached_step(models, chunks, loss_fn, autocast, scale, gather):
    """The gradient-cache step (module docstring); returns the detached loss."""
    (q_model, p_model), (q_chunks, p_chunks) = models, chunks
    q_reps, q_states = _cache_reps(q_model, q_chunks, autocast)
    p_reps, p_states = _cache_reps(p_model, p_chunks, autocast)
    q_leaf = q_reps.detach().requires_grad_(True)
    p_leaf = p_reps.detach().requires_grad_(True)
    loss = loss_fn(*gather(q_leaf, p_leaf))
    if not loss.requires_grad:
        return loss.detach()
    scale(loss).backward()  # the gradient w.r.t. this process's embeddings, scaled as the loss is
    for model, cs, states, leaf in ((q_model, q_chunks, q_states, q_leaf), (p_model, p_chunks, p_states, p_leaf)):
        if leaf.grad is not None:
            _backward_chunks(model, cs, states, leaf.grad, autocast)
    return loss.detach()


def chunk_rows(n, size):
    """Row ranges [start, end) of at most `size` rows covering 0..n (size None: one range)."""
    if n == 0:
        return []
    if size is None or size >= n:
        return [(0, n)]
    return [(s, min(n, s + size)) for s in range(0, n, size)]
