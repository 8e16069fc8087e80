"""Which vocabulary the token ids mean: a model records the sha256 of its tokens' canonical
vocab.txt (`cspipe.vocab_digest` in config.json), and a run refuses inputs or an initial
model that name a different one. Two vocabularies of the same size map ids to different
words, so sizes alone cannot catch the mix-up; the digest can.

The digest is the one the tokenization steps record (`vocabDigest` in a token directory's
meta.json): sha256 of the tokens joined with "\\n" plus a final "\\n".
"""
import hashlib
import json
import os

from pytrain.errors import InputError


def digest_of_vocab_file(path):
    """(digest, size) of a vocab.txt, read as the tokenizers read it ("\\r\\n" accepted, no final newline needed)."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cannot read the vocabulary ({e})", file=path) from e
    lines = [l[:-1] if l.endswith("\r") else l for l in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    canonical = "".join(t + "\n" for t in lines)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest(), len(lines)


def _json(path):
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"not readable JSON ({e})", file=path) from e


def recorded_digest(path, field):
    """The digest a JSON file records under `field` (dotted for nesting), or None."""
    value = _json(path)
    for part in field.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) != 64:
        raise InputError(f"{field} must be a sha256 hex string, got {value!r}", file=path, field=field)
    return value


def training_vocab_digest(inputs_dir=None, passages_dir=None, vocab=None, init_dir=None):
    """The vocabulary digest of a run, checked across everything that records one.

    Sources: the examples' meta.json (`vocabDigest`), the tokenized collection's meta.json,
    `vocab` = (path, digest) of a --vocab file, and the initial model's config.json
    (`cspipe.vocab_digest`). Those that record a digest must agree; returns it (None when
    nothing records one).
    """
    found = []
    if inputs_dir:
        found.append((os.path.join(inputs_dir, "meta.json"), "vocabDigest"))
    if passages_dir:
        found.append((os.path.join(passages_dir, "meta.json"), "vocabDigest"))
    if init_dir:
        found.append((os.path.join(init_dir, "config.json"), "cspipe.vocab_digest"))
    seen = [(p, f, recorded_digest(p, f)) for p, f in found]
    if vocab:
        seen.append((vocab[0], "sha256", vocab[1]))
    seen = [s for s in seen if s[2] is not None]
    for path, field, digest in seen[1:]:
        first_path, first_field, first = seen[0]
        if digest != first:
            raise InputError(
                f"vocabulary mismatch: {field} is {digest[:12]}… but {first_path} records {first_field} {first[:12]}…; "
                "token ids from different vocabularies mean different words",
                file=path, field=field,
                fix="tokenize queries and passages with the vocabulary the initial model was trained with")
    return seen[0][2] if seen else None
