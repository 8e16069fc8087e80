/**
 * Tokenization steps: train a WordPiece vocabulary on the mini collection, and turn the
 * passages table and one query form of the turns table into padded token-id matrices
 * (`.npy`, pad id 0) that the ONNX encoders and the Python trainers read.
 *
 * Matrices are [N, L] with L = the longest real row (capped at maxLength), so small
 * collections give small files; the encoders trim each batch to its own longest row anyway.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { parquetLayout, readParquetRows } from "../lib/parquet.ts";
import type { PassageRow, TurnRow } from "../data/schemas.ts";
import type { TurnRow as FormatTurnRow } from "./format/rows.ts";
import { encodePassage, DEFAULT_MAX_PASSAGE_LENGTH } from "./format/passage-tokens.ts";
import { encodeQuery, DEFAULT_MAX_QUERY_LENGTH } from "./format/query-tokens.ts";
import { QUERY_FORM_NAMES } from "./format/query-forms.ts";
import { NpyRowWriter } from "./format/npy-row-writer.ts";
import { spillRows, writeSpilledRows } from "./format/row-spill.ts";
import { countWords, trainWordPieceFromCounts } from "./tokenize/wordpiece-trainer.ts";
import { readVocabFile, vocabFromTokens, writeVocabFile } from "./tokenize/vocab.ts";
import { writeTokenizerJson } from "./tokenize/bert-tokenizer-json.ts";
import { createBertTokenizer } from "./tokenize/bert-tokenizer.ts";
import type { TokenEncoder } from "./tokenize/encoder.ts";

/** The sidecar of a token directory (`meta.json`). */
export interface TokensMeta {
  readonly format: "cspipe/tokens@1";
  readonly kind: "passages" | "queries";
  readonly rows: number;
  /** Columns of ids.npy: the longest row written (<= maxLength). */
  readonly length: number;
  readonly maxLength: number;
  /** Rows that lost tokens to truncation. */
  readonly truncated: number;
  readonly padId: 0;
  readonly tokenizer: string;
  readonly vocabSize: number;
  readonly vocabDigest: string;
  readonly specialIds: { pad: number; unk: number; cls: number; sep: number; mask: number };
  readonly files: Readonly<Record<string, string>>;
  /** How the rows were formatted (title, form, split, ...). */
  readonly params: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

const loadTokenizer = (vocabDir: string): TokenEncoder => createBertTokenizer(readVocabFile(join(vocabDir, "vocab.txt")));

function checkId(id: string, file: string, field: string): void {
  if (/[\n\r]/.test(id)) throw new InputError(`id ${JSON.stringify(id)} contains a line break`, { file, field, fix: "ids must be single-line strings" });
}

function writeMeta(dirPath: string, meta: TokensMeta): void {
  writeFileSync(join(dirPath, "meta.json"), JSON.stringify(meta, null, 2) + "\n", "utf8");
}

function baseMeta(encoder: TokenEncoder): Pick<TokensMeta, "format" | "padId" | "tokenizer" | "vocabSize" | "vocabDigest" | "specialIds"> {
  return { format: "cspipe/tokens@1", padId: 0, tokenizer: encoder.implementation, vocabSize: encoder.vocabSize, vocabDigest: encoder.vocabDigest, specialIds: { ...encoder.special } };
}

export const trainVocab = defineStep({
  id: "train-wordpiece-vocab",
  version: 1,
  source: import.meta.url,
  description: "WordPiece vocabulary (BERT-uncased normalisation) trained on passages and the turns of some splits.",
  params: z
    .object({
      vocabSize: z.number().int().min(8).default(8000),
      minFrequency: z.number().int().min(1).default(2),
      /** Splits whose questions and answers join the passages' titles and texts. */
      splits: z.array(z.string()).min(1).default(["train"]),
    })
    .strict(),
  inputs: { passages: "parquet:passages", turns: "parquet:turns" },
  outputs: { vocab: dir("wordpiece:vocab", "vocab") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const counts = new Map<string, number>();
      let passages = 0;
      for await (const p of readParquetRows<PassageRow>(ctx.inputs.passages)) {
        countWords(p.title !== null ? [p.title, p.text] : [p.text], counts);
        passages++;
      }
      const splits = new Set(ctx.params.splits);
      let turns = 0;
      // Only each turn's own question and answer: history repeats earlier turns.
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) {
        if (!splits.has(t.split)) continue;
        countWords(t.answer !== null ? [t.question, t.answer] : [t.question], counts);
        turns++;
      }
      if (counts.size === 0) throw new InputError("no words to train a vocabulary on", { file: ctx.inputs.passages, fix: "check the passages table and the splits param" });
      const { vocab, merges } = trainWordPieceFromCounts(counts, { vocabSize: ctx.params.vocabSize, minFrequency: ctx.params.minFrequency, onProgress: ctx.progress });
      writeVocabFile(join(ctx.outputs.vocab, "vocab.txt"), vocab);
      writeTokenizerJson(ctx.outputs.vocab, vocabFromTokens(vocab));
      ctx.log(`${passages} passages, ${turns} turns of [${[...splits].join(", ")}]: ${counts.size} distinct words -> ${vocab.length} tokens (${merges.length} merges)`);
    },
  },
});

