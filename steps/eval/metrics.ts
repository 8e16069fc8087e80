/**
 * Retrieval metrics with trec_eval semantics, as a registry of metric families.
 *
 * A metric name is `family` or `family@k` (k a positive integer cutoff):
 *   mrr[@k]      reciprocal rank of the first relevant hit; 0 if none (in the top k)   (trec_eval recip_rank)
 *   recall@k     relevant hits in the top k / number of relevant passages              (trec_eval recall.k)
 *   success@k    1 if any relevant hit is in the top k, else 0                         (trec_eval success.k; TopiOCQA "hits@k")
 *   map[@k]      average precision over relevant passages (top k only)                 (trec_eval map / map_cut.k)
 *   p@k          relevant hits in the top k / k (missing ranks count as non-relevant)  (trec_eval P.k)
 *   ndcg[@k]     DCG / ideal DCG, gain = relevance level, discount log2(rank + 1)      (trec_eval ndcg / ndcg_cut.k)
 * Aliases: r@k and recall_k -> recall@k, hits@k -> success@k, recip_rank -> mrr, map_cut@k -> map@k,
 * precision@k -> p@k, ndcg_cut@k -> ndcg@k. trec_eval's spellings are accepted too: `P.10`, `P_10`,
 * `ndcg_cut.10`, `recall_100`, `map_cut.5`, `success.1` (family, then `.k` or `_k`).
 * Names are case-insensitive; the canonical (lower-case, unaliased) name keys every output.
 * An unknown or malformed name is an error, never a silent 0.
 *
 * The rules below are trec_eval's (9.x/10.0 sources, default `-l 1`, default gains), read measure by
 * measure: relevant = relevance >= 1; recall and map divide by the number of relevant passages in the
 * qrels (retrieved or not); P@k always divides by k; nDCG uses the qrels relevance value itself as the
 * gain (documents judged 0, negative or unjudged gain 0), discounts rank r by log2(r + 1), and its ideal
 * ranking sorts every judged passage with relevance >= 1 by relevance, cut at the same k (`ndcg` without
 * k: no cut on either side). A query whose ideal DCG is 0 scores 0.
 */
import { InputError } from "../../pipeline/engine/errors.ts";

export interface MetricInput {
  /** 1 where the hit at that rank (0-based, evaluation order) is relevant, else 0. */
  readonly relevant: Uint8Array;
  /** Number of relevant passages in the qrels for this query (may be 0). */
  readonly nGold: number;
  /** Gain of the hit at each rank: its relevance level when >= 1, else 0 (nDCG). Default: `relevant`. */
  readonly gains?: ArrayLike<number>;
  /** Relevance levels (>= 1) of every relevant passage in the qrels, sorted descending (ideal DCG). Default: nGold ones. */
  readonly idealGains?: readonly number[];
}

interface MetricFamily {
  /** Whether the family requires a cutoff ("recall" without @k means nothing useful here). */
  readonly cutoff: "required" | "optional";
  readonly describe: string;
  readonly compute: (input: MetricInput, cutoff: number | undefined) => number;
}

function depth(input: MetricInput, cutoff: number | undefined): number {
  return cutoff === undefined ? input.relevant.length : Math.min(cutoff, input.relevant.length);
}

/** DCG of `gain(i)` over ranks 0..depth-1 with trec_eval's discount log2(i + 2); gains <= 0 add nothing. */
function dcg(depthOf: number, gain: (i: number) => number): number {
  let sum = 0;
  for (let i = 0; i < depthOf; i++) {
    const g = gain(i);
    if (g > 0) sum += g / Math.log2(i + 2);
  }
  return sum;
}

