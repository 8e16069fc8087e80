/**
 * Predictions and references of end-to-end QA, in the formats systems and datasets ship:
 *
 * Predictions (one file, one kind, detected per record):
 * - SCAI-QReCC-21 run: a JSON array (or JSONL) of `{"Conversation_no", "Turn_no", "Model_answer", ...}`;
 * - TopiOCQA's reader results: `{"conv_id", "turn_id", "predictions": ["answer", ...]}` (FiD's
 *   layout; the first prediction is the answer);
 * - plain JSONL `{"qid", "prediction"}` (cspipe's own predictions.jsonl).
 * References:
 * - SCAI-QReCC-21 ground truth (the SCAI turn files carry it): `{"Conversation_no", "Turn_no",
 *   "Truth_answer", ...}`;
 * - TopiOCQA's raw turn files (JSON array, or the JSONL of the Hugging Face copy):
 *   `{"Conversation_no", "Turn_no", "Answer", "Additional_answers"?: [{"Answer", ...}], ...}`;
 * - plain JSONL `{"qid", "answers": [...]}`.
 * `Conversation_no`/`Turn_no` become cspipe's qid `<conv>_<turn>`, as the turn tables write it.
 * A record of another kind than the file's first, a duplicate qid, or a missing field is an
 * InputError naming the file, the line and the field.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { asObject, loadRecords, reqArray, reqId, reqInt, reqString, type RecordAt } from "../data/formats/records.ts";
import type { QaReference } from "./evaluate.ts";
import type { QaScoringName } from "./scoring.ts";

export type PredictionFormat = "scai" | "topiocqa" | "jsonl";
export type ReferenceFormat = "scai" | "topiocqa" | "jsonl";

/** The scoring rule each reference format implies (the evaluate-qa command's default). */
export const SCORING_OF_REFERENCES: Readonly<Record<ReferenceFormat, QaScoringName>> = { scai: "qrecc", topiocqa: "topiocqa", jsonl: "max" };

const turnQid = (o: Record<string, unknown>, conv: string, turn: string, at: RecordAt): string => `${reqId(o, conv, at)}_${reqInt(o, turn, at)}`;

interface Kind<F, T> {
  readonly format: F;
  readonly detect: (o: Record<string, unknown>) => boolean;
  readonly parse: (o: Record<string, unknown>, at: RecordAt) => T;
}

const PREDICTION_KINDS: readonly Kind<PredictionFormat, { qid: string; prediction: string }>[] = [
  { format: "scai", detect: (o) => "Model_answer" in o, parse: (o, at) => ({ qid: turnQid(o, "Conversation_no", "Turn_no", at), prediction: reqString(o, "Model_answer", at) }) },
  {
    format: "topiocqa",
    detect: (o) => "conv_id" in o && "predictions" in o,
    parse: (o, at) => {
      const preds = reqArray(o, "predictions", at);
      const first = preds[0];
      if (typeof first !== "string") {
        throw new InputError("the first entry of 'predictions' must be the answer string (FiD's layout)", { file: at.file, line: at.line, field: "predictions", fix: "write DPR-reader results as plain JSONL {qid, prediction} with the top-k you want scored" });
      }
      return { qid: turnQid(o, "conv_id", "turn_id", at), prediction: first };
    },
  },
  { format: "jsonl", detect: (o) => "qid" in o && "prediction" in o, parse: (o, at) => ({ qid: reqId(o, "qid", at), prediction: reqString(o, "prediction", at) }) },
];

const REFERENCE_KINDS: readonly Kind<ReferenceFormat, QaReference>[] = [
  { format: "scai", detect: (o) => "Truth_answer" in o, parse: (o, at) => ({ qid: turnQid(o, "Conversation_no", "Turn_no", at), answers: [reqString(o, "Truth_answer", at)] }) },
  {
    format: "topiocqa",
    detect: (o) => "Answer" in o && "Conversation_no" in o,
    parse: (o, at) => {
      const extra = o["Additional_answers"] === undefined || o["Additional_answers"] === null ? [] : reqArray(o, "Additional_answers", at);
      const more = extra.map((x, i) => reqString(asObject(x, at, `Additional_answers[${i}]`), "Answer", { file: at.file, line: at.line }));
      return { qid: turnQid(o, "Conversation_no", "Turn_no", at), answers: [reqString(o, "Answer", at), ...more] };
    },
  },
  {
    format: "jsonl",
    detect: (o) => "qid" in o && "answers" in o,
    parse: (o, at) => {
      const answers = reqArray(o, "answers", at);
      answers.forEach((a, i) => {
        if (typeof a !== "string") throw new InputError(`answers[${i}] is not a string`, { file: at.file, line: at.line, field: `answers[${i}]`, fix: "write answers as an array of strings" });
      });
      return { qid: reqId(o, "qid", at), answers: answers as string[] };
    },
  },
];

function parseAll<F extends string, T extends { qid: string }>(file: string, kinds: readonly Kind<F, T>[], what: string, expected: string): { format: F; records: T[] } {
  const recs = loadRecords(file);
  if (recs.length === 0) throw new InputError(`no ${what} in the file`, { file, fix: `write one ${expected} per turn` });
  let format: F | undefined;
  const out: T[] = [];
  const seen = new Map<string, number>();
  for (const rec of recs) {
    const at: RecordAt = { file: rec.file, line: rec.line };
    const o = asObject(rec.value, at, what);
    const kind = kinds.find((k) => k.detect(o));
    if (kind === undefined) throw new InputError(`not a known ${what} record (keys: ${Object.keys(o).sort().join(", ")})`, { file, line: rec.line, fix: `write ${expected}` });
    if (format !== undefined && kind.format !== format) {
      throw new InputError(`a ${kind.format} record in a ${format} file`, { file, line: rec.line, fix: "keep one format per file" });
    }
    format = kind.format;
    const parsed = kind.parse(o, at);
    const prev = seen.get(parsed.qid);
    if (prev !== undefined) throw new InputError(`duplicate question ${parsed.qid} (first at line ${prev})`, { file, line: rec.line, fix: "keep one record per turn" });
    seen.set(parsed.qid, rec.line);
    out.push(parsed);
  }
  return { format: format!, records: out };
}

export function readPredictions(file: string): { format: PredictionFormat; predictions: Map<string, string> } {
  const { format, records } = parseAll(file, PREDICTION_KINDS, "prediction", 'SCAI {"Conversation_no", "Turn_no", "Model_answer"}, TopiOCQA {"conv_id", "turn_id", "predictions"} or JSONL {"qid", "prediction"}');
  return { format, predictions: new Map(records.map((r) => [r.qid, r.prediction])) };
}

export function readReferences(file: string): { format: ReferenceFormat; references: QaReference[] } {
  const { format, records } = parseAll(file, REFERENCE_KINDS, "reference", 'SCAI {"Conversation_no", "Turn_no", "Truth_answer"}, TopiOCQA raw turns {"Conversation_no", "Turn_no", "Answer", "Additional_answers"} or JSONL {"qid", "answers"}');
  return { format, references: records };
}
