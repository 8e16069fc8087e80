/**
 * The retrievers whose passages the QA readers read, as records (issue 30): BM25 over an input
 * form, any DPR variant (../dense/variants.ts), any DCSR variant (../dcsr/variants.ts). A DPR or
 * DCSR record carries the seed it is trained with (a reader of seed s is given the one trained
 * with s, see table5.ts); BM25 has none, so its runs serve the readers of every seed.
 *
 * One registry, RETRIEVER_KINDS, says per kind: its runs over a dataset's splits (the dense and
 * DCSR graphs' own steps, memoised by structure, so the QA stage and the retrieval tables share
 * steps and keys), its id in step names and table rows (without the seed), its label in tables
 * and findings, and which seeds the study trains it with. Another retriever is another record; a
 * new kind of retriever is a new entry here, nothing else changes in the QA stage.
 */
import type { OutputRef } from "../../engine/step.ts";
import type { QueryFormName } from "../../../steps/encoding/format/query-forms.ts";
import { QUERY_FORMS } from "../../../steps/encoding/format/query-forms.ts";
import type { DenseContext } from "../dense/base.ts";
import { bm25Run, denseRun, setupOf } from "../dense/models.ts";
import { ibn, ihn, variantLabel as dprLabel, type DprVariant } from "../dense/variants.ts";
import { INPUT_FORM } from "../dense/setup.ts";
import { dcsrSearch } from "../dcsr/graph.ts";
import { dcsrSetupOf } from "../dcsr/parameters.ts";
import { variantLabel as dcsrLabel, type DcsrVariant } from "../dcsr/variants.ts";
import type { QaDataset } from "./setup.ts";

type Run = OutputRef<"parquet:run">;

export type QaRetriever =
  | { readonly kind: "bm25"; readonly form: QueryFormName }
  | { readonly kind: "dpr"; readonly variant: DprVariant }
  | { readonly kind: "dcsr"; readonly variant: DcsrVariant };

type Of<K extends QaRetriever["kind"]> = Extract<QaRetriever, { kind: K }>;

interface RetrieverKind<R extends QaRetriever> {
  /** Its top-k run over one split of the dataset (the form it was trained on; BM25: its form). */
  run(ctx: DenseContext, dataset: QaDataset, r: R, split: string): Run;
  /** Its name in step names and table rows, the same for every seed. */
  id(ctx: DenseContext, dataset: QaDataset, r: R): string;
  label(ctx: DenseContext, dataset: QaDataset, r: R): string;
  /** The seed it is trained with and the seeds the study trains it with; null: it has none. */
  seed(ctx: DenseContext, r: R): { readonly seed: number; readonly trained: readonly number[] } | null;
  /** The dataset it was trained on (null: any, BM25 indexes the dataset it searches). */
  dataset(r: R): string | null;
}

/** A DPR variant's name: its variant label, the last IHN iteration of the dataset's schedule being "ihn" (DPR (IHN) of the paper). */
function dprName(ctx: DenseContext, dataset: QaDataset, v: DprVariant): string {
  const label = dprLabel(v);
  return label === `ihn-${setupOf(ctx).schedule[dataset].iterations}` ? "ihn" : label;
}

const PAPER_NAMES: Readonly<Record<string, string>> = { ibn: "IBN", ihn: "IHN" };

export const RETRIEVER_KINDS: { readonly [K in QaRetriever["kind"]]: RetrieverKind<Of<K>> } = {
  bm25: {
    run: (ctx, dataset, r, split) => bm25Run(ctx, dataset, r.form, split),
    id: (_ctx, dataset, r) => (r.form === INPUT_FORM[dataset] ? "bm25" : `bm25.${r.form}`),
    label: (_ctx, _dataset, r) => `BM25(${QUERY_FORMS[r.form].paper})`,
    seed: () => null,
    dataset: () => null,
  },
  dpr: {
    run: (ctx, dataset, r, split) => denseRun(ctx, dataset, r.variant, r.variant.input, split),
    id: (ctx, dataset, r) => `dpr-${dprName(ctx, dataset, r.variant)}`,
    label: (ctx, dataset, r) => {
      const name = dprName(ctx, dataset, r.variant);
      return `DPR (${PAPER_NAMES[name] ?? name})`;
    },
    seed: (ctx, r) => ({ seed: r.variant.seed, trained: setupOf(ctx).seeds }),
    dataset: (r) => r.variant.dataset,
  },
  dcsr: {
    run: (ctx, _dataset, r, split) => dcsrSearch(ctx, r.variant, r.variant.input, split).run,
    id: (_ctx, _dataset, r) => dcsrLabel(r.variant),
    label: (_ctx, _dataset, r) => (dcsrLabel(r.variant) === "dcsr" ? "DCSR" : `DCSR (${dcsrLabel(r.variant)})`),
    seed: (ctx, r) => ({ seed: r.variant.seed, trained: dcsrSetupOf(ctx).seeds }),
    dataset: (r) => r.variant.dataset,
  },
};

const kindOf = <R extends QaRetriever>(r: R): RetrieverKind<R> => RETRIEVER_KINDS[r.kind] as unknown as RetrieverKind<R>;

/**
 * The seed a retriever is trained with (null: none), after checking that it is one the study
 * trains it with (so the readers read the retrieval tables' own models) and that it was trained
 * on the dataset whose questions it answers.
 */
export function retrieverSeed(ctx: DenseContext, dataset: QaDataset, r: QaRetriever): number | null {
  const k = kindOf(r);
  const trainedOn = k.dataset(r);
  if (trainedOn !== null && trainedOn !== dataset) throw new Error(`a ${k.id(ctx, dataset, r)} retriever trained on ${trainedOn} cannot retrieve for ${dataset}'s readers`);
  const s = k.seed(ctx, r);
  if (s !== null && !s.trained.includes(s.seed)) throw new Error(`QA seed ${s.seed}: the ${ctx.data} ${ctx.profile} retrievers train seeds ${s.trained.join(", ")} only (QA_SETUPS' seeds must be among them)`);
  return s === null ? null : s.seed;
}

/** A retriever's run over one split of the dataset. */
export function retrieverRun(ctx: DenseContext, dataset: QaDataset, r: QaRetriever, split: string): Run {
  retrieverSeed(ctx, dataset, r);
  return kindOf(r).run(ctx, dataset, r, split);
}

/** A retriever's id in step names and table rows (bm25, dpr-ibn, dpr-ihn, dcsr, ...), without its seed. */
export const retrieverId = (ctx: DenseContext, dataset: QaDataset, r: QaRetriever): string => kindOf(r).id(ctx, dataset, r);

/** A retriever's label in tables and findings: BM25(X_t), DPR (IBN), DPR (IHN), DCSR, ... */
export const retrieverLabel = (ctx: DenseContext, dataset: QaDataset, r: QaRetriever): string => kindOf(r).label(ctx, dataset, r);

/**
 * Table 5's retrievers for the readers of `seed` on a dataset: BM25(X_t), DPR (IBN) and DPR (IHN,
 * the last iteration of the dataset's schedule), the DPR ones trained with `seed`.
 */
export function paperRetrievers(ctx: DenseContext, dataset: QaDataset, seed: number) {
  return {
    bm25: { kind: "bm25", form: INPUT_FORM[dataset] },
    ibn: { kind: "dpr", variant: ibn(dataset, seed) },
    ihn: { kind: "dpr", variant: ihn(dataset, setupOf(ctx).schedule[dataset].iterations, seed) },
  } as const satisfies Readonly<Record<string, QaRetriever>>;
}
