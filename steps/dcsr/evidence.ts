/**
 * Where each dataset keeps the evidence that locates a turn's answer sentence (thin
 * adapters over the native files; the locating itself is answer-sentences.ts):
 *  - QReCC: `Truth_answer` (the turns table's `answer`), by best token F1;
 *  - TopiOCQA: `Rationale` of the raw turn files (`topiocqa_{train,dev}.json` as the GitHub
 *    release and the mini generator write them, `topiocqa_{train,valid}.jsonl` on the HF hub),
 *    then the answer's token F1 where a rationale is missing or not in the passage;
 *  - OR-QuAC: `answer.answer_start` and `answer.text` of `preprocessed/<split>.txt`, then the
 *    answer text, then its token F1;
 *  - NQ-style questions (mini-nq): the sentences that contain the answer, as DCSR labels NQ.
 */
import { relative } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { filesNamed } from "../lib/find-files.ts";
import { asObject, loadRecords, optString, reqId, reqInt } from "../data/formats/records.ts";
import { topiocqaQid } from "../data/formats/topiocqa.ts";
import type { Evidence, LocateMethod } from "./answer-sentences.ts";

export type EvidenceDataset = "qrecc" | "topiocqa" | "orquac" | "nq";
export const EVIDENCE_DATASETS: readonly EvidenceDataset[] = ["qrecc", "topiocqa", "orquac", "nq"];

/** The locating methods of each dataset, in the order they are tried. */
export const LOCATE_METHODS: Readonly<Record<EvidenceDataset, readonly LocateMethod[]>> = {
  qrecc: ["answer-f1"],
  topiocqa: ["span", "answer-f1"],
  orquac: ["offset", "answer-text", "answer-f1"],
  nq: ["answer-text"],
};

/** What the raw files add to a turn's answer, by qid (within one split). */
export type RawEvidence = Map<string, Omit<Evidence, "answer"> & { answer?: string | null }>;

/** Reads a dataset's raw evidence for one split from a raw directory; null when the dataset needs none. */
type RawReader = ((root: string, split: string) => RawEvidence) | null;

function findFile(root: string, names: readonly string[]): string | undefined {
  const hits = filesNamed(root, names);
  if (hits.length > 1) throw new InputError(`${hits.length} evidence files: ${hits.map((h) => relative(root, h)).join(", ")}`, { file: root, fix: `keep one of ${names.join(", ")}` });
  return hits[0];
}

const TOPIOCQA_FILES: Readonly<Record<string, readonly string[]>> = { train: ["topiocqa_train.json", "topiocqa_train.jsonl"], dev: ["topiocqa_dev.json", "topiocqa_valid.jsonl"] };
const ORQUAC_FILES: Readonly<Record<string, readonly string[]>> = { train: ["train.txt", "orquac-train.txt"], dev: ["dev.txt", "orquac-dev.txt"], test: ["test.txt", "orquac-test.txt"] };

function required(root: string, split: string, table: Readonly<Record<string, readonly string[]>>, dataset: string): string {
  const names = table[split];
  if (names === undefined) throw new InputError(`${dataset} has no raw turn file for split '${split}'`, { field: "split", fix: `use one of ${Object.keys(table).join(", ")}` });
  const file = findFile(root, names);
  if (file === undefined) throw new InputError(`no ${names.join(" or ")} for ${dataset} ${split}`, { file: root, fix: `place the raw ${dataset} turn file there (datasets.lock: ${dataset === "topiocqa" ? "topiocqa-turns-<split>" : "orquac-<split>"})` });
  return file;
}

function readTopiocqa(root: string, split: string): RawEvidence {
  const out: RawEvidence = new Map();
  for (const rec of loadRecords(required(root, split, TOPIOCQA_FILES, "topiocqa"))) {
    const at = { file: rec.file, line: rec.line };
    const o = asObject(rec.value, at, "TopiOCQA turn");
    const qid = topiocqaQid(reqId(o, "Conversation_no", at), reqInt(o, "Turn_no", at));
    const span = optString(o, "Rationale", at);
    out.set(qid, span === null ? {} : { span });
  }
  return out;
}

function readOrquac(root: string, split: string): RawEvidence {
  const out: RawEvidence = new Map();
  for (const rec of loadRecords(required(root, split, ORQUAC_FILES, "orquac"))) {
    const at = { file: rec.file, line: rec.line };
    const o = asObject(rec.value, at, "OR-QuAC turn");
    const qid = reqId(o, "qid", at);
    const a = o["answer"];
    if (a === null || typeof a !== "object" || Array.isArray(a)) {
      out.set(qid, {});
      continue;
    }
    const answer = a as Record<string, unknown>;
    const start = answer["answer_start"];
    if (start !== undefined && (typeof start !== "number" || !Number.isInteger(start))) {
      throw new InputError("answer_start must be an integer", { ...at, field: "answer.answer_start", fix: "use the preprocessed OR-QuAC release" });
    }
    const text = typeof answer["text"] === "string" ? answer["text"] : null;
    out.set(qid, { ...(typeof start === "number" ? { offset: start } : {}), answer: text });
  }
  return out;
}

export const RAW_READERS: Readonly<Record<EvidenceDataset, RawReader>> = { qrecc: null, topiocqa: readTopiocqa, orquac: readOrquac, nq: null };

/** A turn's evidence: its answer from the turns table, completed (or replaced, where the raw file has one) by the raw file's. */
export function evidenceOf(answer: string | null, raw: RawEvidence | undefined, qid: string): Evidence {
  const r = raw?.get(qid);
  if (r === undefined) return { answer };
  const { answer: rawAnswer, ...rest } = r;
  return { answer: rawAnswer !== undefined ? rawAnswer : answer, ...rest };
}
