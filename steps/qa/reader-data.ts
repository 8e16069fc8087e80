/**
 * Reader examples from a retriever's run (pure core; the step is in steps.ts): per turn of a
 * split, its top N passages in rank order (ties by passage id), each marked has-answer with
 * the answer's character spans (answer-spans.ts), and for training the gold passages added in
 * front when the retriever missed every one of them (TopiOCQA's setup; a param).
 */
import type { PassageRow, TurnRow } from "../data/schemas.ts";
import { findAnswerSpans } from "./answer-spans.ts";

export interface ReaderPassage {
  readonly pid: string;
  readonly title: string | null;
  readonly text: string;
  /** 1-based retriever rank; 0 for a gold passage added for training. */
  readonly rank: number;
  readonly gold: boolean;
  readonly hasAnswer: boolean;
  /** [start, end) character offsets of the answer in `text`. */
  readonly spans: readonly (readonly [number, number])[];
  readonly match: "exact" | "f1" | "none";
}

export interface ReaderExample {
  readonly qid: string;
  readonly question: string;
  readonly history: readonly { readonly question: string; readonly answer: string }[];
  /** The turn's answer (the training target; scoring reads the references files). */
  readonly answers: readonly string[];
  readonly questionType: string | null;
  readonly domain: string | null;
  readonly passages: readonly ReaderPassage[];
}

export interface ReaderDataOptions {
  readonly topN: number;
  readonly addGold: boolean;
  /** Best-F1 spans for answers that do not occur verbatim (free-text answers). */
  readonly fuzzy: boolean;
  readonly minF1: number;
  readonly maxSpans: number;
}

export interface ReaderDataCounts {
  turns: number;
  /** Turns without an answer (skipped: nothing to read for or score). */
  noAnswer: number;
  withAnswerInTopN: number;
  goldAdded: number;
  exactPassages: number;
  f1Passages: number;
}

/** A turn's ranked passage ids: score descending, then passage id. */
export function topPassages(hits: readonly { docid: string; score: number }[], n: number): string[] {
  return [...hits]
    .sort((a, b) => b.score - a.score || (a.docid < b.docid ? -1 : a.docid > b.docid ? 1 : 0))
    .slice(0, n)
    .map((h) => h.docid);
}

export function readerExample(turn: TurnRow, ranked: readonly string[], passages: ReadonlyMap<string, PassageRow>, options: ReaderDataOptions, counts: ReaderDataCounts): ReaderExample | null {
  counts.turns++;
  const answer = turn.answer ?? "";
  if (answer.trim() === "") {
    counts.noAnswer++;
    return null;
  }
  const gold = new Set(turn.gold_passage_ids);
  const ids: { pid: string; rank: number }[] = ranked.map((pid, i) => ({ pid, rank: i + 1 }));
  if (options.addGold && gold.size > 0 && !ranked.some((p) => gold.has(p))) {
    ids.unshift(...[...gold].sort().map((pid) => ({ pid, rank: 0 })));
    counts.goldAdded++;
  }
  const out: ReaderPassage[] = [];
  for (const { pid, rank } of ids) {
    const p = passages.get(pid);
    if (p === undefined) continue;
    const m = findAnswerSpans(p.text, answer, { fuzzy: options.fuzzy, minF1: options.minF1, maxSpans: options.maxSpans });
    if (m.kind === "exact") counts.exactPassages++;
    if (m.kind === "f1") counts.f1Passages++;
    out.push({ pid, title: p.title, text: p.text, rank, gold: gold.has(pid), hasAnswer: m.spans.length > 0, spans: m.spans, match: m.kind });
  }
  if (out.some((p) => p.hasAnswer && p.rank > 0)) counts.withAnswerInTopN++;
  return {
    qid: turn.qid,
    question: turn.question,
    history: turn.history.map((h) => ({ question: h.question, answer: h.answer ?? "" })),
    answers: [answer],
    questionType: turn.question_type,
    domain: turn.source_domain,
    passages: out,
  };
}
