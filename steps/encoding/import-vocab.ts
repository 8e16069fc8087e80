/**
 * `import-bert-vocab`: a released BERT vocab.txt (the locked bert-base-uncased vocabulary of
 * the DPR-NQ checkpoint) as a `wordpiece:vocab`, in the layout `train-wordpiece-vocab`
 * writes (vocab.txt + tokenizer.json + tokenizer_config.json, by the same writers), so the
 * tokenization steps read either one the same way.
 *
 * Checked before anything is written: non-empty, no blank lines, unique tokens (a duplicate
 * names both line numbers), [PAD] on line 1 (id 0: the token matrices pad with 0) and
 * [UNK], [CLS], [SEP], [MASK] present. Ids are line numbers, so the file is re-written in
 * canonical form (one token per line, "\n" ends) without reordering anything.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { FETCHED_KIND } from "../data/fetch/steps.ts";
import { parseVocabTxt, writeVocabFile, type Vocab } from "./tokenize/vocab.ts";
import { resolveSpecialIds, type SpecialIds } from "./tokenize/special-tokens.ts";
import { writeTokenizerJson } from "./tokenize/bert-tokenizer-json.ts";

/** The `file` of datasets.lock entry `bert-base-uncased-vocab` (test/encoding/import-vocab.test.ts checks it). */
export const BERT_VOCAB_LOCK_FILE = "google-bert--bert-base-uncased--vocab.txt";
export const BERT_VOCAB_LOCK_ENTRY = "bert-base-uncased-vocab";

/** Parses and checks a BERT vocab.txt (pure; InputErrors carry `file` and the line). */
export function checkBertVocab(text: string, file: string): { vocab: Vocab; special: SpecialIds } {
  const vocab = parseVocabTxt(text, file);
  return { vocab, special: resolveSpecialIds(vocab.index, file) };
}

export const importBertVocab = defineStep({
  id: "import-bert-vocab",
  version: 1,
  source: import.meta.url,
  description: "A released BERT vocab.txt (checked) as a wordpiece:vocab with its tokenizer.json.",
  params: z
    .object({
      /** File inside the fetched directory (the lock entry's `file`). */
      file: z
        .string()
        .min(1)
        .refine((s) => !s.includes("/") && s !== "." && s !== "..", "a file name inside the fetched directory, without '/'")
        .default(BERT_VOCAB_LOCK_FILE),
    })
    .strict(),
  inputs: { files: FETCHED_KIND },
  outputs: { vocab: dir("wordpiece:vocab", "vocab") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const names = await readdir(ctx.inputs.files).catch(() => [] as string[]);
      if (!names.includes(ctx.params.file)) {
        throw new InputError(`the fetched directory has no '${ctx.params.file}' (it holds: ${names.sort().join(", ") || "nothing"})`, {
          file: ctx.inputs.files,
          field: "file",
          fix: `wire lockedFiles("${BERT_VOCAB_LOCK_ENTRY}") to input 'files', or set param 'file' to the lock entry's 'file'`,
        });
      }
      const path = join(ctx.inputs.files, ctx.params.file);
      const { vocab, special } = checkBertVocab(await readFile(path, "utf8"), path);
      writeVocabFile(join(ctx.outputs.vocab, "vocab.txt"), vocab.tokens);
      writeTokenizerJson(ctx.outputs.vocab, vocab);
      ctx.log(`${vocab.tokens.length} tokens, sha256 ${vocab.digest}; [PAD]=${special.pad} [UNK]=${special.unk} [CLS]=${special.cls} [SEP]=${special.sep} [MASK]=${special.mask}`);
    },
  },
});