const families: Record<string, MetricFamily> = {
  mrr: {
    cutoff: "optional",
    describe: "reciprocal rank of the first relevant hit (0 if none)",
    compute: (input, k) => {
      const d = depth(input, k);
      for (let i = 0; i < d; i++) if (input.relevant[i] === 1) return 1 / (i + 1);
      return 0;
    },
  },
  recall: {
    cutoff: "required",
    describe: "fraction of the relevant passages found in the top k",
    compute: (input, k) => {
      if (input.nGold === 0) return 0;
      const d = depth(input, k);
      let found = 0;
      for (let i = 0; i < d; i++) found += input.relevant[i] ?? 0;
      return found / input.nGold;
    },
  },
  success: {
    cutoff: "required",
    describe: "1 if any relevant passage is in the top k",
    compute: (input, k) => {
      const d = depth(input, k);
      for (let i = 0; i < d; i++) if (input.relevant[i] === 1) return 1;
      return 0;
    },
  },
  map: {
    cutoff: "optional",
    describe: "average precision (divided by the number of relevant passages)",
    compute: (input, k) => {
      if (input.nGold === 0) return 0;
      const d = depth(input, k);
      let found = 0;
      let sum = 0;
      for (let i = 0; i < d; i++) {
        if (input.relevant[i] === 1) {
          found++;
          sum += found / (i + 1);
        }
      }
      return sum / input.nGold;
    },
  },
  p: {
    cutoff: "required",
    describe: "relevant passages in the top k divided by k",
    compute: (input, k) => {
      const d = depth(input, k);
      let found = 0;
      for (let i = 0; i < d; i++) found += input.relevant[i] ?? 0;
      return found / k!;
    },
  },
  ndcg: {
    cutoff: "optional",
    describe: "normalised discounted cumulative gain (gain = relevance level)",
    compute: (input, k) => {
      const gains = input.gains ?? input.relevant;
      const ideal = input.idealGains ?? new Array<number>(input.nGold).fill(1);
      const idealDepth = k === undefined ? ideal.length : Math.min(k, ideal.length);
      const idcg = dcg(idealDepth, (i) => ideal[i]!);
      if (idcg <= 0) return 0;
      return dcg(depth(input, k), (i) => gains[i]!) / idcg;
    },
  },
};

const aliases: Record<string, string> = {
  r: "recall",
  recall_k: "recall",
  hits: "success",
  recip_rank: "mrr",
  map_cut: "map",
  precision: "p",
  ndcg_cut: "ndcg",
};

export interface ParsedMetric {
  /** Canonical name, e.g. "recall@10". */
  readonly name: string;
  readonly family: string;
  readonly cutoff: number | undefined;
  readonly compute: (input: MetricInput) => number;
}

/** Known metric families (for help texts and error messages). */
export function metricFamilies(): { family: string; cutoff: "required" | "optional"; describe: string }[] {
  return Object.keys(families)
    .sort()
    .map((family) => {
      const f = families[family]!;
      return { family, cutoff: f.cutoff, describe: f.describe };
    });
}

const NAME = /^([a-z_]+)(?:@(\d+))?$/;
/** trec_eval's spellings: `P.10`, `ndcg_cut.10`, `P_10`, `recall_100`. */
const TREC_EVAL_NAME = /^([a-z_]+?)[._](\d+)$/;

/** Parse "recall@10" into a metric. Throws InputError (field `metrics`) on anything unknown or malformed. */
export function parseMetric(raw: string): ParsedMetric {
  const text = raw.trim().toLowerCase();
  const m = NAME.exec(text) ?? TREC_EVAL_NAME.exec(text);
  const known = Object.keys(families).sort().join(", ");
  if (m === null) {
    throw new InputError(`cannot parse metric name '${raw}'`, {
      field: "metrics",
      fix: `write a family optionally followed by @k, e.g. 'mrr', 'recall@10' (families: ${known})`,
    });
  }
  const given = m[1]!;
  const familyName = aliases[given] ?? given;
  const family = families[familyName];
  if (family === undefined) {
    throw new InputError(`unknown metric '${raw}'`, { field: "metrics", fix: `use one of: ${known}` });
  }
  let cutoff: number | undefined;
  if (m[2] !== undefined) {
    cutoff = Number(m[2]);
    if (!Number.isSafeInteger(cutoff) || cutoff < 1) {
      throw new InputError(`metric '${raw}' has cutoff ${m[2]}`, { field: "metrics", fix: "use a cutoff k >= 1" });
    }
  } else if (family.cutoff === "required") {
    throw new InputError(`metric '${raw}' needs a cutoff`, { field: "metrics", fix: `write e.g. '${familyName}@10'` });
  }
  const name = cutoff === undefined ? familyName : `${familyName}@${cutoff}`;
  return { name, family: familyName, cutoff, compute: (input) => family.compute(input, cutoff) };
}

/** Parse a list of metric names; duplicates (after canonicalisation) are an error. */
export function parseMetrics(names: readonly string[]): ParsedMetric[] {
  if (names.length === 0) throw new InputError("no metrics requested", { field: "metrics", fix: "ask for at least one metric, e.g. 'mrr'" });
  const out: ParsedMetric[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    const metric = parseMetric(raw);
    if (seen.has(metric.name)) {
      throw new InputError(`metric '${raw}' is requested twice (as '${metric.name}')`, { field: "metrics", fix: "list each metric once" });
    }
    seen.add(metric.name);
    out.push(metric);
  }
  return out;
}
