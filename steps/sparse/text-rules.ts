/**
 * How a passage record becomes the text BM25 indexes: a named rule (a hashable step parameter)
 * rather than a callback. Pyserini's QReCC/TopiOCQA indexes hold the JSONL `contents` field only.
 */
import { InputError } from "../../pipeline/engine/errors.ts";

export interface PassageRecord {
  readonly id: string;
  readonly contents?: string;
  readonly title?: string;
  readonly text?: string;
}

const RULES = {
  /** Pyserini: the `contents` field as is (falls back to `text` for records without it). */
  contents: (p: PassageRecord): string | undefined => p.contents ?? p.text,
  /** Title, a space, then the text (DPR-style collections with separate title/text fields). */
  "title-text": (p: PassageRecord): string | undefined =>
    p.title === undefined ? (p.text ?? p.contents) : `${p.title} ${p.text ?? p.contents ?? ""}`,
} as const satisfies Record<string, (p: PassageRecord) => string | undefined>;

export type TextRule = keyof typeof RULES;
export const TEXT_RULES = Object.keys(RULES) as TextRule[];

/** The text to index for `p` under `rule`; InputError if the record has none. */
export function passageText(p: PassageRecord, rule: TextRule, where: { file?: string; line?: number } = {}): string {
  const text = RULES[rule](p);
  if (typeof text !== "string") {
    throw new InputError(`passage '${p.id}' has no text for rule '${rule}'`, {
      ...where,
      field: rule === "contents" ? "contents" : "text",
      fix: "give every passage a `contents` (or `title` and `text`) string field",
    });
  }
  return text;
}
