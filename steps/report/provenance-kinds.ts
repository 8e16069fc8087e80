/**
 * What a provenance page shows of a step's output, by output kind (a registry, not an
 * if-chain): a one-line summary, page sections (HTML), and files copied into the report for
 * download. Only small files are read: an evaluation's metrics.json, a model's metrics.jsonl
 * and result.json (the trainer's per-epoch record: train loss and dev R@k, drawn as training
 * curves), and a TREC run (copied; gzipped above 16 MiB so real-data reports stay small).
 * Kinds without a view get a summary from the step's params alone.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, readFile, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { Json } from "../../pipeline/engine/canonical.ts";
import type { MetricsFile } from "../eval/steps.ts";
import { formatCount, formatNumber, type NumberFormat } from "./format.ts";
import { el, raw, type Html } from "./html.ts";
import { trainingCurves, type EpochRow } from "./curves.ts";

export interface OutputView {
  readonly summary: string;
  /**
   * A model's numerics identity, as its trainer recorded it in result.json (the one its key
   * holds; pipeline/engine/numerics-words.ts), and whether the model was trained (false: an
   * export of existing weights).
   */
  readonly numerics?: { readonly identity: Json; readonly trained: boolean };
  readonly sections: readonly Html[];
  /** Files to place in the report: `to` is relative to the provenance directory. */
  readonly files: readonly { readonly label: string; readonly from: string; readonly to: string; readonly gzip?: boolean }[];
}

/** What the report does with the output's files: `copy` false leaves large ones in the store (the page says where). */
export interface ViewContext {
  readonly copy: boolean;
  /** Where the entry lives in the store, relative to the store root. */
  readonly storePath: string;
}

export type ViewReader = (path: string, key: string, ctx: ViewContext) => Promise<OutputView>;

const metricFormat = (name: string): NumberFormat => (name === "mrr" ? { kind: "fixed", digits: 3 } : { kind: "percent", digits: 1 });
const metricLabel = (name: string): string => name.replace(/^recall@/, "R@").replace(/^success@/, "S@").replace(/^mrr$/, "MRR");
/** MRR first, then each family by its cut-off (R@5 before R@10 before R@100). */
function byMetric(a: string, b: string): number {
  const parse = (m: string): [string, number] => {
    const at = m.indexOf("@");
    return at < 0 ? [m === "mrr" ? "" : m, 0] : [m.slice(0, at), Number(m.slice(at + 1))];
  };
  const [fa, ka] = parse(a);
  const [fb, kb] = parse(b);
  return fa < fb ? -1 : fa > fb ? 1 : ka - kb;
}
const metricText = (name: string, v: number): string => `${metricLabel(name)} ${formatNumber(v, metricFormat(name))}${metricFormat(name).kind === "percent" ? "%" : ""}`;

async function metricsView(path: string, key: string): Promise<OutputView> {
  const m = JSON.parse(await readFile(path, "utf8")) as MetricsFile;
  const names = Object.keys(m.aggregate.metrics).sort(byMetric);
  const summary = `N = ${formatCount(m.aggregate.n)} turns of '${m.split}': ${names.map((n) => metricText(n, m.aggregate.metrics[n]!)).join(", ")}`;
  const rows: Html[] = [];
  const row = (label: string, n: number, metrics: Record<string, number>): Html =>
    el("tr", {}, el("th", { scope: "row" }, label), el("td", { class: "num" }, formatCount(n)), ...names.map((k) => el("td", { class: "num" }, metrics[k] === undefined ? "-" : formatNumber(metrics[k]!, metricFormat(k)))));
  rows.push(row("all", m.aggregate.n, m.aggregate.metrics));
  for (const b of [m.byQuestionType, m.byDomain]) for (const g of b.groups) rows.push(row(`${b.by === "questionType" ? "question type" : "domain"} ${g.group}`, g.n, g.metrics));
  const counts = m.aggregate.counts as unknown as Record<string, number> | undefined;
  const section = el(
    "section",
    {},
    el("h2", {}, "Metrics"),
    el("table", { class: "results" }, el("thead", {}, el("tr", {}, el("th", {}, "turns"), el("th", {}, "N"), ...names.map((k) => el("th", {}, `${metricLabel(k)} (${metricFormat(k).kind === "percent" ? "%" : "fraction"})`)))), el("tbody", {}, ...rows)),
    el("p", { class: "caption" }, `Evaluation: ${m.aggregate.noGold} (turns without gold ${m.aggregate.noGold === "normalized" ? "skipped" : "scored 0"}), queries missing from the run ${m.aggregate.missing === "zero" ? "scored 0" : "skipped"}, ties broken as ${m.aggregate.tieRule}.`),
    counts === undefined ? raw("") : el("p", { class: "caption" }, `Counts: ${Object.entries(counts).map(([k, v]) => `${k} ${formatCount(v)}`).join(", ")}.`),
  );
  return { summary, sections: [section], files: [{ label: "metrics.json", from: path, to: `files/${key}/metrics.json` }] };
}

/** Reads a trainer's metrics.jsonl (one JSON object per line; an empty file is no epochs). */
export function parseEpochRows(text: string, file: string): EpochRow[] {
  const out: EpochRow[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new InputError("not JSON", { file, line: i + 1, fix: "rerun the training step; its metrics.jsonl is damaged" });
    }
    if (typeof row !== "object" || row === null || typeof (row as { epoch?: unknown }).epoch !== "number") throw new InputError("a row without a numeric 'epoch'", { file, line: i + 1, fix: "rerun the training step" });
    out.push(row as EpochRow);
  });
  return out;
}