export const tokenizePassages = defineStep({
  id: "tokenize-passages",
  version: 1,
  source: import.meta.url,
  description: "Passages -> [CLS] title [SEP] text [SEP] token ids (text only without a title), padded .npy.",
  params: z
    .object({
      maxLength: z.number().int().min(3).max(4096).default(DEFAULT_MAX_PASSAGE_LENGTH),
      /** Title as a text pair where the row has one (OR-QuAC, TopiOCQA); QReCC has none. */
      title: z.boolean().default(true),
      /** DPR and the authors feed all-zero segment ids ("zeros"); "bert" gives BERT's pair types. */
      segmentIds: z.enum(["zeros", "bert"]).default("zeros"),
    })
    .strict(),
  inputs: { passages: "parquet:passages", vocab: "wordpiece:vocab" },
  outputs: { tokens: dir("tokens:passages", "tokens") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { maxLength, title, segmentIds } = ctx.params;
      const encoder = loadTokenizer(ctx.inputs.vocab);
      const total = (await parquetLayout(ctx.inputs.passages)).rows;
      // Pass 1: tokenize once, spill the variable-length rows, write pids, find L.
      let truncated = 0;
      const tokenize = (p: PassageRow) => {
        checkId(p.id, ctx.inputs.passages, "id");
        const seq = encodePassage(p, encoder, { maxLength, useTitle: title, segmentIds });
        if (seq.truncated) truncated++;
        return { id: p.id, seq };
      };
      const spilled = await spillRows(readParquetRows<PassageRow>(ctx.inputs.passages), tokenize, { spill: join(ctx.workDir, "rows.bin"), pids: join(ctx.outputs.tokens, "pids.txt") }, (done) => ctx.progress(done, total, "tokenize"));
      const { longest } = spilled;
      const rows = spilled.lengths.length;
      if (rows === 0) throw new InputError("the passages table is empty", { file: ctx.inputs.passages, fix: "preprocess a collection first" });
      // Pass 2: pad to L and write the matrices.
      writeSpilledRows(ctx.outputs.tokens, spilled, (done) => ctx.progress(done, rows, "write"));
      ctx.progress(rows, rows, "write");
      writeMeta(ctx.outputs.tokens, {
        ...baseMeta(encoder),
        kind: "passages",
        rows,
        length: longest,
        maxLength,
        truncated,
        files: { ids: "ids.npy", typeIds: "type_ids.npy", rowIds: "pids.txt" },
        params: { title, segmentIds },
      });
      ctx.log(`${rows} passages, L=${longest} (max ${maxLength}), ${truncated} truncated`);
    },
  },
});

/** Turns of `split` (optionally only those with gold passages), sorted by qid (code units). */
export async function readSplitTurns(file: string, split: string, goldOnly: boolean): Promise<FormatTurnRow[]> {
  const turns: FormatTurnRow[] = [];
  let inSplit = 0;
  for await (const t of readParquetRows<TurnRow>(file)) {
    if (t.split !== split) continue;
    inSplit++;
    if (goldOnly && t.gold_passage_ids.length === 0) continue;
    checkId(t.qid, file, "qid");
    turns.push(t as unknown as FormatTurnRow);
  }
  if (inSplit === 0) throw new InputError(`no turns in split '${split}'`, { file, field: "split", fix: "pick a split the turns table has (train, dev, test)" });
  if (turns.length === 0) throw new InputError(`no turn of split '${split}' has a gold passage`, { file, field: "gold_passage_ids", fix: "set goldOnly: false" });
  turns.sort((a, b) => (a.qid < b.qid ? -1 : a.qid > b.qid ? 1 : 0));
  for (let i = 1; i < turns.length; i++) {
    if (turns[i]!.qid === turns[i - 1]!.qid) throw new InputError(`qid '${turns[i]!.qid}' occurs twice in split '${split}'`, { file, field: "qid" });
  }
  return turns;
}

export const tokenizeQueries = defineStep({
  id: "tokenize-queries",
  version: 1,
  source: import.meta.url,
  description: "One query form of one split -> [CLS] q1 [SEP] a1 ... [SEP] q_t [SEP] token ids (first question kept, left truncation).",
  params: z
    .object({
      form: z.enum(QUERY_FORM_NAMES),
      split: z.string(),
      maxLength: z.number().int().min(3).max(4096).default(DEFAULT_MAX_QUERY_LENGTH),
      /** Keep only turns with at least one gold passage. */
      goldOnly: z.boolean().default(false),
    })
    .strict(),
  inputs: { turns: "parquet:turns", vocab: "wordpiece:vocab" },
  outputs: { tokens: dir("tokens:queries", "tokens") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { form, split, maxLength, goldOnly } = ctx.params;
      const encoder = loadTokenizer(ctx.inputs.vocab);
      const turns = await readSplitTurns(ctx.inputs.turns, split, goldOnly);
      const seqs = turns.map((t, i) => {
        if (i % 1000 === 0) ctx.progress(i, turns.length, "turns");
        return encodeQuery(t, form, encoder, { maxLength });
      });
      const longest = seqs.reduce((m, s) => Math.max(m, s.ids.length), 0);
      const ids = new NpyRowWriter(join(ctx.outputs.tokens, "ids.npy"), "int32", longest);
      try {
        for (const s of seqs) ids.append(s.ids);
      } finally {
        ids.close();
      }
      writeFileSync(join(ctx.outputs.tokens, "qids.txt"), turns.map((t) => `${t.qid}\n`).join(""), "utf8");
      const truncated = seqs.filter((s) => s.truncated).length;
      writeMeta(ctx.outputs.tokens, {
        ...baseMeta(encoder),
        kind: "queries",
        rows: turns.length,
        length: longest,
        maxLength,
        truncated,
        files: { ids: "ids.npy", rowIds: "qids.txt" },
        params: { form, split, goldOnly, retainFirst: true },
      });
      ctx.progress(turns.length, turns.length, "turns");
      ctx.log(`${turns.length} queries (${form}, ${split}${goldOnly ? ", gold only" : ""}), L=${longest} (max ${maxLength}), ${truncated} truncated`);
    },
  },
});
