/**
 * Steps of `diagnose`:
 *   read-conversations-file  a user's conversations JSONL -> parquet:turns (the pipeline's turns
 *                            schema, so the existing BM25 search and evaluation steps run on it)
 *                            + json:conversations (where the question types came from)
 *   render-diagnosis         turns + the BM25 index + per-query metrics of q_t, X_t \ q_t, X_t ->
 *                            diagnosis.json, report.md, report.html
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readParquetRows, writeParquetFile } from "../lib/parquet.ts";
import { turnsSchema } from "../data/schemas.ts";
import { readHashedLines } from "../files/hashed-lines.ts";
import { compareCodePoints, docId } from "../sparse/index.ts";
import { searchBatchParallel } from "../sparse/parallel.ts";
import type { RunRow } from "../sparse/search.ts";
import { queryText } from "../encoding/format/query-forms.ts";
import type { TurnRow as FormatTurnRow } from "../encoding/format/rows.ts";
import { writeRunParquet } from "../eval/run-table.ts";
import { IN_THREAD_TOPICS, inThread } from "../files/steps.ts";
import { readIndex } from "../sparse/index-file.ts";
import { diagnosisType, parseConversations } from "./conversations.ts";
import { DIAGNOSIS_FORMS, diagnose, diagnosisMetrics, type DiagnosisForm, type TurnMetrics } from "./core.ts";
import { renderHtml, renderMarkdown, type DiagnosisReport } from "./render.ts";

const fileParam = z.object({ name: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }).strict();

export interface ConversationsSummary {
  readonly conversations: number;
  readonly turns: number;
  /** qid -> "given" | "computed" for typed turns. */
  readonly typeSource: Record<string, "given" | "computed">;
}

export function readConversationsDef(locations: ReadonlyMap<string, string>) {
  return defineStepWith({ locations: [...locations].sort() }, {
    id: "read-conversations-file",
    version: 1,
    source: import.meta.url,
    description: "A conversations JSONL file (README: Diagnosing a dataset) as the pipeline's turns table.",
    params: z.object({ file: fileParam, split: z.string().min(1).default("all") }).strict(),
    inputs: {},
    outputs: { turns: file("parquet:turns", "turns.parquet"), summary: file("json:conversations", "conversations.json") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const path = locations.get(ctx.params.file.name);
        if (path === undefined) throw new Error(`no location for ${ctx.params.file.name}`);
        const turns = await parseConversations(readHashedLines(path, { sha256: ctx.params.file.sha256 }), path, ctx.params.split);
        await writeParquetFile(ctx.outputs.turns, turnsSchema(), turns);
        const typeSource: Record<string, "given" | "computed"> = {};
        for (const t of turns) if (t.typeSource !== "none") typeSource[t.qid] = t.typeSource;
        const summary: ConversationsSummary = { conversations: new Set(turns.map((t) => t.conversation_id)).size, turns: turns.length, typeSource };
        await writeFile(ctx.outputs.summary, JSON.stringify(summary) + "\n");
        ctx.log(`${summary.turns} turns in ${summary.conversations} conversations`);
      },
    },
  });
}

export const RENDER_PARAMS = z
  .object({
    title: z.string().min(1),
    source: z.array(z.string()),
    split: z.string().min(1),
    cutoffs: z.array(z.number().int().positive()).min(1),
    samples: z.number().int().positive().default(1000),
    seed: z.number().int().nonnegative().default(42),
    level: z.number().gt(0).lt(1).default(0.95),
    k1: z.number().positive(),
    b: z.number().min(0).max(1),
  })
  .strict();

interface TurnInfo {
  readonly qid: string;
  readonly split: string;
  readonly conversation_id: string;
  readonly question_type: string | null;
  readonly gold_passage_ids: string[];
}

async function perQuery(path: string): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  for await (const row of readParquetRows<Record<string, unknown>>(path)) {
    const metrics: Record<string, number> = {};
    for (const [k, v] of Object.entries(row)) if (typeof v === "number" && k !== "n_gold" && k !== "n_retrieved") metrics[k] = v;
    out.set(String(row.qid), metrics);
  }
  return out;
}

/** Gold ids that are not passage ids of the index (binary search over the ids in code point order). */
function missingFromIndex(indexFile: string, ids: readonly string[]): { count: number; examples: string[]; passages: number } {
  const index = readIndex(indexFile);
  const byRank = new Uint32Array(index.numDocs);
  for (let d = 0; d < index.numDocs; d++) byRank[index.idRank[d]!] = d;
  const has = (id: string): boolean => {
    let lo = 0;
    let hi = index.numDocs - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareCodePoints(docId(index, byRank[mid]!), id);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  };
  const missing = [...new Set(ids)].filter((id) => !has(id)).sort(compareCodePoints);
  return { count: missing.length, examples: missing.slice(0, 5), passages: index.numDocs };
}

