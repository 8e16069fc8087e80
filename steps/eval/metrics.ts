/**
 * Retrieval metrics with trec_eval semantics, as a registry of metric families.
 *
 * A metric name is `family` or `family@k` (k a positive integer cutoff):
 *   mrr[@k]      reciprocal rank of the first relevant hit; 0 if none (in the top k)   (trec_eval recip_rank)
 *   recall@k     relevant hits in the top k / number of relevant passages              (trec_eval recall.k)
 *   success@k    1 if any relevant hit is in the top k, else 0                         (trec_eval success.k; TopiOCQA "hits@k")
 *   map[@k]      average precision over relevant passages (top k only)                 (trec_eval map / map_cut.k)
 * Aliases: r@k and recall_k -> recall@k, hits@k -> success@k, recip_rank -> mrr, map_cut@k -> map@k.
 * Names are case-insensitive; the canonical (lower-case, unaliased) name keys every output.
 * An unknown or malformed name is an error, never a silent 0.
 */
import { InputError } from "../../pipeline/engine/errors.ts";

export interface MetricInput {
  /** 1 where the hit at that rank (0-based, evaluation order) is relevant, else 0. */
  readonly relevant: Uint8Array;
  /** Number of relevant passages in the qrels for this query (may be 0). */
  readonly nGold: number;
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
};

const aliases: Record<string, string> = {
  r: "recall",
  recall_k: "recall",
  hits: "success",
  recip_rank: "mrr",
  map_cut: "map",
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

/** Parse "recall@10" into a metric. Throws InputError (field `metrics`) on anything unknown or malformed. */
export function parseMetric(raw: string): ParsedMetric {
  const text = raw.trim().toLowerCase();
  const m = NAME.exec(text);
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
