/**
 * Topics (queries) for `bm25 search`, as Anserini's topic readers take them:
 *  - TSV `qid<TAB>text` (TsvString reader: the line trimmed, the text is the second field, trimmed;
 *    further fields are ignored);
 *  - JSONL, one object a line: the id is `qid` or `id`, the text is the field named by
 *    `field`, or else the first of query, title, text, question, contents that the line has.
 * The format follows the extension (.tsv / .jsonl / .json, optionally .gz), else the first character.
 * A qid given twice is an error (Anserini would keep the last silently). Pure apart from the input.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { compareUtf8 } from "../eval/ranking.ts";
import { formatOfName } from "./collection.ts";
import { parseJsonLine } from "../lib/jsonl.ts";
import type { LineBatch } from "./hashed-lines.ts";

export interface Topic {
  readonly qid: string;
  readonly text: string;
}

export const TOPIC_FIELDS = ["query", "title", "text", "question", "contents"] as const;

function topicFromJson(text: string, file: string, line: number, field: string | undefined): Topic {
  const value = parseJsonLine(text, file, line, "each line must be one JSON object (JSONL)");
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new InputError("a topics line must be one JSON object", { file, line, fix: 'write {"qid": ..., "query": ...} per line' });
  const r = value as Record<string, unknown>;
  const rawId = r.qid ?? r.id;
  if (!((typeof rawId === "string" && rawId !== "") || (typeof rawId === "number" && Number.isFinite(rawId)))) {
    throw new InputError("topic has no qid", { file, line, field: "qid", fix: 'give every line a "qid" (or "id")' });
  }
  const name = field ?? TOPIC_FIELDS.find((f) => typeof r[f] === "string");
  if (name === undefined) throw new InputError(`topic '${rawId}' has none of the fields ${TOPIC_FIELDS.join(", ")}`, { file, line, field: "query", fix: "name the query field with --topic-field" });
  const t = r[name];
  if (typeof t !== "string") throw new InputError(`topic '${rawId}' has no string field '${name}'`, { file, line, field: name, fix: `give every line a "${name}" string, or choose another --topic-field` });
  return { qid: String(rawId), text: t };
}

function topicFromTsv(text: string, file: string, line: number): Topic {
  const parts = text.trim().split("\t");
  if (parts.length < 2 || parts[0] === "") throw new InputError("expected 'qid<TAB>text'", { file, line, fix: "separate the qid from the query with one tab" });
  return { qid: parts[0]!, text: parts[1]!.trim() };
}

/** Topics sorted by qid (UTF-8 order, like Anserini's sorted topic map). */
export async function parseTopics(batches: AsyncIterable<LineBatch>, file: string, field?: string): Promise<Topic[]> {
  let format = formatOfName(file);
  const out: Topic[] = [];
  const firstLine = new Map<string, number>();
  for await (const batch of batches) {
    for (let i = 0; i < batch.lines.length; i++) {
      const text = batch.lines[i]!;
      const line = batch.firstLine + i;
      if (text.trim() === "") continue;
      format ??= text.trimStart().startsWith("{") ? "jsonl" : "tsv";
      const topic = format === "jsonl" ? topicFromJson(text, file, line, field) : topicFromTsv(text, file, line);
      if (/\s/.test(topic.qid)) throw new InputError(`qid '${topic.qid}' contains whitespace`, { file, line, field: "qid", fix: "a TREC run cannot hold qids with spaces" });
      const seen = firstLine.get(topic.qid);
      if (seen !== undefined) throw new InputError(`qid '${topic.qid}' appears twice (first at line ${seen})`, { file, line, field: "qid", fix: "keep one line per qid" });
      firstLine.set(topic.qid, line);
      out.push(topic);
    }
  }
  if (out.length === 0) throw new InputError("no topics", { file, fix: "write one query per line" });
  return out.sort((a, b) => compareUtf8(a.qid, b.qid));
}
