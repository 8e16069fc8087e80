/**
 * OR-QuAC (prdwb/orconvqa-release, CC BY-SA 4.0) native formats.
 *
 * Turns (`preprocessed/{train,dev,test}.txt`, JSONL):
 *   {"qid": "C_<dialog>_q#<k>", "question": "...", "rewrite": "...",
 *    "answer": {"text": "...", "answer_start": 12, "bid": 0},
 *    "history": [{"question": "...", "answer": {"text": "...", "answer_start": 0, "bid": 0}}],
 *    "evidences": [...], "retrieval_labels": [0, 1, ...], "followup": "y", "yesno": "x"}
 *   k is 0-based (turn = k + 1); the conversation id is the qid without "_q#<k>".
 *   "CANNOTANSWER" answers are kept as they are.
 *
 * Blocks (`all_blocks.txt`, ~11M; `dev_blocks.txt`, 6.9k; JSONL):
 *   {"id": "<article>@<block>", "title": "Article title", "text": "..."}
 *
 * Qrels (`qrels.txt`, one JSON object): {"<qid>": {"<block id>": 1}}. All turns of a
 * conversation share one gold block.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { HistoryItem, PassageRow, TurnRow } from "../schemas.ts";
import { compareTurns } from "../schemas.ts";
import type { LoadedRecord, RecordAt } from "./records.ts";
import { asObject, optString, reqArray, reqId, reqString } from "./records.ts";

export interface ParsedOrquacTurn {
  readonly row: TurnRow;
  readonly at: RecordAt;
}

const QID = /^(.*)_q#(\d+)$/;

/** Splits "C_<dialog>_q#<k>" into the conversation id and the 1-based turn. */
export function splitOrquacQid(qid: string): { conversation: string; turn: number } | undefined {
  const m = QID.exec(qid);
  return m ? { conversation: m[1]!, turn: Number(m[2]) + 1 } : undefined;
}

function answerText(v: unknown, at: RecordAt, field: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v;
  if (typeof v === "object" && !Array.isArray(v)) {
    const t = (v as Record<string, unknown>)["text"];
    if (typeof t === "string") return t;
  }
  throw new InputError("expected an answer string or {text, answer_start, bid}", { file: at.file, line: at.line, field, fix: "use the preprocessed OR-QuAC release" });
}

export function parseOrquacTurns(records: readonly LoadedRecord[], split: string): ParsedOrquacTurn[] {
  const out: ParsedOrquacTurn[] = [];
  const seen = new Map<string, number>();
  for (const rec of records) {
    const at: RecordAt = { file: rec.file, line: rec.line };
    const o = asObject(rec.value, at, "OR-QuAC turn");
    const qid = reqId(o, "qid", at);
    const parts = splitOrquacQid(qid);
    if (parts === undefined) throw new InputError(`qid '${qid}' does not look like C_<dialog>_q#<k>`, { file: at.file, line: at.line, field: "qid", fix: "use the preprocessed OR-QuAC release" });
    const prev = seen.get(qid);
    if (prev !== undefined) throw new InputError(`duplicate qid ${qid} (first at line ${prev})`, { file: at.file, line: at.line, field: "qid", fix: "remove the repeated record" });
    seen.set(qid, at.line);
    const history: HistoryItem[] = reqArray(o, "history", at).map((h, i) => {
      const item = asObject(h, at, `history[${i}]`);
      return { question: reqString(item, "question", at), answer: answerText(item["answer"], at, `history[${i}].answer`) ?? "" };
    });
    out.push({
      at,
      row: {
        dataset: "orquac",
        split,
        conversation_id: parts.conversation,
        turn: parts.turn,
        qid,
        question: reqString(o, "question", at),
        rewrite: optString(o, "rewrite", at),
        answer: answerText(o["answer"], at, "answer"),
        history,
        gold_passage_ids: [],
        source_domain: null,
        question_type: null,
        topic: null,
        topic_section: null,
      },
    });
  }
  return out.sort((a, b) => compareTurns(a.row, b.row));
}

/** One block line `{id, title, text}`. */
export function parseOrquacBlock(value: unknown, at: RecordAt): PassageRow {
  const o = asObject(value, at, "OR-QuAC block");
  return { id: reqId(o, "id", at), title: optString(o, "title", at), text: reqString(o, "text", at) };
}
