/**
 * Query-id normalisation between files that name the same turn differently. TREC-format qrels,
 * runs and type files for TopiOCQA name turn t of conversation c `c-t`; cspipe (and QReCC) write
 * `c_t`. Under the "conv-turn" mapping every qid that is exactly `<digits>-<digits>` becomes
 * `<digits>_<digits>`; nothing else changes (OR-QuAC's `C_..._q#k`, free-form ids). Two qids of one
 * file that collide after the mapping (`3-1` and `3_1`) are an InputError: the file is ambiguous.
 * Pure; the evaluate command applies it to every file it reads and reports the counts.
 */
import { InputError } from "../../pipeline/engine/errors.ts";

export type QidMapping = "conv-turn" | "none";
export const QID_MAPPINGS: readonly QidMapping[] = ["conv-turn", "none"];

const DASHED = /^(\d+)-(\d+)$/;

/** The qid under `mapping`. */
export function normalizeQid(qid: string, mapping: QidMapping): string {
  if (mapping === "none") return qid;
  const m = DASHED.exec(qid);
  return m === null ? qid : `${m[1]}_${m[2]}`;
}

/** Re-keys a qid-keyed map; returns the new map and how many qids changed. */
export function normalizeKeys<V>(map: ReadonlyMap<string, V>, mapping: QidMapping, file: string): { map: Map<string, V>; rewritten: number } {
  const out = new Map<string, V>();
  const from = new Map<string, string>();
  let rewritten = 0;
  for (const [qid, value] of map) {
    const q = normalizeQid(qid, mapping);
    if (q !== qid) rewritten++;
    const earlier = from.get(q);
    if (earlier !== undefined) {
      throw new InputError(`qids '${earlier}' and '${qid}' both become '${q}' under the ${mapping} qid mapping`, {
        file,
        field: "qid",
        fix: "keep one spelling of each turn in the file, or pass --qid-mapping none",
      });
    }
    from.set(q, qid);
    out.set(q, value);
  }
  return { map: out, rewritten };
}
