"""The DPR reader answering: the best passage by selection logit among a question's top
eval_top_docs candidates, the best span in it, whole words (spans.py); for model selection on the
dev questions and for the kept model's dev predictions."""
import torch

from qa.dpr_reader.data import pair, strip
from qa.dpr_reader.spans import answer_text, best_passage, best_span


def pad(seqs):
    """Token id lists as one right-padded int64 batch and its attention mask."""
    n = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), n), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.as_tensor(s, dtype=torch.long)
    return ids, (ids != 0).long()


@torch.no_grad()
def read(model, inp, q, cfg, device, split):
    """The model's answer to one question of `split` over its top eval_top_docs candidates, and
    the index of the candidate it read it from (-1 without candidates or text)."""
    question = strip(split.question_ids[q])
    cands = [int(c) for c in split.candidates[q] if c >= 0][:cfg["eval_top_docs"]]
    if not cands:
        return "", -1
    pairs = [pair(question, strip(inp.passage_ids[r]), inp.passage_word[r], int(inp.meta["maxLength"]), inp.sep) for r in cands]
    starts, ends, rels = [], [], []
    for i in range(0, len(pairs), cfg["eval_batch_size"]):
        ids, mask = pad([p[0] for p in pairs[i:i + cfg["eval_batch_size"]]])
        s, e, r = model(ids.to(device), mask.to(device))
        starts += [x.float().cpu().tolist() for x in s]
        ends += [x.float().cpu().tolist() for x in e]
        rels += r.float().cpu().tolist()
    b = best_passage(rels)
    _, off, _, words = pairs[b]
    span = best_span(starts[b][off:], ends[b][off:], words, cfg["max_answer_length"])
    if span is None:
        return "", b
    text, word_spans = inp.dev_texts[cands[b]]
    return answer_text(span[0], span[1], words, text, word_spans), b


def answer(model, inp, q, cfg, device, split):
    """The model's answer to one question of `split` (read's text)."""
    return read(model, inp, q, cfg, device, split)[0]


def dev_reads(model, inp, cfg, device, n):
    """(answer, selected candidate) for the first n dev questions (the model in eval mode meanwhile)."""
    model.eval()
    out = [read(model, inp, q, cfg, device, inp.dev) for q in range(n)]
    model.train()
    return out
