/**
 * The reader trainer's input directory (layout in steps/qa/dpr_reader/data.py) from the train
 * and dev reader examples: every passage row tokenized once (`title [SEP] text [SEP]`, with
 * each text token's word), each question's candidates as rows, has-answer flags and the answer
 * spans as token positions in the row (dev: the flags only, for the trainer's diagnostics). Spans cut off by the row's length are dropped (a
 * candidate without a surviving span reads as one without the answer).
 */
import { join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { writeNpy } from "../../lib/npy.ts";
import type { TokenEncoder } from "../../encoding/tokenize/encoder.ts";
import type { ReaderExample } from "../reader-data.ts";
import { writeJsonLines } from "../reader-io.ts";
import { passageTokens, questionTokens, tokenSpan, type ReaderPassageTokens } from "./inputs.ts";

export interface PrepareOptions {
  readonly maxLength: number;
  readonly maxQuestionLength: number;
  /** Candidates kept per training question (gold added in front counts). */
  readonly trainPassages: number;
  /** Candidates kept per dev question (the reader's eval_top_docs). */
  readonly devPassages: number;
  readonly maxSpans: number;
}

class PassageTable {
  readonly rows: ReaderPassageTokens[] = [];
  private readonly index = new Map<string, number>();
  constructor(private readonly encoder: TokenEncoder, private readonly maxLength: number) {}
  row(pid: string, title: string | null, text: string): number {
    let r = this.index.get(pid);
    if (r === undefined) {
      r = this.rows.length;
      this.rows.push(passageTokens(this.encoder, title, text, this.maxLength));
      this.index.set(pid, r);
    }
    return r;
  }
}

function matrix(rows: readonly (readonly number[])[], width: number): Int32Array {
  const m = new Int32Array(rows.length * width);
  rows.forEach((r, i) => m.set(r.slice(0, width), i * width));
  return m;
}

export async function prepareReaderInputs(encoder: TokenEncoder, train: readonly ReaderExample[], dev: readonly ReaderExample[], o: PrepareOptions, out: string): Promise<Record<string, number>> {
  // A passage row never needs more than maxLength - 3 tokens ([CLS] q [SEP] takes at least 2).
  const table = new PassageTable(encoder, o.maxLength - 2);
  const counts: Record<string, number> = { trainQuestions: train.length, devQuestions: dev.length, trainWithPositive: 0, spansDropped: 0 };
  const split = (examples: readonly ReaderExample[], width: number, labels: boolean) => {
    const questions = examples.map((ex) => questionTokens(encoder, ex, o.maxQuestionLength));
    const cands = new Int32Array(examples.length * width).fill(-1);
    const has = new Int8Array(examples.length * width);
    // Whether each candidate holds the answer at all (the dev diagnostics' right passage; training reads `has`).
    const holds = new Int8Array(examples.length * width);
    const spans = new Int32Array(examples.length * width * o.maxSpans * 2).fill(-1);
    examples.forEach((ex, q) => {
      let positive = false;
      ex.passages.slice(0, width).forEach((p, j) => {
        const row = table.row(p.pid, p.title, p.text);
        cands[q * width + j] = row;
        if (p.hasAnswer) holds[q * width + j] = 1;
        if (!labels || !p.hasAnswer) return;
        let k = 0;
        for (const s of p.spans) {
          const t = tokenSpan(table.rows[row]!, s);
          if (t === null) {
            counts["spansDropped"]!++;
            continue;
          }
          if (k === o.maxSpans) break;
          spans.set(t, ((q * width + j) * o.maxSpans + k) * 2);
          k++;
        }
        if (k > 0) {
          has[q * width + j] = 1;
          positive = true;
        }
      });
      if (positive) counts["trainWithPositive"]!++;
    });
    return { questions, cands, has, holds, spans };
  };
  const tr = split(train, o.trainPassages, true);
  const dv = split(dev, o.devPassages, false);
  const qWidth = Math.max(1, ...tr.questions.map((q) => q.length), ...dv.questions.map((q) => q.length));
  const pWidth = Math.max(1, ...table.rows.map((r) => r.ids.length));
  for (const d of ["train", "dev"]) mkdirSync(join(out, d), { recursive: true });
  const w = (path: string, data: Int32Array | Int8Array, shape: number[]) => writeNpy(join(out, path), { dtype: data instanceof Int8Array ? "int8" : "int32", shape, data });
  w("passage_ids.npy", matrix(table.rows.map((r) => r.ids), pWidth), [table.rows.length, pWidth]);
  const words = new Int32Array(table.rows.length * pWidth).fill(-1);
  table.rows.forEach((r, i) => words.set(r.wordOfToken, i * pWidth));
  w("passage_word.npy", words, [table.rows.length, pWidth]);
  w("train/question_ids.npy", matrix(tr.questions, qWidth), [train.length, qWidth]);
  w("train/candidates.npy", tr.cands, [train.length, o.trainPassages]);
  w("train/has_answer.npy", tr.has, [train.length, o.trainPassages]);
  w("train/spans.npy", tr.spans, [train.length, o.trainPassages, o.maxSpans, 2]);
  w("dev/question_ids.npy", matrix(dv.questions, qWidth), [dev.length, qWidth]);
  w("dev/candidates.npy", dv.cands, [dev.length, o.devPassages]);
  w("dev/has_answer.npy", dv.holds, [dev.length, o.devPassages]);
  writeFileSync(join(out, "dev", "answers.json"), JSON.stringify(dev.map((ex) => ex.answers)) + "\n");
  const devRows = [...new Set([...dv.cands].filter((r) => r >= 0))].sort((a, b) => a - b);
  await writeJsonLines(join(out, "dev", "texts.jsonl"), devRows.map((row) => ({ row, text: table.rows[row]!.text, words: table.rows[row]!.words })));
  counts["passageRows"] = table.rows.length;
  return counts;
}