/** A conversations summary for a dataset cspipe already reads: its turns' types are given by the turns table. */
export const summarizeTurnsStep = defineStep({
  id: "summarize-turns",
  version: 1,
  source: import.meta.url,
  description: "Conversation and turn counts of one split of a turns table, question types as given.",
  params: z.object({ split: z.string().min(1) }).strict(),
  inputs: { turns: "parquet:turns" },
  outputs: { summary: file("json:conversations", "conversations.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const conversations = new Set<string>();
      const typeSource: Record<string, "given" | "computed"> = {};
      let turns = 0;
      for await (const t of readParquetRows<TurnInfo>(ctx.inputs.turns)) {
        if (t.split !== ctx.params.split) continue;
        turns++;
        conversations.add(t.conversation_id);
        if (diagnosisType(t.question_type) !== null) typeSource[t.qid] = "given";
      }
      const summary: ConversationsSummary = { conversations: conversations.size, turns, typeSource };
      await writeFile(ctx.outputs.summary, JSON.stringify(summary) + "\n");
    },
  },
});

/** Paths a rendering reads: the turns, the index, per-query metrics of each form, the type sources, and optionally a dense model's. */
export interface RenderInputs {
  readonly turns: string;
  readonly summary: string;
  readonly index: string;
  readonly q_t: string;
  readonly history_without_q: string;
  readonly history: string;
  readonly dense?: { readonly history_without_q: string; readonly history: string; readonly model: string };
}

async function renderDiagnosis(inputs: RenderInputs, p: z.infer<typeof RENDER_PARAMS>, outputs: { json: string; markdown: string; html: string }, log: (line: string) => void): Promise<void> {
  const turns: TurnInfo[] = [];
  for await (const t of readParquetRows<TurnInfo>(inputs.turns)) if (t.split === p.split) turns.push(t);
  if (turns.length === 0) throw new InputError(`no turns in split '${p.split}'`, { file: inputs.turns, field: "split", fix: "pick a split the dataset has" });
  const forms: Record<DiagnosisForm, Map<string, Record<string, number>>> = {
    q_t: await perQuery(inputs.q_t),
    history_without_q: await perQuery(inputs.history_without_q),
    history: await perQuery(inputs.history),
  };
  const dense = inputs.dense === undefined ? undefined : { history_without_q: await perQuery(inputs.dense.history_without_q), history: await perQuery(inputs.dense.history) };
  const wanted = diagnosisMetrics(p.cutoffs);
  const rows: TurnMetrics[] = [];
  for (const t of turns) {
    const values = DIAGNOSIS_FORMS.map((f) => forms[f].get(t.qid));
    if (values.some((v) => v === undefined)) continue; // not scored (no gold)
    for (const v of values) for (const m of wanted) if (v![m] === undefined) throw new Error(`per-query metrics lack ${m}`);
    const row = { qid: t.qid, type: diagnosisType(t.question_type), forms: { q_t: values[0]!, history_without_q: values[1]!, history: values[2]! } };
    const d = dense === undefined ? undefined : { history_without_q: dense.history_without_q.get(t.qid), history: dense.history.get(t.qid) };
    rows.push(d?.history_without_q !== undefined && d.history !== undefined ? { ...row, dense: { history_without_q: d.history_without_q, history: d.history } } : row);
  }
  if (rows.length === 0) throw new InputError("no turn has gold passages: nothing to diagnose", { file: inputs.turns, field: "gold_passage_ids", fix: "give the turns their gold passage ids" });
  const summary = JSON.parse(await readFile(inputs.summary, "utf8")) as ConversationsSummary;
  const typed = rows.filter((r) => r.type !== null);
  const computed = typed.filter((r) => summary.typeSource[r.qid] === "computed").length;
  const statsPath = join(inputs.index, "stats.json");
  const missing = missingFromIndex(join(inputs.index, "bm25.idx"), turns.flatMap((t) => t.gold_passage_ids));
  const report: DiagnosisReport = {
    title: p.title,
    source: p.source,
    bm25: { k1: p.k1, b: p.b },
    cutoffs: p.cutoffs,
    bootstrap: { samples: p.samples, seed: p.seed, level: p.level },
    counts: {
      conversations: new Set(turns.map((t) => t.conversation_id)).size,
      turns: turns.length,
      withGold: rows.length,
      passages: existsSync(statsPath) ? (JSON.parse(await readFile(statsPath, "utf8")) as { numDocs: number }).numDocs : missing.passages,
      types: { given: typed.length - computed, computed, none: rows.length - typed.length },
    },
    missingGold: { count: missing.count, examples: missing.examples },
    groups: diagnose(rows, { cutoffs: p.cutoffs, samples: p.samples, seed: p.seed, level: p.level }),
    ...(inputs.dense !== undefined ? { dense: { model: inputs.dense.model } } : {}),
  };
  await writeFile(outputs.json, JSON.stringify(report, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2) + "\n");
  await writeFile(outputs.markdown, renderMarkdown(report));
  await writeFile(outputs.html, renderHtml(report));
  log(`${rows.length} scored turns; ${report.groups.map((g) => `${g.group} ${g.n}`).join(", ")}`);
}

