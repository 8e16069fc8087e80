/**
 * Calibration of the mini world against the real data's lexical statistics: BM25 needs no
 * training, so its recall over each query form is a property of the data. The paper's BM25
 * rows (final Tables 2 and 3, early Tables 1 and 3, read from paper-numbers.json) are the
 * targets; `measureBm25` computes the same numbers on a generated world in memory with the
 * pipeline's own pieces (Lucene-exact BM25 of steps/sparse, the query forms of
 * steps/encoding, the trec_eval rules of steps/eval), so it agrees with the pipeline's
 * tables without writing and parsing the native files.
 *
 * A mini number is "in band" when it is within a factor `BAND` of the paper's either way.
 * Only BM25 numbers are targets: dense results are never looked at to tune the world.
 * It lives beside scripts/calibrate-mini.ts, its one user besides its test: the data stage
 * (steps/data) does not depend on the sparse, encoding, eval and report stages it measures with.
 */
import { buildIndexSync } from "../steps/sparse/index.ts";
import { Searcher } from "../steps/sparse/search.ts";
import { BM25_PRESETS } from "../steps/sparse/presets.ts";
import { queryText, type QueryFormName } from "../steps/encoding/format/query-forms.ts";
import type { TurnRow } from "../steps/encoding/format/rows.ts";
import { evaluateRun } from "../steps/eval/evaluate.ts";
import type { Hit, Qrels, Run } from "../steps/eval/types.ts";
import { loadPaperNumbers, paperTable } from "../steps/report/paper-numbers.ts";
import { streamCollection, type World } from "../steps/data/mini/world.ts";
import type { Split } from "../steps/data/mini/params.ts";
import type { Passage } from "../steps/data/mini/entities.ts";
import { qreccQuestionTypes } from "../steps/data/mini/writers/qrecc.ts";
import { topiocqaTitle } from "../steps/data/mini/writers/topiocqa.ts";

export const BAND = 1.5;

export type CalibratedDataset = "qrecc" | "topiocqa" | "orquac" | "nq";

/** One paper number the mini world should land near. */
export interface Bm25Target {
  readonly dataset: CalibratedDataset;
  readonly form: QueryFormName;
  readonly metric: string;
  /** Question type; undefined = all turns. */
  readonly group?: string;
  /** As a fraction (recall 0.111, MRR 0.065). */
  readonly paper: number;
  /** Where the paper prints it. */
  readonly source: string;
}

/** How each dataset is evaluated (as the pipeline does): split, and the text BM25 indexes (title + text where the native format has a title). */
export const EVAL: Readonly<Record<CalibratedDataset, { split: Split; indexText: (p: Passage) => string }>> = {
  qrecc: { split: "test", indexText: (p) => p.text },
  topiocqa: { split: "dev", indexText: (p) => `${topiocqaTitle(p)} ${p.text}` },
  orquac: { split: "test", indexText: (p) => `${p.title} ${p.text}` },
  // mini-nq: the standalone dev questions over DPR's title + text passages (θ0's pre-training set).
  nq: { split: "dev", indexText: (p) => `${p.title} ${p.text}` },
};

const FINAL_TABLE2_ROWS: Readonly<Record<string, QueryFormName>> = {
  "bm25-q": "q_t", "bm25-prev-answer": "a_prev", "bm25-history-without-q": "history_without_q", "bm25-history": "history",
};
const TABLE3_ROWS: Readonly<Record<string, QueryFormName>> = {
  "bm25-q": "q_t", "bm25-prev-questions": "questions_prev", "bm25-questions": "questions", "bm25-first-q": "q_first",
};
const EARLY_TABLE1_ROWS: Readonly<Record<string, QueryFormName>> = { bm25: "history", "bm25-without-q": "history_without_q" };

