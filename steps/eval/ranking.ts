/**
 * The order in which a run is scored.
 *
 * trec_eval (9.x, `form_res_rels.c`, comparator `comp_sim_docno`) ignores the rank
 * column and the line order: it sorts each query's results by score DESCENDING and
 * breaks ties by docno DESCENDING (`strcmp(ptr2->docno, ptr1->docno)`, i.e. byte
 * order of the C strings, reversed). It also stores scores as C `float` (32-bit), so
 * two scores that differ only beyond float32 precision are a tie. pytrec_eval feeds
 * the same C code, so it behaves the same way.
 *
 * cspipe itself *writes* runs in (-score, docid ascending) order, the project-wide
 * deterministic convention. Therefore the rank written in our files and trec_eval's
 * internal rank can differ, but only inside a group of tied scores. Evaluation here
 * uses trec_eval's rule by default ("trec_eval"), so every number can be checked
 * with trec_eval/pytrec_eval; "run-order" (trust the given order) and
 * "docid-ascending" (our writing order, full float64 scores) exist to measure how
 * much the tie rule matters.
 *
 * trec_eval 10.0 (2026) holds scores as C `double` instead (its CHANGELOG's 2023 "Convert float to
 * double"): "trec_eval-10" is that rule. The two differ only for scores that are equal as float32
 * but not as float64 (e.g. 6 and 6.000000001); pytrec_eval and most published numbers use 9.x.
 */
import type { Hit } from "./types.ts";

export type TieRule = "trec_eval" | "trec_eval-10" | "docid-ascending" | "run-order";

export const TIE_RULES: readonly TieRule[] = ["trec_eval", "trec_eval-10", "docid-ascending", "run-order"];

/**
 * Compare two strings by their UTF-8 bytes (what C `strcmp` does on UTF-8 input).
 * UTF-8 byte order equals Unicode code point order, which differs from JavaScript's
 * UTF-16 code unit order only for astral characters vs U+E000..U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    // Surrogates (0xD800-0xDFFF) encode code points above 0xFFFF: they sort after everything in the BMP.
    const sa = ca >= 0xd800 && ca <= 0xdfff;
    const sb = cb >= 0xd800 && cb <= 0xdfff;
    if (sa !== sb) return sa ? 1 : -1;
    return ca < cb ? -1 : 1;
  }
  return a.length - b.length;
}

/** Round to IEEE-754 single precision, as trec_eval stores `sim`. */
export const toFloat32: (x: number) => number = Math.fround;

const comparators: Record<Exclude<TieRule, "run-order">, (a: Hit, b: Hit) => number> = {
  trec_eval: (a, b) => {
    const sa = toFloat32(a.score);
    const sb = toFloat32(b.score);
    if (sa > sb) return -1;
    if (sa < sb) return 1;
    return compareUtf8(b.docid, a.docid);
  },
  "trec_eval-10": (a, b) => {
    if (a.score > b.score) return -1;
    if (a.score < b.score) return 1;
    return compareUtf8(b.docid, a.docid);
  },
  "docid-ascending": (a, b) => {
    if (a.score > b.score) return -1;
    if (a.score < b.score) return 1;
    return compareUtf8(a.docid, b.docid);
  },
};

/** Hits in the order they are scored under `rule`. Never mutates the input. */
export function orderForEvaluation(hits: readonly Hit[], rule: TieRule): Hit[] {
  if (rule === "run-order") return hits.slice();
  return hits.slice().sort(comparators[rule]);
}

/** The order cspipe writes runs in: score descending (float64), docid ascending. */
export function orderForWriting(hits: readonly Hit[]): Hit[] {
  return orderForEvaluation(hits, "docid-ascending");
}
