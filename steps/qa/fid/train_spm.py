"""A SentencePiece Unigram vocabulary in T5's layout (<pad> 0, </s> 1, <unk> 2, no <s>; nmt_nfkc
normalization), trained on a text corpus (one sentence a line): the mini benchmark's stand-in
for t5-base's spiece.model. Deterministic: one thread, every sentence, no shuffling.

    python3 steps qa.fid.train_spm --corpus corpus.txt --out DIR (--vocab-size 4000 | --params params.json) [--max-sentence-length 4192]
    python3 steps qa.fid.train_spm --encode spiece.model   (stdin: JSON list of strings; stdout: ids per string; tests)
Exit 2 on bad input, 3 without the sentencepiece module.
"""
import argparse
import json
import os
import sys


def main(argv):
    ap = argparse.ArgumentParser(prog="qa.fid.train_spm")
    ap.add_argument("--corpus")
    ap.add_argument("--out")
    ap.add_argument("--vocab-size", type=int, default=4000)
    ap.add_argument("--max-sentence-length", type=int, default=4192)
    ap.add_argument("--encode")
    ap.add_argument("--params", help="a JSON file {vocab_size} (the pipeline step's params) instead of --vocab-size")
    args = ap.parse_args(argv)
    if args.params:
        with open(args.params, encoding="utf-8") as f:
            args.vocab_size = int(json.load(f)["vocab_size"])
    try:
        import sentencepiece as spm  # noqa: PLC0415
    except ImportError:
        sys.stderr.write(f"error: sentencepiece not importable by {sys.executable}. Fix: apt-get install -y python3-sentencepiece (Debian) or pip install sentencepiece\n")
        return 3
    if args.encode:
        sp = spm.SentencePieceProcessor(model_file=args.encode)
        sys.stdout.write(json.dumps([sp.encode(s) for s in json.loads(sys.stdin.read())]) + "\n")
        return 0
    if not (args.corpus and args.out):
        sys.stderr.write("error: --corpus and --out are required\n")
        return 2
    if not os.path.isfile(args.corpus) or os.path.getsize(args.corpus) == 0:
        sys.stderr.write(f"error: {args.corpus}: empty or missing corpus. Fix: write one sentence a line\n")
        return 2
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415
    os.makedirs(args.out, exist_ok=True)
    # The trainer records its input and output paths in the model: train under fixed names in a
    # scratch directory so the bytes depend on the corpus and the options only.
    work = tempfile.mkdtemp(prefix="spm-")
    os.symlink(os.path.abspath(args.corpus), os.path.join(work, "corpus.txt"))
    cwd = os.getcwd()
    os.chdir(work)
    spm.SentencePieceTrainer.train(
        input="corpus.txt", model_prefix="spiece", vocab_size=args.vocab_size, model_type="unigram",
        pad_id=0, eos_id=1, unk_id=2, bos_id=-1, character_coverage=1.0, normalization_rule_name="nmt_nfkc",
        num_threads=1, input_sentence_size=0, shuffle_input_sentence=False, max_sentence_length=args.max_sentence_length,
        hard_vocab_limit=False, minloglevel=2)
    os.chdir(cwd)
    for name in ("spiece.model", "spiece.vocab"):
        shutil.move(os.path.join(work, name), os.path.join(args.out, name))
    shutil.rmtree(work)
    sp = spm.SentencePieceProcessor(model_file=os.path.join(args.out, "spiece.model"))
    sys.stderr.write(f"spiece.model: {sp.get_piece_size()} pieces\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
