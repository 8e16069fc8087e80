/**
 * Token-level query inputs, as the authors build them (cs-shortcut data processors):
 *   [CLS] q_1 [SEP] a_1 [SEP] q_2 [SEP] ... [SEP] q_t [SEP]
 * with "retain first question": q_1 [SEP] is pinned right after [CLS] and the rest is truncated
 * from the LEFT at token level (keep its last tokens) so that everything fits `maxLength` (128).
 *
 * Exact rule for the `history` layout (B = maxLength - 2, segments s_1..s_n, L = tokens of s_n):
 *   pinned = tokens(s_1) [SEP] when retainFirst and n >= 2, else nothing;
 *   rest   = the other segments' tokens joined by [SEP] (ends with L).
 *   1. |pinned| + |rest| <= B: no truncation.
 *   2. pinned empty: keep the last B tokens of rest.
 *   3. |pinned| + |L| <= B: keep the last B - |pinned| tokens of rest (the authors' rule; the cut
 *      can start inside a word or right after a [SEP], exactly as theirs).
 *   4. otherwise q_1 and the last segment do not fit together. The authors' code would then emit
 *      more than maxLength tokens (or drop q_t); we never drop the last segment: q_1 is cut from
 *      the right to k = B - |L| - 1 tokens (pinned = q_1[:k] [SEP], rest = L) when k >= 1, else
 *      q_1 is dropped and only the last min(B, |L|) tokens of L remain (left truncation again).
 *   At turn 1 (n = 1) the single segment q_1 = q_t is "rest": left-truncated like the authors'.
 * `single` layout (q_t, a_prev, rewrite, q_first): [CLS] s[:B] [SEP], right-truncated (the authors'
 * rewrite path means this; their slice `tokens[:gap]` is a bug we do not reproduce).
 * Token type ids are all 0. No padding here (see token-matrix.ts).
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { TokenEncoder } from "../tokenize/encoder.ts";
import type { SpecialIds } from "../tokenize/special-tokens.ts";
import { QUERY_FORMS, type QueryFormName } from "./query-forms.ts";
import type { EncodedSequence, TurnRow } from "./rows.ts";

export interface QueryEncodingOptions {
  /** Total length including [CLS] and the final [SEP] (paper: 128). */
  readonly maxLength?: number;
  /** Pin q_1 after [CLS] in history layouts (paper: true). */
  readonly retainFirst?: boolean;
}

export const DEFAULT_MAX_QUERY_LENGTH = 128;

const tail = (xs: readonly number[], n: number): number[] => xs.slice(Math.max(0, xs.length - Math.max(0, n)));

function checkMax(maxLength: number, min: number): void {
  if (!Number.isInteger(maxLength) || maxLength < min) {
    throw new InputError(`maxLength must be an integer >= ${min}, got ${maxLength}`, { field: "maxLength", fix: "use the paper's 128 for queries and 384 for passages" });
  }
}

/** [CLS] ids[:B] [SEP] */
export function assembleSingle(ids: readonly number[], special: SpecialIds, maxLength: number): EncodedSequence {
  checkMax(maxLength, 2);
  const budget = maxLength - 2;
  const kept = ids.slice(0, budget);
  const out = [special.cls, ...kept, special.sep];
  return { ids: out, typeIds: out.map(() => 0), truncated: kept.length < ids.length };
}

/** The history rule above, on already-tokenised segments. */
export function assembleHistory(segments: readonly (readonly number[])[], special: SpecialIds, maxLength: number, retainFirst: boolean): EncodedSequence {
  checkMax(maxLength, 2);
  const B = maxLength - 2;
  const n = segments.length;
  const pinFirst = retainFirst && n >= 2;
  const pinnedQ = pinFirst ? [...segments[0]!] : [];
  const restSegs = pinFirst ? segments.slice(1) : segments;
  const rest: number[] = [];
  restSegs.forEach((s, i) => {
    if (i > 0) rest.push(special.sep);
    rest.push(...s);
  });
  const last = n > 0 ? segments[n - 1]!.length : 0;
  const pinnedLen = pinFirst ? pinnedQ.length + 1 : 0;
  let pinned: number[] = pinFirst ? [...pinnedQ, special.sep] : [];
  let kept: number[];
  let truncated = true;
  if (pinnedLen + rest.length <= B) {
    kept = rest;
    truncated = false;
  } else if (!pinFirst) {
    kept = tail(rest, B);
  } else if (pinnedLen + last <= B) {
    kept = tail(rest, B - pinnedLen);
  } else {
    const k = B - last - 1;
    if (k >= 1) {
      pinned = [...pinnedQ.slice(0, k), special.sep];
      kept = tail(rest, last);
    } else {
      pinned = [];
      kept = tail(rest, Math.min(B, last));
    }
  }
  const out = [special.cls, ...pinned, ...kept, special.sep];
  return { ids: out, typeIds: out.map(() => 0), truncated };
}

/** Dense input of `turn` in query form `form`. */
export function encodeQuery(turn: TurnRow, form: QueryFormName, encoder: TokenEncoder, options: QueryEncodingOptions = {}): EncodedSequence {
  const def = QUERY_FORMS[form];
  const maxLength = options.maxLength ?? DEFAULT_MAX_QUERY_LENGTH;
  const segs = def.segments(turn).map((s) => encoder.encode(s));
  if (def.layout === "single") return assembleSingle(segs[0] ?? [], encoder.special, maxLength);
  return assembleHistory(segs, encoder.special, maxLength, options.retainFirst ?? true);
}
