/**
 * Tokenization steps: train a WordPiece vocabulary on the mini collection, and turn the
 * passages table and one query form of the turns table into padded token-id matrices
 * (`.npy`, pad id 0) that the ONNX encoders and the Python trainers read.
 *
 * Matrices are [N, L] with L = the longest real row (capped at maxLength), so small
 * collections give small files; the encoders trim each batch to its own longest row anyway.
 */
import { closeSync, openSync, readSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { parquetLayout, readParquetRows } from "../lib/parquet.ts";
import type { PassageRow, TurnRow } from "../data/schemas.ts";
import type { TurnRow as FormatTurnRow, EncodedSequence } from "./format/rows.ts";
import { encodePassage, DEFAULT_MAX_PASSAGE_LENGTH } from "./format/passage-tokens.ts";
import { encodeQuery, DEFAULT_MAX_QUERY_LENGTH } from "./format/query-tokens.ts";
import { QUERY_FORM_NAMES } from "./format/query-forms.ts";
import { NpyRowWriter } from "./format/npy-row-writer.ts";
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

/** Appends variable-length rows (int32 ids, int8 type ids) to a scratch file; lengths stay in memory (2 bytes a row). */
export class RowSpill {
  private readonly fd: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private lengths = new Uint16Array(1024);
  rows = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, "w");
  }
  append(seq: EncodedSequence): void {
    const n = seq.ids.length;
    const buf = Buffer.allocUnsafe(n * 5);
    for (let i = 0; i < n; i++) buf.writeInt32LE(seq.ids[i]!, i * 4);
    for (let i = 0; i < n; i++) buf.writeInt8(seq.typeIds[i]!, n * 4 + i);
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.rows === this.lengths.length) {
      const grown = new Uint16Array(this.lengths.length * 2);
      grown.set(this.lengths);
      this.lengths = grown;
    }
    this.lengths[this.rows++] = n;
    if (this.pendingBytes >= 1 << 22) this.flush();
  }
  private flush(): void {
    if (this.pendingBytes > 0) writeSync(this.fd, Buffer.concat(this.pending, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
  }
  close(): Uint16Array {
    this.flush();
    closeSync(this.fd);
    return this.lengths.subarray(0, this.rows);
  }
}

/** Reads the spilled rows back in order, one at a time, through a bounded buffer. */
export function* readSpill(path: string, lengths: Uint16Array, bufferBytes = 1 << 22): Generator<{ ids: Int32Array; types: Int8Array }> {
  const fd = openSync(path, "r");
  let buf = Buffer.alloc(bufferBytes);
  let start = 0;
  let end = 0;
  let filePos = 0;
  try {
    for (const n of lengths) {
      const need = n * 5;
      if (end - start < need) {
        if (need > buf.length) buf = Buffer.concat([buf], need);
        buf.copy(buf, 0, start, end);
        end -= start;
        start = 0;
        while (end < need) {
          const got = readSync(fd, buf, end, buf.length - end, filePos);
          if (got === 0) throw new Error(`${path}: spill file ended early`);
          end += got;
          filePos += got;
        }
      }
      const ids = new Int32Array(n);
      for (let i = 0; i < n; i++) ids[i] = buf.readInt32LE(start + i * 4);
      const types = new Int8Array(buf.buffer.slice(buf.byteOffset + start + n * 4, buf.byteOffset + start + need));
      start += need;
      yield { ids, types };
    }
  } finally {
    closeSync(fd);
  }
}

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
      const spill = new RowSpill(join(ctx.workDir, "rows.bin"));
      const pidFd = openSync(join(ctx.outputs.tokens, "pids.txt"), "w");
      let pidLines: string[] = [];
      let longest = 0;
      let truncated = 0;
      try {
        for await (const p of readParquetRows<PassageRow>(ctx.inputs.passages)) {
          checkId(p.id, ctx.inputs.passages, "id");
          const seq = encodePassage(p, encoder, { maxLength, useTitle: title, segmentIds });
          spill.append(seq);
          if (seq.truncated) truncated++;
          if (seq.ids.length > longest) longest = seq.ids.length;
          pidLines.push(p.id);
          if (pidLines.length === 4096) {
            writeSync(pidFd, pidLines.join("\n") + "\n");
            pidLines = [];
          }
          if (spill.rows % 1000 === 0) ctx.progress(spill.rows, total, "tokenize");
        }
        if (pidLines.length > 0) writeSync(pidFd, pidLines.join("\n") + "\n");
      } finally {
        closeSync(pidFd);
      }
      const lengths = spill.close();
      const rows = lengths.length;
      if (rows === 0) throw new InputError("the passages table is empty", { file: ctx.inputs.passages, fix: "preprocess a collection first" });
      // Pass 2: pad to L and write the matrices.
      const ids = new NpyRowWriter(join(ctx.outputs.tokens, "ids.npy"), "int32", longest);
      const types = new NpyRowWriter(join(ctx.outputs.tokens, "type_ids.npy"), "int8", longest);
      try {
        for (const row of readSpill(spill.path, lengths)) {
          ids.append(row.ids);
          types.append(row.types);
          if (ids.count % 10000 === 0) ctx.progress(ids.count, rows, "write");
        }
      } finally {
        ids.close();
        types.close();
      }
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
