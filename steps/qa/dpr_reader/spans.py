"""The DPR reader's answer from logits, as steps/qa/dpr_reader/span-selection.ts computes it in
Node: best passage by selection logit (ties to the better rank), best span by start + end logit
among text tokens (length <= max_answer_length; ties to the earlier start, then the shorter
span), extended to whole words and cut out of the original text."""


def best_passage(relevance):
    best = -1
    for i, r in enumerate(relevance):
        if best < 0 or r > relevance[best]:
            best = i
    return best


def best_span(start, end, word_of_token, max_answer_length):
    """(s, e, score) over the passage row's token positions, before extension; None without text."""
    n = min(len(start), len(end), len(word_of_token))
    best = None
    for s in range(n):
        if word_of_token[s] < 0:
            continue
        e = s
        while e < n and e - s + 1 <= max_answer_length and word_of_token[e] >= 0:
            score = start[s] + end[e]
            if best is None or score > best[2]:
                best = (s, e, score)
            e += 1
    return best


def answer_text(s, e, word_of_token, text, words):
    ws, we = word_of_token[s], word_of_token[e]
    return text[words[ws][0]:words[we][1]]