async function modelView(path: string, key: string): Promise<OutputView> {
  const metricsFile = join(path, "metrics.jsonl");
  const resultFile = join(path, "result.json");
  const rows = parseEpochRows(await readFile(metricsFile, "utf8").catch(() => ""), metricsFile);
  const result = JSON.parse(await readFile(resultFile, "utf8").catch(() => "{}")) as Record<string, unknown>;
  const curves = trainingCurves(rows, key);
  const best = typeof result.best_epoch === "number" ? result.best_epoch : null;
  const trained = rows.filter((r) => typeof r.train_loss === "number").length;
  const recallKey = curves.recallKey;
  const bestRow = rows.find((r) => r.epoch === best);
  const bestRecall = recallKey !== null && bestRow !== undefined ? bestRow[recallKey] : undefined;
  const summary =
    trained === 0
      ? `exported without training${typeof bestRecall === "number" ? `; dev R@${curves.k} ${formatNumber(bestRecall, { kind: "percent", digits: 1 })}%` : ""}`
      : `${trained} epoch${trained === 1 ? "" : "s"}, best epoch ${best ?? "?"}${typeof bestRecall === "number" ? ` (dev R@${curves.k} ${formatNumber(bestRecall, { kind: "percent", digits: 1 })}%)` : ""}, last train loss ${formatNumber(rows.filter((r) => typeof r.train_loss === "number").at(-1)!.train_loss as number, { kind: "fixed", digits: 3 })}`;
  const shown = ["best_epoch", "steps", "examples", "train_queries", "fallback_negatives", "device", "amp", "threads", "torch_version"].filter((k) => result[k] !== undefined);
  const sections: Html[] = [
    el(
      "section",
      {},
      el("h2", {}, "Training"),
      curves.svg.length > 0 ? el("div", { class: "curves" }, ...curves.svg.map((s) => raw(s))) : el("p", {}, "No per-epoch metrics (the model was exported, not trained)."),
      curves.table,
      el("table", { class: "kv" }, el("tbody", {}, ...shown.map((k) => el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, String(result[k])))))),
      el("p", { class: "caption" }, "From the trainer's own record (metrics.jsonl, result.json, part of the model's output and of its digest: what it computed, not how long that took). The full log with each epoch's seconds and the machine it ran on is the entry's log.txt in the store."),
    ),
  ];
  return {
    summary,
    sections,
    ...(result.numerics !== undefined ? { numerics: { identity: result.numerics as Json, trained: trained > 0 } } : {}),
    files: [
      { label: "metrics.jsonl (per epoch)", from: metricsFile, to: `files/${key}/metrics.jsonl` },
      { label: "result.json", from: resultFile, to: `files/${key}/result.json` },
    ],
  };
}

/** Above this a run file is copied gzipped (TREC text shrinks about 5 times). */
export const RUN_GZIP_BYTES = 1024 * 1024;

async function runView(path: string, key: string, ctx: ViewContext): Promise<OutputView> {
  const qids = new Set<string>();
  let lines = 0;
  let tag = "";
  const preview: string[] = [];
  const rl = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.trim() === "") continue;
    lines++;
    const f = line.split(/\s+/);
    qids.add(f[0]!);
    tag = f[5] ?? tag;
    if (preview.length < 8) preview.push(line);
  }
  const summary = `TREC run '${tag}': ${formatCount(qids.size)} queries, ${formatCount(lines)} lines`;
  const format = `TREC format: qid Q0 docid rank score tag; ${formatCount(lines)} lines`;
  if (!ctx.copy) {
    const where = `${ctx.storePath}outputs/run.trec`;
    return { summary, sections: [el("section", {}, el("h2", {}, "Run file"), el("p", {}, `Not copied into the report (no evaluation of the report reads it; it feeds a later step such as negative mining). In the store: `, el("code", {}, where), ` (${format}). First lines:`), el("pre", {}, preview.join("\n")))], files: [] };
  }
  const big = (await stat(path)).size > RUN_GZIP_BYTES;
  const to = `runs/${key}.trec${big ? ".gz" : ""}`;
  return {
    summary,
    sections: [el("section", {}, el("h2", {}, "Run file"), el("p", {}, el("a", { href: to, download: "" }, `run.trec${big ? ".gz" : ""}`), ` (${format}${big ? ", gzipped" : ""}). First lines:`), el("pre", {}, preview.join("\n")))],
    files: [{ label: `run.trec${big ? ".gz" : ""}`, from: path, to, gzip: big }],
  };
}

/** Output kinds with a view, in the order a step's output is picked for its page. */
export const OUTPUT_VIEWS: ReadonlyMap<string, ViewReader> = new Map<string, ViewReader>([
  ["json:metrics", metricsView],
  ["trec:run", runView],
  ["dpr:model", modelView],
]);

/** Copy (or gzip) a file for the report; gzip output has no name or time in its header (stable bytes). */
export async function placeFile(from: string, to: string, gzip: boolean): Promise<void> {
  if (gzip) await pipeline(createReadStream(from), createGzip({ level: 6 }), createWriteStream(to));
  else await copyFile(from, to);
}

export { metricText };
