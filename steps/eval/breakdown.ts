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

/** Keys of a labels file, the dimension each fills and the label it stands for. */
const LABEL_KEYS: Record<string, { readonly dimension: LabelDimension; readonly label: string; readonly set: "qrecc" | "topiocqa" | "domain" }> = {
  trec: { dimension: "domain", label: "trec", set: "domain" },
  quac: { dimension: "domain", label: "quac", set: "domain" },
  nq: { dimension: "domain", label: "nq", set: "domain" },
  first: { dimension: "questionType", label: "first", set: "qrecc" },
  switch: { dimension: "questionType", label: "switch", set: "qrecc" },
  "no-switch": { dimension: "questionType", label: "no-switch", set: "qrecc" },
  // TopiOCQA type files: first turn, topic continues, topic switch (the paper's first / no-switch / switch).
  "1st": { dimension: "questionType", label: "first", set: "topiocqa" },
  tc: { dimension: "questionType", label: "no-switch", set: "topiocqa" },
  ts: { dimension: "questionType", label: "switch", set: "topiocqa" },
};

export interface ParsedLabels {
  readonly labels: LabelMap;
  /** Label keys that were renamed, e.g. {"1st": "first", "tc": "no-switch", "ts": "switch"}; empty for QReCC keys. */
  readonly renamed: Readonly<Record<string, string>>;
  /** "lists" for {label: [qids]}, "map" for {qid: label}. */
  readonly shape: "lists" | "map";
}

const KNOWN_KEYS = Object.keys(LABEL_KEYS).join(", ");

/**
 * Parse a question-type file (already JSON-parsed) into a label map. Two shapes:
 *  - {label: [qids]}: the authors' QReCC file `{"trec":[...], "quac":[...], "nq":[...], "first":[...],
 *    "switch":[...], "no-switch":[...]}`, or TopiOCQA's `{"1st":[...], "tc":[...], "ts":[...]}`;
 *  - {qid: label}: one label key per qid, e.g. `{"12-1": "1st", "12-2": "tc"}`.
 * TopiOCQA keys map to first / no-switch / switch (`renamed` says so). Mixing QReCC and TopiOCQA
 * type keys, an unknown key, a non-array value, a non-string qid, or a qid under two values of one
 * dimension is an InputError naming the key.
 */
export function parseLabels(data: unknown, file?: string): ParsedLabels {
  const where = file === undefined ? {} : { file };
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new InputError("labels file must be a JSON object of label -> [qids] (or qid -> label)", { ...where, fix: `write an object with keys among ${KNOWN_KEYS}` });
  }
  const record = data as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  // {qid: label}: every value a string and no key a label key (`{"switch": "1_1"}` is a broken list).
  const isMap = keys.length > 0 && keys.every((k) => typeof record[k] === "string" && LABEL_KEYS[k] === undefined);
  const lists = new Map<string, string[]>();
  if (isMap) {
    for (const qid of keys) {
      const key = record[qid] as string;
      if (LABEL_KEYS[key] === undefined) throw new InputError(`qid '${qid}' has unknown label '${key}'`, { ...where, field: qid, fix: `use only ${KNOWN_KEYS}` });
      let l = lists.get(key);
      if (l === undefined) lists.set(key, (l = []));
      l.push(qid);
    }
  } else {
    for (const key of keys) {
      if (LABEL_KEYS[key] === undefined) throw new InputError(`unknown label key '${key}'`, { ...where, field: key, fix: `use only ${KNOWN_KEYS}` });
      const list = record[key];
      if (!Array.isArray(list)) {
        throw new InputError(`label '${key}' must be an array of query ids, got ${list === null ? "null" : typeof list}`, { ...where, field: key, fix: "write the qids as a JSON array of strings" });
      }
      list.forEach((qid: unknown, i: number) => {
        if (typeof qid !== "string" || qid === "") {
          throw new InputError(`label '${key}' item ${i} is not a non-empty string qid (${JSON.stringify(qid)})`, { ...where, field: `${key}[${i}]`, fix: 'write qids as strings like "12_3"' });
        }
      });
      lists.set(key, list as string[]);
    }
  }
  const sets = new Set([...lists.keys()].map((k) => LABEL_KEYS[k]!.set).filter((s) => s !== "domain"));
  if (sets.size > 1) {
    throw new InputError("labels file mixes QReCC type keys (first, switch, no-switch) with TopiOCQA keys (1st, tc, ts)", { ...where, fix: "use one key set per file" });
  }
  const out = new Map<string, { questionType?: string; domain?: string }>();
  const renamed: Record<string, string> = {};
  for (const [key, qids] of [...lists.entries()].sort(([a], [b]) => compareUtf8(a, b))) {
    const { dimension, label } = LABEL_KEYS[key]!;
    if (label !== key) renamed[key] = label;
    for (const qid of qids) {
      const entry = out.get(qid) ?? {};
      const previous = entry[dimension];
      if (previous !== undefined && previous !== label) {
        throw new InputError(`qid '${qid}' is labelled both '${previous}' and '${label}'`, { ...where, field: key, fix: `list each qid under one ${dimension} only` });
      }
      entry[dimension] = label;
      out.set(qid, entry);
    }
  }
  return { labels: out, renamed, shape: isMap ? "map" : "lists" };
}

/** The label map of `parseLabels` (see there). */
export function parseLabelsFile(data: unknown, file?: string): LabelMap {
  return parseLabels(data, file).labels;
}
