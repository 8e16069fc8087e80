/**
 * `label-answer-sentences`: for every turn of a split with gold passages, the sentence that
 * answers it and the labels of its passage's sentences (answer-sentences.ts), from the
 * dataset's evidence (evidence.ts) -> answer-sentences.parquet + report.json (how many turns
 * each method located, how many none). One def per dataset and raw-directory kind, so the
 * wiring stays typed (a mini raw directory and a fetched lock entry differ in kind).
 */
import { writeFile } from "node:fs/promises";
import * as arrow from "apache-arrow";
import { z } from "zod";
import { file, type InputKinds } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import type { Json } from "../../pipeline/engine/canonical.ts";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readParquetRows, writeParquetFile } from "../lib/parquet.ts";
import { once } from "../lib/once.ts";
import type { TurnRow } from "../data/schemas.ts";
import { locateAnswerSentence, type GoldPassage } from "./answer-sentences.ts";
import { evidenceOf, LOCATE_METHODS, RAW_READERS, type EvidenceDataset, type RawEvidence } from "./evidence.ts";
import { passagesWithSentences } from "./sentences.ts";

export const answerSentencesSchema = once(() => new arrow.Schema([
  new arrow.Field("qid", new arrow.Utf8(), false),
  new arrow.Field("pid", new arrow.Utf8(), false),
  new arrow.Field("positive", new arrow.Int32(), false),
  new arrow.Field("labels", new arrow.List(new arrow.Field("item", new arrow.Int32(), false)), false),
  new arrow.Field("method", new arrow.Utf8(), false),
]));

export interface AnswerSentenceRow {
  readonly qid: string;
  /** The gold passage that holds the positive sentence. */
  readonly pid: string;
  readonly positive: number;
  /** One label per sentence of `pid`: 1 positive, 2 never an in-passage negative, 0 candidate. */
  readonly labels: number[];
  readonly method: string;
}

export interface LabelReport {
  readonly dataset: EvidenceDataset;
  readonly split: string;
  readonly methods: readonly string[];
  readonly turns: number;
  readonly withGold: number;
  readonly located: Readonly<Record<string, number>>;
  readonly notLocated: number;
  /** Up to 5 qids of turns with gold whose answer sentence was not found. */
  readonly notLocatedExamples: readonly string[];
}

/** Pure core: the located rows (qid order) and the report, from the turns, their gold passages and evidence. */
export function labelTurns(dataset: EvidenceDataset, split: string, turns: readonly TurnRow[], passages: ReadonlyMap<string, GoldPassage>, raw: RawEvidence | undefined): { rows: AnswerSentenceRow[]; report: LabelReport } {
  const methods = LOCATE_METHODS[dataset];
  const rows: AnswerSentenceRow[] = [];
  const located: Record<string, number> = Object.fromEntries(methods.map((m) => [m, 0]));
  const missed: string[] = [];
  let withGold = 0;
  for (const t of [...turns].sort((a, b) => (a.qid < b.qid ? -1 : a.qid > b.qid ? 1 : 0))) {
    const golds = t.gold_passage_ids.map((p) => passages.get(p)).filter((g): g is GoldPassage => g !== undefined);
    if (golds.length === 0) continue;
    withGold++;
    const hit = locateAnswerSentence(golds, evidenceOf(t.answer, raw, t.qid), methods);
    if (hit === undefined) {
      missed.push(t.qid);
      continue;
    }
    located[hit.method] = (located[hit.method] ?? 0) + 1;
    rows.push({ qid: t.qid, pid: hit.pid, positive: hit.positive, labels: hit.labels, method: hit.method });
  }
  return { rows, report: { dataset, split, methods, turns: turns.length, withGold, located, notLocated: missed.length, notLocatedExamples: missed.slice(0, 5) } };
}

export async function readAnswerSentences(path: string): Promise<Map<string, AnswerSentenceRow>> {
  const out = new Map<string, AnswerSentenceRow>();
  for await (const r of readParquetRows<AnswerSentenceRow>(path)) out.set(r.qid, { ...r, labels: [...r.labels] });
  return out;
}

const params = z
  .object({
    dataset: z.enum(["qrecc", "topiocqa", "orquac", "nq"]),
    split: z.string().default("train"),
  })
  .strict();

const outputs = { labels: file("parquet:answer-sentences", "answer-sentences.parquet"), report: file("json:answer-sentence-report", "report.json") };
const baseInputs = { turns: "parquet:turns", passages: "parquet:passages", sentences: "parquet:sentences" } as const;

function makeDef<I extends InputKinds>(inputs: I, args: Json) {
  return defineStepWith(args, {
    id: "label-answer-sentences",
    version: 1,
    source: import.meta.url,
    description: "The answer sentence of every turn with gold (and its passage's sentence labels), from the dataset's evidence.",
    params,
    inputs,
    outputs,
    runtime: {
      type: "in-process",
      async run(ctx) {
        const { dataset, split } = ctx.params;
        const paths = ctx.inputs as Readonly<Record<string, string>>;
        const turns: TurnRow[] = [];
        for await (const t of readParquetRows<TurnRow>(paths.turns!)) if (t.split === split) turns.push(t);
        if (turns.length === 0) throw new InputError(`no turns in split '${split}'`, { file: paths.turns!, field: "split" });
        const gold = new Set(turns.flatMap((t) => t.gold_passage_ids));
        const passages = new Map<string, GoldPassage>();
        for await (const { passage, sentences } of passagesWithSentences(paths.passages!, paths.sentences!)) {
          if (gold.has(passage.id)) passages.set(passage.id, { pid: passage.id, text: passage.text, sentences });
        }
        const reader = RAW_READERS[dataset];
        if (reader !== null && paths.raw === undefined) throw new InputError(`${dataset} needs its raw turn files`, { field: "raw", fix: "wire the dataset's raw directory" });
        const raw = reader === null ? undefined : reader(paths.raw!, split);
        const { rows, report } = labelTurns(dataset, split, turns, passages, raw);
        await writeParquetFile(ctx.outputs.labels, answerSentencesSchema(), rows);
        await writeFile(ctx.outputs.report, canonicalJson(report, 2) + "\n");
        ctx.log(`${report.withGold} ${split} turns with gold: ${Object.entries(report.located).map(([m, n]) => `${m} ${n}`).join(", ")}, not located ${report.notLocated}`);
      },
    },
  });
}

/** For datasets whose evidence is in the turns table (QReCC, NQ). */
export const labelAnswerSentences = makeDef(baseInputs, null);

/** For datasets whose evidence is in raw turn files (TopiOCQA, OR-QuAC), read from a directory of kind `rawKind` (its identity). */
export function labelAnswerSentencesFromRaw<K extends string>(rawKind: K) {
  return makeDef({ ...baseInputs, raw: rawKind }, { rawKind });
}