/** The paper's BM25 numbers as targets (values converted to fractions). */
export function bm25Targets(): Bm25Target[] {
  const doc = loadPaperNumbers();
  const out: Bm25Target[] = [];
  const add = (tableId: string, rows: Readonly<Record<string, QueryFormName>>, datasetOf: (col: { dataset?: string | undefined }) => CalibratedDataset) => {
    const table = paperTable(tableId, doc);
    for (const row of table.rows) {
      const form = rows[row.id];
      if (form === undefined) continue;
      for (const col of table.columns) {
        const v = row.values[col.id];
        if (v === null || v === undefined) continue;
        const group = col.questionType === undefined || col.questionType === "all" ? undefined : col.questionType;
        out.push({
          dataset: datasetOf(col), form, metric: col.metric, ...(group === undefined ? {} : { group }),
          paper: col.unit === "percent" ? v / 100 : v, source: `${table.source} ${table.label} ${row.label} ${col.header}`,
        });
      }
    }
  };
  add("final-table2", FINAL_TABLE2_ROWS, (c) => c.dataset as CalibratedDataset);
  add("early-table3", TABLE3_ROWS, () => "orquac");
  // Early Table 1's "all" columns repeat final Table 2 (with 2-digit MRR): only its breakdowns are new.
  add("early-table1", EARLY_TABLE1_ROWS, () => "qrecc");
  // BM25 on Natural Questions (DPR paper): the mini NQ-style set θ0 is pre-trained on.
  add("dpr-nq", { bm25: "q_t" }, () => "nq");
  return out.filter((t) => !(t.source.startsWith("early Table 1") && t.group === undefined));
}

/** The turns of one split as the pipeline's turn rows, with each turn's question type. */
export function evalTurns(world: World, dataset: CalibratedDataset): { row: TurnRow; type: string | null }[] {
  const split = EVAL[dataset].split;
  if (dataset === "nq") {
    return world.standalone.filter((q) => q.split === split).map((q, i) => ({
      row: { qid: `nq-${split}-${i}`, conversation_id: `nq-${split}-${i}`, turn: 1, question: q.question, rewrite: null, answer: q.answers[0] ?? null, history: [], gold_passage_ids: [q.passage] },
      type: "first",
    }));
  }
  const convs = world.conversations.filter((c) => c.split === split);
  let labelled: Map<string, string> | undefined;
  if (dataset === "qrecc") {
    labelled = new Map();
    for (const [type, qids] of Object.entries(qreccQuestionTypes(convs))) {
      if (type === "first" || type === "switch" || type === "no-switch") for (const q of qids) labelled.set(q, type);
    }
  }
  return convs.flatMap((c) =>
    c.turns.map((t, i) => {
      const qid = `${c.convNo}_${t.turnNo}`;
      const row: TurnRow = {
        qid, conversation_id: String(c.convNo), turn: t.turnNo, question: t.question, rewrite: t.rewrite, answer: t.answer,
        history: c.turns.slice(0, i).map((h) => ({ question: h.question, answer: h.answer })),
        gold_passage_ids: t.gold,
      };
      return { row, type: labelled === undefined ? t.type : (labelled.get(qid) ?? null) };
    }),
  );
}

export interface Measured {
  readonly target: Bm25Target;
  readonly mini: number;
  readonly n: number;
  /** mini / paper. */
  readonly ratio: number;
  readonly inBand: boolean;
}

/** BM25 on the world's evaluation turns for every target of `dataset`. */
export function measureBm25(world: World, dataset: CalibratedDataset, targets: readonly Bm25Target[] = bm25Targets()): Measured[] {
  const mine = targets.filter((t) => t.dataset === dataset);
  const docs = [...streamCollection(world)].map((p) => ({ id: p.id, text: EVAL[dataset].indexText(p) }));
  const index = buildIndexSync(docs);
  const searcher = new Searcher(index, BM25_PRESETS[dataset]);
  const turns = evalTurns(world, dataset);
  const qrels: Qrels = new Map(turns.map(({ row }) => [row.qid, new Map(row.gold_passage_ids.map((g) => [g, 1]))]));
  const out: Measured[] = [];
  const runs = new Map<QueryFormName, Run>();
  for (const target of mine) {
    let run = runs.get(target.form);
    if (run === undefined) {
      run = new Map();
      for (const { row } of turns) {
        const text = queryText(row, target.form);
        const hits: Hit[] = text === "" ? [] : searcher.search(text, 100).map((h) => ({ docid: h.pid, score: h.score }));
        run.set(row.qid, hits);
      }
      runs.set(target.form, run);
    }
    const inGroup = new Set(turns.filter((t) => target.group === undefined || t.type === target.group).map((t) => t.row.qid));
    const groupQrels: Qrels = new Map([...qrels].filter(([qid]) => inGroup.has(qid)));
    const ev = evaluateRun(run, groupQrels, { metrics: [target.metric], noGold: "normalized", missing: "zero" });
    const mini = ev.aggregate.metrics[target.metric] ?? 0;
    const ratio = target.paper === 0 ? Number.POSITIVE_INFINITY : mini / target.paper;
    out.push({ target, mini, n: ev.aggregate.n, ratio, inBand: ratio >= 1 / BAND && ratio <= BAND });
  }
  return out;
}
