/**
 * vocab.txt (BERT style: one token per line, id = 0-based line number): parse, render, digest,
 * plus the thin file adapters.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { InputError } from "../../../pipeline/engine/errors.ts";

export interface Vocab {
  /** id -> token */
  readonly tokens: readonly string[];
  /** token -> id */
  readonly index: ReadonlyMap<string, number>;
  /** sha256 (hex) of the canonical vocab.txt bytes (tokens joined by "\n", trailing "\n"). */
  readonly digest: string;
}

/** Canonical vocab.txt text: one token per line, "\n" line ends, final newline. */
export function renderVocabTxt(tokens: readonly string[]): string {
  return tokens.map((t) => `${t}\n`).join("");
}

export function vocabFromTokens(tokens: readonly string[], file = "<vocab>"): Vocab {
  const index = new Map<string, number>();
  tokens.forEach((tok, id) => {
    if (tok.length === 0) throw new InputError("empty token", { file, line: id + 1, fix: "remove the blank line from the vocabulary" });
    if (/[\n\r]/.test(tok)) throw new InputError("token contains a line break", { file, line: id + 1 });
    const prev = index.get(tok);
    if (prev !== undefined) {
      throw new InputError(`duplicate token ${JSON.stringify(tok)} (first on line ${prev + 1})`, { file, line: id + 1, fix: "each token must appear once" });
    }
    index.set(tok, id);
  });
  const digest = createHash("sha256").update(renderVocabTxt(tokens), "utf8").digest("hex");
  return { tokens: [...tokens], index, digest };
}

/** Parses vocab.txt text. Accepts "\n" or "\r\n" line ends and a missing final newline. */
export function parseVocabTxt(text: string, file = "vocab.txt"): Vocab {
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 0) throw new InputError("vocabulary is empty", { file, fix: "point to a BERT vocab.txt or train one" });
  return vocabFromTokens(lines, file);
}

export function readVocabFile(path: string): Vocab {
  return parseVocabTxt(readFileSync(path, "utf8"), path);
}

export function writeVocabFile(path: string, tokens: readonly string[]): void {
  writeFileSync(path, renderVocabTxt(tokens), "utf8");
}
