/**
 * Training examples for the DPR trainer, as row indexes (pure, no I/O): which tokenized
 * training queries become examples, their positive / gold / mined-negative passage rows,
 * and the small dev collection used for per-epoch Recall@k model selection.
 *
 * Rules (steps/training/README.md has the trainer's side):
 * - one example per training turn that has a gold passage present in the collection; the
 *   positive is its first gold passage (the order of the dataset's gold list);
 * - every gold passage of the turn is listed in `gold` (never sampled as a negative,
 *   masked in-batch), missing ones dropped;
 * - mined negatives keep the miner's rank order, truncated to k, -1 padded; ids not in the
 *   collection are dropped (counted);
 * - the dev collection is every gold passage of the dev turns plus a seeded uniform sample
 *   of other passages up to `devPassages` rows (0: the whole collection), in collection order;
 *   or, when `devCollection` lists a released dev collection's passage ids, those passages
 *   (ids not in the collection dropped, counted) plus the dev gold, in collection order.
 */
import { mulberry32 } from "../lib/prng.ts";

export interface ExampleInputs {
  /** qids of the tokenized training queries, in row order. */
  readonly trainQids: readonly string[];
  readonly devQids: readonly string[];
  /** Gold passage ids per qid, one map per split (qids repeat across splits, e.g. TopiOCQA's). */
  readonly trainGold: ReadonlyMap<string, readonly string[]>;
  readonly devGold: ReadonlyMap<string, readonly string[]>;
  /** Passage id -> row in the tokenized collection. */
  readonly rowOf: ReadonlyMap<string, number>;
  readonly passages: number;
  /** qid -> mined passage ids in rank order (absent: no negatives file). */
  readonly negatives?: ReadonlyMap<string, readonly string[]>;
  readonly k: number;
  readonly devPassages: number;
  /** A released dev collection's passage ids; replaces the sample when given. */
  readonly devCollection?: readonly string[];
  readonly seed: number;
}

export interface Examples {
  /** Rows of the training query matrix that become examples. */
  readonly trainRows: number[];
  readonly pos: Int32Array;
  readonly gold: { data: Int32Array; cols: number };
  readonly neg: { data: Int32Array; cols: number } | null;
  readonly devRows: number[];
  /** Rows of the collection that form the dev collection (ascending). */
  readonly devPassageRows: number[];
  /** Gold of each dev query as rows of the dev collection, -1 padded. */
  readonly devGold: { data: Int32Array; cols: number };
  readonly counts: Record<string, number>;
}

/** Row lists as one -1 padded matrix, as wide as the longest list (at least minCols). */
export function padded(lists: readonly (readonly number[])[], minCols = 1): { data: Int32Array; cols: number } {
  const cols = Math.max(minCols, ...lists.map((l) => l.length));
  const data = new Int32Array(lists.length * cols).fill(-1);
  lists.forEach((l, i) => data.set(l, i * cols));
  return { data, cols };
}

/** The rows of a training turn's gold passages, each once, in the gold list's order (missing ones counted). */
function goldRows(x: ExampleInputs, qid: string, counts: Record<string, number>): number[] {
  const rows: number[] = [];
  for (const pid of x.trainGold.get(qid) ?? []) {
    const r = x.rowOf.get(pid);
    if (r === undefined) counts.gold_missing!++;
    else if (!rows.includes(r)) rows.push(r);
  }
  return rows;
}

/** The rows of a turn's first k mined passages in the collection, in rank order (missing ids and lists counted). */
function minedRows(x: ExampleInputs, negatives: ReadonlyMap<string, readonly string[]>, qid: string, counts: Record<string, number>): number[] {
  const mined = negatives.get(qid);
  if (mined === undefined) counts.negatives_without_list!++;
  const out: number[] = [];
  for (const pid of mined ?? []) {
    if (out.length >= x.k) break;
    const r = x.rowOf.get(pid);
    if (r === undefined) counts.negatives_missing_ids!++;
    else out.push(r);
  }
  return out;
}

/** The dev queries with a gold passage in the collection: their rows, their gold rows, and the set of those passages. */
function devQueries(x: ExampleInputs): { devRows: number[]; devGoldRows: number[][]; inDev: Set<number> } {
  const devRows: number[] = [];
  const devGoldRows: number[][] = [];
  const inDev = new Set<number>();
  x.devQids.forEach((qid, row) => {
    const rows = (x.devGold.get(qid) ?? []).map((p) => x.rowOf.get(p)).filter((r): r is number => r !== undefined);
    if (rows.length === 0) return;
    devRows.push(row);
    devGoldRows.push(rows);
    for (const r of rows) inDev.add(r);
  });
  return { devRows, devGoldRows, inDev };
}

/** Adds the rest of the dev collection to its gold rows: the released collection's passages, or every passage, or a seeded sample up to devPassages. */
function addDevPassages(x: ExampleInputs, inDev: Set<number>, counts: Record<string, number>): void {
  const target = x.devPassages === 0 ? x.passages : Math.min(x.passages, Math.max(x.devPassages, inDev.size));
  if (x.devCollection !== undefined) {
    counts.dev_collection_missing = 0;
    for (const pid of x.devCollection) {
      const r = x.rowOf.get(pid);
      if (r === undefined) counts.dev_collection_missing++;
      else inDev.add(r);
    }
  } else if (target === x.passages) for (let r = 0; r < x.passages; r++) inDev.add(r);
  else {
    // Partial Fisher-Yates over the non-gold rows: uniform, seeded, O(passages) memory only once.
    const rest = Int32Array.from({ length: x.passages }, (_, i) => i).filter((r) => !inDev.has(r));
    const rand = mulberry32(x.seed);
    const need = target - inDev.size;
    for (let i = 0; i < need; i++) {
      const j = i + Math.floor(rand() * (rest.length - i));
      const t = rest[i]!;
      rest[i] = rest[j]!;
      rest[j] = t;
      inDev.add(rest[i]!);
    }
  }
}

export function buildExamples(x: ExampleInputs): Examples {
  const counts: Record<string, number> = { train_turns: x.trainQids.length, train_no_gold: 0, gold_missing: 0, negatives_missing_ids: 0, negatives_without_list: 0 };
  const trainRows: number[] = [];
  const gold: number[][] = [];
  const neg: number[][] = [];
  x.trainQids.forEach((qid, row) => {
    const rows = goldRows(x, qid, counts);
    if (rows.length === 0) {
      counts.train_no_gold!++;
      return;
    }
    trainRows.push(row);
    gold.push(rows);
    if (x.negatives) neg.push(minedRows(x, x.negatives, qid, counts));
  });
  counts.examples = trainRows.length;
  // Dev collection: gold of dev turns + a seeded sample of the rest.
  const dev = devQueries(x);
  addDevPassages(x, dev.inDev, counts);
  const devPassageRows = [...dev.inDev].sort((a, b) => a - b);
  const devIndex = new Map(devPassageRows.map((r, i) => [r, i]));
  counts.dev_queries = dev.devRows.length;
  counts.dev_passages = devPassageRows.length;
  return {
    trainRows,
    pos: Int32Array.from(gold.map((rows) => rows[0]!)),
    gold: padded(gold),
    neg: x.negatives ? padded(neg) : null,
    devRows: dev.devRows,
    devPassageRows,
    devGold: padded(dev.devGoldRows.map((rows) => rows.map((r) => devIndex.get(r)!))),
    counts,
  };
}