const RENDER_OUTPUTS = { json: file("json:diagnosis", "diagnosis.json"), markdown: file("markdown:diagnosis", "report.md"), html: file("html:diagnosis", "report.html") };
const RENDER_INPUTS = { turns: "parquet:turns", summary: "json:conversations", index: "bm25-index", q_t: "parquet:per-query", history_without_q: "parquet:per-query", history: "parquet:per-query" } as const;

/** The BM25 diagnosis. */
export const renderDiagnosisStep = defineStep({
  id: "render-diagnosis",
  version: 1,
  source: import.meta.url,
  description: "Shortcut exposure of a conversational dataset: one-page Markdown and HTML report plus JSON.",
  params: RENDER_PARAMS,
  inputs: RENDER_INPUTS,
  outputs: RENDER_OUTPUTS,
  runtime: { type: "in-process", run: (ctx) => renderDiagnosis(ctx.inputs, ctx.params, ctx.outputs, (l) => ctx.log(l)) },
});

/** The BM25 diagnosis plus a dense model's runs over X_t \ q_t and X_t (`model` names it in the report). */
export const renderDiagnosisDenseStep = defineStep({
  id: "render-diagnosis",
  version: 1,
  source: import.meta.url,
  description: "Shortcut exposure of a conversational dataset, BM25 and a dense model: one-page Markdown and HTML report plus JSON.",
  params: RENDER_PARAMS.extend({ model: z.string().min(1) }),
  inputs: { ...RENDER_INPUTS, dense_history_without_q: "parquet:per-query", dense_history: "parquet:per-query" },
  outputs: RENDER_OUTPUTS,
  runtime: {
    type: "in-process",
    run: (ctx) => {
      const { model, ...params } = ctx.params;
      const dense = { history_without_q: ctx.inputs.dense_history_without_q, history: ctx.inputs.dense_history, model };
      return renderDiagnosis({ ...ctx.inputs, dense }, params, ctx.outputs, (l) => ctx.log(l));
    },
  },
});

/** BM25 runs of the three diagnosis forms over one split's turns (query text: query-forms.ts's queryText). */
export function searchFormsDef(threads: number) {
  return defineStepWith({ threads }, {
    id: "search-bm25-forms",
    version: 1,
    source: import.meta.url,
    description: "Top-k BM25 of q_t, X_t \\ q_t and X_t for every turn of a split.",
    params: z.object({ split: z.string().min(1), k: z.number().int().positive(), k1: z.number().positive(), b: z.number().min(0).max(1) }).strict(),
    inputs: { index: "bm25-index", turns: "parquet:turns" },
    outputs: {
      q_t: file("parquet:run", "q_t.parquet"),
      history_without_q: file("parquet:run", "history_without_q.parquet"),
      history: file("parquet:run", "history.parquet"),
    },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const { split, k, k1, b } = ctx.params;
        const turns: FormatTurnRow[] = [];
        for await (const t of readParquetRows<FormatTurnRow & { split: string }>(ctx.inputs.turns)) if (t.split === split) turns.push(t);
        if (turns.length === 0) throw new InputError(`no turns in split '${split}'`, { file: ctx.inputs.turns, field: "split", fix: "pick a split the dataset has" });
        turns.sort((x, y) => compareCodePoints(x.qid, y.qid));
        const indexPath = join(ctx.inputs.index, "bm25.idx");
        let done = 0;
        for (const form of DIAGNOSIS_FORMS) {
          const queries = turns.map((t) => ({ qid: t.qid, text: queryText(t, form) }));
          const progress = (n: number): void => ctx.progress(done + n, 3 * turns.length, form);
          const batches =
            queries.length <= IN_THREAD_TOPICS || threads === 1
              ? inThread(indexPath, queries, { k, k1, b, onProgress: progress, signal: ctx.signal })
              : searchBatchParallel(indexPath, queries, { k, k1, b, threads, total: queries.length, onProgress: progress, signal: ctx.signal });
          const rows: RunRow[] = [];
          for await (const batch of batches) rows.push(...batch);
          await writeRunParquet(ctx.outputs[form], rows);
          done += turns.length;
          ctx.log(`${form}: ${queries.length} queries, ${rows.length} hits`);
        }
      },
    },
  });
}
