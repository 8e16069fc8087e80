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
  /** Gold ids missing from the collection are an error instead of a counted warning (the steps pass !allowMissingGold). */
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
  /** A stop (the step's AbortSignal): the passes over the collection end within a fraction of a second. */
  readonly signal?: AbortSignal;
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
 * Gold ids not in the collection: when strict, an InputError naming the first turn's file
 * and line with the total count; else one counted warning per (turn, id). The ids stay in
 * the turn (they count as unreachable gold in evaluation, as in the original data).
 */
export function checkGoldInCollection(turns: readonly LocatedTurn[], found: ReadonlySet<string>, strict: boolean, warnings: Warnings): void {
  const missing: { turn: LocatedTurn; id: string }[] = [];
  for (const t of turns) for (const id of t.row.gold_passage_ids) if (!found.has(id)) missing.push({ turn: t, id });
  if (missing.length === 0) return;
  if (strict) {
    const first = missing[0]!;
    const n = missing.length;
    const m = new Set(missing.map((x) => x.turn.row.qid)).size;
    const more = missing.slice(1, 4).map((x) => `${x.turn.row.qid}: ${x.id}`);
    throw new InputError(
      `turn ${first.turn.row.qid}: gold passage '${first.id}' is not in the collection (${n} gold passage id${n === 1 ? "" : "s"} of ${m} turn${m === 1 ? "" : "s"} missing in all${more.length > 0 ? `; also ${more.join("; ")}${n > 4 ? "; ..." : ""}` : ""})`,
      {
        file: first.turn.at.file,
        line: first.turn.at.line,
        field: "gold passage",
        fix: `use the collection release that matches these turns; if the release itself lacks them, rerun with --set data.${first.turn.row.dataset}.allowMissingGold=true (they are then counted in the preprocessing report and score as unreachable)`,
      },
    );
  }
  for (const x of missing) warnings.add("gold-not-in-collection", "gold passage id not found in the collection", `${x.turn.row.qid}: ${x.id}`);
}

/** Warning codes whose counts a preprocessing step's report lists among its counts. */
const COUNTED_WARNINGS: Readonly<Record<string, string>> = { "gold-not-in-collection": "gold_not_in_collection", "gold-ref-unresolved": "gold_refs_unresolved" };

/**
 * What a preprocessing step checks about a result before publishing it (the failure then
 * surfaces in the step that read the files, not steps later): every turn file yields turns
 * of its split, and, where the step also read the collection (`collectionFiles`), that it
 * yields passages. Returns the counts for the step's report, with the missing gold counted.
 */
export function checkedCounts(result: Pick<PreprocessResult, "counts" | "warnings">, inputs: Pick<PreprocessInputs, "turnsFiles"> & { readonly collectionFiles?: readonly string[] }): Record<string, number> {
  for (const [split, file] of Object.entries(inputs.turnsFiles).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if ((result.counts[`turns_${split}`] ?? 0) > 0) continue;
    throw new InputError(`no ${split} turns: the file yields no usable turns for split '${split}'`, {
      file,
      fix: "check that it is the complete release file for this split (an empty or truncated download, or the wrong file, gives no turns)",
    });
  }
  const collection = inputs.collectionFiles;
  if (collection !== undefined && (result.counts["passages"] ?? 0) === 0) {
    throw new InputError(`the collection has no passages (${collection.length} file${collection.length === 1 ? "" : "s"} read)`, {
      file: collection[0] ?? "(no collection file)",
      fix: "check that the collection files are complete (an empty or truncated download gives no passages)",
    });
  }
  const counts = { ...result.counts };
  for (const w of result.warnings) {
    const name = COUNTED_WARNINGS[w.code];
    if (name !== undefined) counts[name] = w.count;
  }
  return counts;
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
  await writeParquetFile(paths.turns, turnsSchema(), [...rows].sort(compareTurns), options);
  await writeParquetFile(paths.qrels, qrelsSchema(), qrels, options);
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
