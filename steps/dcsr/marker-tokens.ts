/**
 * DCSR's passage input (pure): one marker token before each of the first `maxMarkers`
 * sentences, then the passage formatted exactly like a DPR passage (passage-tokens.ts):
 *   [CLS] title [SEP] <m> s_1 <m> s_2 ... [SEP]     (titles as a text pair, longest-first truncation)
 *   [CLS] <m> s_1 <m> s_2 ... [SEP]                 (no title, right truncation)
 * The marker is one vocabulary token (DCSR maps `<sent>` to BERT's `[unused0]`, id 1, so the
 * embedding table does not grow). Sentences after the `maxMarkers`-th follow without a marker
 * (DCSR reads only the first 10 markers of a passage), so they have no vector of their own.
 * A marker cut off by truncation is lost with its sentence. The positions returned are the
 * token positions of the markers that survive, in sentence order: sentence i has a vector
 * exactly when i < markers.length.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { assemblePassage, longestFirstLengths, type SegmentIdScheme } from "../encoding/format/passage-tokens.ts";
import type { EncodedSequence } from "../encoding/format/rows.ts";
import type { SpecialIds } from "../encoding/tokenize/special-tokens.ts";

export const DEFAULT_MAX_MARKERS = 10;

export interface MarkedPassage extends EncodedSequence {
  /** Token positions of the surviving markers, in sentence order. */
  readonly markers: number[];
  /** Sentences that got a marker before truncation: min(sentences, maxMarkers). */
  readonly placed: number;
}

export interface MarkerOptions {
  readonly marker: number;
  readonly maxLength: number;
  readonly maxMarkers?: number;
  readonly segmentIds?: SegmentIdScheme;
}

/** Assembles one passage from its title's ids (null: no title) and its sentences' ids. */
export function assembleMarkedPassage(titleIds: readonly number[] | null, sentenceIds: readonly (readonly number[])[], special: SpecialIds, options: MarkerOptions): MarkedPassage {
  const maxMarkers = options.maxMarkers ?? DEFAULT_MAX_MARKERS;
  if (!Number.isInteger(maxMarkers) || maxMarkers < 1) throw new InputError(`maxMarkers must be a positive integer, got ${maxMarkers}`, { field: "maxMarkers" });
  const text: number[] = [];
  const offsets: number[] = [];
  sentenceIds.forEach((ids, i) => {
    if (i < maxMarkers) {
      offsets.push(text.length);
      text.push(options.marker);
    }
    text.push(...ids);
  });
  const seq = assemblePassage(titleIds, text, special, options.maxLength, options.segmentIds ?? "zeros");
  // Where the text segment starts and how much of it survives, by the same rule assemblePassage applies.
  let start: number;
  let kept: number;
  if (titleIds === null) {
    start = 1;
    kept = Math.min(text.length, options.maxLength - 2);
  } else {
    const [na, nb] = longestFirstLengths(titleIds.length, text.length, options.maxLength - 3);
    start = na + 2;
    kept = nb;
  }
  const markers = offsets.filter((o) => o < kept).map((o) => start + o);
  for (const p of markers) if (seq.ids[p] !== options.marker) throw new Error(`internal: marker expected at position ${p}`);
  return { ...seq, markers, placed: offsets.length };
}
