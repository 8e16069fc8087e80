/**
 * What the per-dataset turn preprocessors share: their input/output contract, counted
 * warnings, the gold-in-collection check and writing the turns and qrels tables. The
 * collection is preprocessed apart (collection.ts, its own step), so a target that reads
 * one split needs only that split's files, and the collection is parsed once for all.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { writeParquetFile } from "../../lib/parquet.ts";
import type { RecordAt } from "../formats/records.ts";
import type { DatasetName, QrelRow, TurnRow } from "../schemas.ts";
import { compareQrels, compareTurns, qrelsSchema, turnsSchema } from "../schemas.ts";
import type { QuestionTypeReport } from "./question-type-report.ts";
import type { TypeRule } from "./question-types.ts";

export interface PreprocessParams {
  /** Gold ids missing from the collection are an error instead of a counted warning (default false). */
  readonly strict?: boolean;
  /** Parquet row-group size (default 65,536). */
  readonly rowGroupRows?: number;
  /** QReCC: conversations cut from train into dev (default 2000; see dev-split.ts for the clamp). */
  readonly devConversations?: number;
  /** QReCC: dev split seed (default 42). */
  readonly devSeed?: number;
  /** QReCC: upper bound on the dev share of train conversations (default 0.2). */
  readonly devMaxFraction?: number;
  /** QReCC: keep only train turns with a gold passage (default true). */
  readonly trainGoldOnly?: boolean;
  /** QReCC: a labels file is the breakdown ("override", default) or is only compared with the computed types. */
  readonly labelsMode?: "override" | "compare";
  /** QReCC: how consecutive gold sets are compared for switch / no-switch (question-types.ts; default "shared-passage"). */
  readonly typeRule?: TypeRule;
  /** QReCC: the split the labels file describes (default "test"; qids repeat across splits). */
  readonly labelsSplit?: string;
}

export interface PreprocessInputs {
  /** split name -> turn file (QReCC: train, test; TopiOCQA: train, dev; OR-QuAC: train, dev, test); only these splits are read. */
  readonly turnsFiles: Readonly<Record<string, string>>;
  /** The collection's passages.parquet (collection.ts): gold ids are checked, and TopiOCQA references resolved, against it. */
  readonly passagesFile: string;
  /** split name -> JSON qrels file (QReCC); OR-QuAC's single qrels.txt under any key. */
  readonly qrelsFiles?: Readonly<Record<string, string>>;
  /** QReCC question-type labels file (authors' format). */
  readonly labelsFile?: string;
  readonly outDir: string;
  readonly params?: PreprocessParams;
  readonly onProgress?: (done: number, total?: number) => void;
}

export interface PreprocessWarning {
  readonly code: string;
  readonly message: string;
  readonly count: number;
  /** Up to 5 examples. */
  readonly examples: string[];
}

export interface PreprocessResult {
  readonly counts: Record<string, number>;
  readonly warnings: PreprocessWarning[];
  /** The breakdown the turns carry and, where labels ship, the computed types' agreement with them. */
  readonly questionTypes: QuestionTypeReport;
  readonly files: { turns: string; qrels: string };
}

export type Preprocessor = (inputs: PreprocessInputs) => Promise<PreprocessResult>;

/** Counted warnings, keyed by code, in first-seen order. */
export class Warnings {
  private readonly byCode = new Map<string, { message: string; count: number; examples: string[] }>();

  add(code: string, message: string, example: string): void {
    let w = this.byCode.get(code);
    if (w === undefined) this.byCode.set(code, (w = { message, count: 0, examples: [] }));
    w.count++;
    if (w.examples.length < 5) w.examples.push(example);
  }

  list(): PreprocessWarning[] {
    return [...this.byCode].map(([code, w]) => ({ code, message: w.message, count: w.count, examples: w.examples }));
  }
}

export interface LocatedTurn {
  readonly row: TurnRow;
  readonly at: RecordAt;
}

/** Gold ids of all turns. */
export function goldIdsOf(turns: readonly LocatedTurn[]): Set<string> {
  const out = new Set<string>();
  for (const t of turns) for (const id of t.row.gold_passage_ids) out.add(id);
  return out;
}

/**
 * Gold ids not in the collection: an InputError naming the turn's file and line when
 * strict, else one counted warning per (turn, id). The ids stay in the turn (they count
 * as unreachable gold in evaluation, as in the original data).
 */
export function checkGoldInCollection(turns: readonly LocatedTurn[], found: ReadonlySet<string>, strict: boolean, warnings: Warnings): void {
  for (const t of turns) {
    for (const id of t.row.gold_passage_ids) {
      if (found.has(id)) continue;
      if (strict) {
        throw new InputError(`turn ${t.row.qid}: gold passage '${id}' is not in the collection`, { file: t.at.file, line: t.at.line, field: "gold passage", fix: "use the matching collection release, or run without strict to count these as warnings" });
      }
      warnings.add("gold-not-in-collection", "gold passage id not found in the collection", `${t.row.qid}: ${id}`);
    }
  }
}

/** Qrels rows (relevance 1) from the turns' gold ids, sorted. */
export function qrelsFromTurns(rows: readonly TurnRow[]): QrelRow[] {
  const out: QrelRow[] = [];
  for (const r of rows) for (const pid of r.gold_passage_ids) out.push({ split: r.split, qid: r.qid, pid, relevance: 1 });
  return out.sort(compareQrels);
}

export function tablePaths(outDir: string): { turns: string; passages: string; qrels: string } {
  return { turns: join(outDir, "turns.parquet"), passages: join(outDir, "passages.parquet"), qrels: join(outDir, "qrels.parquet") };
}

/** Turn and qrels tables of a turn preprocessor. */
export function turnTablePaths(outDir: string): { turns: string; qrels: string } {
  const { turns, qrels } = tablePaths(outDir);
  return { turns, qrels };
}

/** Writes turns.parquet (sorted by split, conversation, turn) and qrels.parquet. */
export async function writeTurnTables(outDir: string, dataset: DatasetName, rows: TurnRow[], qrels: QrelRow[], rowGroupRows?: number): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const paths = tablePaths(outDir);
  const options = { ...(rowGroupRows === undefined ? {} : { rowGroupRows }), metadata: { "cspipe.dataset": dataset } };
  await writeParquetFile(paths.turns, turnsSchema, [...rows].sort(compareTurns), options);
  await writeParquetFile(paths.qrels, qrelsSchema, qrels, options);
}

/** Checks that every turn file key maps to a distinct split name the dataset knows. */
export function checkSplits(turnsFiles: Readonly<Record<string, string>>, allowed: readonly string[], dataset: string): [string, string][] {
  const entries = Object.entries(turnsFiles).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [split] of entries) {
    if (!allowed.includes(split)) throw new RangeError(`${dataset}: unknown split '${split}' (expected ${allowed.join(", ")})`);
  }
  if (entries.length === 0) throw new RangeError(`${dataset}: no turn files given`);
  return entries;
}
