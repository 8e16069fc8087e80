/**
 * The sentences table: every passage of a collection split by DCSR's rule (splitter.ts),
 * one row per sentence (passage id, 0-based index, character offsets, words, text), in the
 * collection's row order. A step of its own, so the split is computed once per collection
 * and every later DCSR step (tokenization, answer labels, search output) names sentences
 * by (passage id, index).
 */
import { writeFile } from "node:fs/promises";
import * as arrow from "apache-arrow";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { parquetLayout, readParquetRows, writeParquetFile } from "../lib/parquet.ts";
import { once } from "../lib/once.ts";
import type { PassageRow } from "../data/schemas.ts";
import { splitSentences, type SplitRule } from "./splitter.ts";

export const sentencesSchema = once(() => new arrow.Schema([
  new arrow.Field("pid", new arrow.Utf8(), false),
  new arrow.Field("index", new arrow.Int32(), false),
  new arrow.Field("start", new arrow.Int32(), false),
  new arrow.Field("end", new arrow.Int32(), false),
  new arrow.Field("words", new arrow.Int32(), false),
  new arrow.Field("text", new arrow.Utf8(), false),
]));

export interface SentenceRow {
  readonly pid: string;
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly words: number;
  readonly text: string;
}

/** How the rule behaved on a collection (the step's stats.json). */
export interface SplitStats {
  readonly passages: number;
  readonly sentences: number;
  readonly meanSentencesPerPassage: number;
  /** Passages by sentence count ("1", "2", ...). */
  readonly sentencesPerPassage: Readonly<Record<string, number>>;
  readonly meanWordsPerSentence: number;
  /** Passages without a word (no sentence). */
  readonly emptyPassages: number;
  readonly rule: SplitRule;
}

/** The sentence rows of one passage. */
export function passageSentences(p: PassageRow, rule: SplitRule): SentenceRow[] {
  return splitSentences(p.text, rule).map((s, index) => ({ pid: p.id, index, start: s.start, end: s.end, words: s.words, text: p.text.slice(s.start, s.end) }));
}

/** Accumulates SplitStats over passages. */
export class SplitStatsCounter {
  private passages = 0;
  private sentences = 0;
  private words = 0;
  private empty = 0;
  private readonly histogram = new Map<number, number>();
  constructor(private readonly rule: SplitRule) {}
  add(rows: readonly SentenceRow[]): void {
    this.passages++;
    this.sentences += rows.length;
    if (rows.length === 0) this.empty++;
    for (const r of rows) this.words += r.words;
    this.histogram.set(rows.length, (this.histogram.get(rows.length) ?? 0) + 1);
  }
  stats(): SplitStats {
    const hist = Object.fromEntries([...this.histogram].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v]));
    return {
      passages: this.passages,
      sentences: this.sentences,
      meanSentencesPerPassage: this.passages === 0 ? 0 : this.sentences / this.passages,
      sentencesPerPassage: hist,
      meanWordsPerSentence: this.sentences === 0 ? 0 : this.words / this.sentences,
      emptyPassages: this.empty,
      rule: this.rule,
    };
  }
}

export const splitSentencesStep = defineStep({
  id: "split-sentences",
  version: 1,
  source: import.meta.url,
  description: "Every passage split into sentences by DCSR's rule -> sentences.parquet (pid, index, offsets, words, text) and stats.json.",
  params: z
    .object({
      /** A sentence ends only once it holds at least this many words (DCSR: 8). */
      minWords: z.number().int().min(1).default(8),
      /** A last sentence with fewer words merges into the previous one (DCSR: 7). */
      minTailWords: z.number().int().min(1).default(7),
    })
    .strict(),
  inputs: { passages: "parquet:passages" },
  outputs: { sentences: file("parquet:sentences", "sentences.parquet"), stats: file("json:sentence-stats", "stats.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const rule: SplitRule = { minWords: ctx.params.minWords, minTailWords: ctx.params.minTailWords };
      const counter = new SplitStatsCounter(rule);
      const total = (await parquetLayout(ctx.inputs.passages)).rows;
      const file = ctx.inputs.passages;
      async function* rows(): AsyncGenerator<SentenceRow> {
        let n = 0;
        for await (const p of readParquetRows<PassageRow>(file)) {
          if (/[\n\r]/.test(p.id)) throw new InputError(`passage id ${JSON.stringify(p.id)} contains a line break`, { file, field: "id", fix: "ids must be single-line strings" });
          const sentences = passageSentences(p, rule);
          counter.add(sentences);
          yield* sentences;
          if (++n % 10_000 === 0) ctx.progress(n, total);
        }
      }
      await writeParquetFile(ctx.outputs.sentences, sentencesSchema(), rows());
      const stats = counter.stats();
      await writeFile(ctx.outputs.stats, canonicalJson(stats, 2) + "\n");
      ctx.log(`${stats.passages} passages -> ${stats.sentences} sentences (${stats.meanSentencesPerPassage.toFixed(2)} per passage, ${stats.meanWordsPerSentence.toFixed(1)} words each; ${stats.emptyPassages} without words)`);
    },
  },
});

/** Pairs each passage with its sentence rows (both tables in collection order). */
export async function* passagesWithSentences(passagesFile: string, sentencesFile: string): AsyncGenerator<{ passage: PassageRow; sentences: SentenceRow[] }> {
  const sentences = readParquetRows<SentenceRow>(sentencesFile)[Symbol.asyncIterator]();
  let pending = await sentences.next();
  for await (const passage of readParquetRows<PassageRow>(passagesFile)) {
    const rows: SentenceRow[] = [];
    while (!pending.done && pending.value.pid === passage.id) {
      if (pending.value.index !== rows.length) throw new InputError(`sentence ${pending.value.index} of passage ${passage.id} out of order`, { file: sentencesFile, field: "index", fix: "rerun split-sentences on this collection" });
      rows.push(pending.value);
      pending = await sentences.next();
    }
    yield { passage, sentences: rows };
  }
  if (!pending.done) throw new InputError(`sentence rows of passage ${pending.value.pid} do not follow the collection's order (or the passage is not in it)`, { file: sentencesFile, fix: "split the same passages table the tokenizer reads" });
}
