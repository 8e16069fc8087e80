/**
 * Breakdowns of per-query metrics by labels (question type, source domain), and the
 * parser of the authors' labels file.
 *
 * Labels are a map qid -> {questionType?, domain?}. Question types are free strings:
 * QReCC uses first / switch / no-switch, TopiOCQA first / topic-continues / topic-switch
 * (the paper's figures call them first / no-switch / switch too). Domains: quac / nq / trec.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { meanMetrics } from "./evaluate.ts";
import type { PerQueryRow } from "./evaluate.ts";
import { compareUtf8 } from "./ranking.ts";

export interface QueryLabels {
  readonly questionType?: string;
  readonly domain?: string;
}

export type LabelMap = Map<string, QueryLabels>;

export type LabelDimension = keyof QueryLabels;

export interface BreakdownGroup {
  readonly group: string;
  readonly n: number;
  readonly metrics: Record<string, number>;
}

export interface Breakdown {
  readonly by: LabelDimension;
  /** Groups in `order` first (those with N > 0), then any others sorted by name. */
  readonly groups: BreakdownGroup[];
  /** Evaluated rows that carry no label for this dimension (e.g. QuAC turns for question type). */
  readonly unlabelled: number;
  /** All evaluated rows, for the "all" line of a table. */
  readonly all: BreakdownGroup;
}

export interface BreakdownOptions {
  readonly by: LabelDimension;
  /** Preferred group order, e.g. ["first", "switch", "no-switch"]. */
  readonly order?: readonly string[];
  /** Metric names to average; default: the keys of the first row. */
  readonly metrics?: readonly string[];
}

/** Mean of each metric per label group, with N. Deterministic group order. */
export function breakdown(perQuery: readonly PerQueryRow[], labels: ReadonlyMap<string, QueryLabels>, options: BreakdownOptions): Breakdown {
  const metricNames = options.metrics ?? Object.keys(perQuery[0]?.metrics ?? {});
  const byGroup = new Map<string, PerQueryRow[]>();
  let unlabelled = 0;
  for (const row of perQuery) {
    const label = labels.get(row.qid)?.[options.by];
    if (label === undefined) {
      unlabelled++;
      continue;
    }
    let list = byGroup.get(label);
    if (list === undefined) byGroup.set(label, (list = []));
    list.push(row);
  }
  const order = options.order ?? [];
  const rank = (g: string): number => {
    const i = order.indexOf(g);
    return i === -1 ? order.length : i;
  };
  const names = [...byGroup.keys()].sort((a, b) => rank(a) - rank(b) || compareUtf8(a, b));
  const groups = names.map((group) => {
    const rows = byGroup.get(group)!;
    return { group, n: rows.length, metrics: meanMetrics(rows, metricNames) };
  });
  return { by: options.by, groups, unlabelled, all: { group: "all", n: perQuery.length, metrics: meanMetrics(perQuery, metricNames) } };
}

/** Keys of the authors' labels file and the dimension each one fills. */
const LABEL_KEYS: Record<string, LabelDimension> = {
  trec: "domain",
  quac: "domain",
  nq: "domain",
  first: "questionType",
  switch: "questionType",
  "no-switch": "questionType",
};

/**
 * Parse the authors' question-type file `{"trec":[qids], "quac":[...], "nq":[...],
 * "first":[...], "switch":[...], "no-switch":[...]}` (already JSON-parsed) into a
 * label map. Every key is optional; an unknown key, a non-array value, a non-string
 * qid, or a qid listed under two values of one dimension is an InputError naming the key.
 */
export function parseLabelsFile(data: unknown, file?: string): LabelMap {
  const where = file === undefined ? {} : { file };
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new InputError("labels file must be a JSON object of label -> [qids]", { ...where, fix: `write an object with keys among ${Object.keys(LABEL_KEYS).join(", ")}` });
  }
  const out = new Map<string, { questionType?: string; domain?: string }>();
  for (const key of Object.keys(data).sort()) {
    const dimension = LABEL_KEYS[key];
    if (dimension === undefined) {
      throw new InputError(`unknown label key '${key}'`, { ...where, field: key, fix: `use only ${Object.keys(LABEL_KEYS).join(", ")}` });
    }
    const list = (data as Record<string, unknown>)[key];
    if (!Array.isArray(list)) {
      throw new InputError(`label '${key}' must be an array of query ids, got ${list === null ? "null" : typeof list}`, { ...where, field: key, fix: "write the qids as a JSON array of strings" });
    }
    list.forEach((qid: unknown, i: number) => {
      if (typeof qid !== "string" || qid === "") {
        throw new InputError(`label '${key}' item ${i} is not a non-empty string qid (${JSON.stringify(qid)})`, { ...where, field: `${key}[${i}]`, fix: "write qids as strings like \"12_3\"" });
      }
      const entry = out.get(qid) ?? {};
      const previous = entry[dimension];
      if (previous !== undefined && previous !== key) {
        throw new InputError(`qid '${qid}' is labelled both '${previous}' and '${key}'`, { ...where, field: key, fix: `list each qid under one ${dimension} only` });
      }
      entry[dimension] = key;
      out.set(qid, entry);
    });
  }
  return out;
}
