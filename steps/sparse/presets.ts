/**
 * BM25's default k1 and b per dataset: each registered dataset's own (its descriptor's `bm25`:
 * Pyserini's defaults, as the paper used them), and nq's as the DPR paper ran Lucene (its
 * footnote 9: k1 0.9, b 0.4). Kept out of similarity.ts so that the BM25 steps' sources do not
 * take in every dataset's parsers.
 */
import { perDataset } from "../data/datasets/registry.ts";
import type { Bm25Params } from "./similarity.ts";

export const BM25_PRESETS = { ...perDataset((d) => d.bm25), nq: { k1: 0.9, b: 0.4 } } as const satisfies Record<string, Bm25Params>;
