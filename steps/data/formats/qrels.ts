/**
 * JSON qrels as QReCC and OR-QuAC ship them: one object `{"<qid>": {"<pid>": 1}}`.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { QrelRow } from "../schemas.ts";
import type { RecordAt } from "./records.ts";
import { asObject } from "./records.ts";

/**
 * Parses a JSON qrels object `{qid: {pid: relevance}}` (QReCC, OR-QuAC). An empty pid
 * (QReCC's `{"": 1}`) marks a turn without gold. `split` is copied into the rows. Returns the judgements and, per qid, the gold ids
 * (empty for `{"": 1}`).
 */
export function parseJsonQrels(value: unknown, file: string, split = ""): { qrels: QrelRow[]; gold: Map<string, string[]> } {
  const at: RecordAt = { file, line: 1 };
  const o = asObject(value, at, "qrels file");
  const qrels: QrelRow[] = [];
  const gold = new Map<string, string[]>();
  for (const qid of Object.keys(o)) {
    const judged = o[qid];
    if (judged === null || typeof judged !== "object" || Array.isArray(judged)) {
      throw new InputError("expected an object {passage id: relevance}", { file, field: qid, fix: 'write {"<qid>": {"<pid>": 1}}, or {"": 1} for no gold' });
    }
    const ids: string[] = [];
    for (const [pid, rel] of Object.entries(judged as Record<string, unknown>)) {
      if (typeof rel !== "number" || !Number.isInteger(rel)) {
        throw new InputError(`relevance must be an integer, got ${JSON.stringify(rel)}`, { file, field: `${qid}.${pid}`, fix: "use 1 for relevant" });
      }
      if (pid === "") continue;
      qrels.push({ split, qid, pid, relevance: rel });
      if (rel > 0) ids.push(pid);
    }
    gold.set(qid, ids.sort());
  }
  return { qrels, gold };
}

