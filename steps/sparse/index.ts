/**
 * The BM25 inverted index, the public face of its modules: the layout and lookups
 * (./index-layout.ts), the builder (./index-builder.ts), id order (./ids.ts) and the postings
 * codec (./postings.ts).
 */
export { docId, findTerm, termAt } from "./index-layout.ts";
export type { Bm25Index, HeavyColumns, HeavySectionName, HeavySections } from "./index-layout.ts";
export { buildIndex, buildIndexSync, IndexBuilder } from "./index-builder.ts";
export type { BuildOptions } from "./index-builder.ts";
export { compareCodePoints, rankIds } from "./ids.ts";
export { forEachPostingOf, varintLength, writeVarint } from "./postings.ts";
