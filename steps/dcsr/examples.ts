/**
 * DCSR's training examples as row indexes (pure, no I/O), on top of DPR's (training/examples.ts:
 * the training turns with gold, their gold rows, mined negative passages and the dev
 * collection):
 *  - a turn is an example when its answer sentence is located (label-step.ts) in a gold
 *    passage of the collection and that sentence has a vector (its marker survived);
 *  - its positive passage is the one holding that sentence (not necessarily DPR's first gold);
 *  - `labels` holds, per marker slot of the positive passage, 1 (a positive: sampled from),
 *    2 (never an in-passage negative: contains the answer, or neighbours a sentence that
 *    does), 0 (an in-passage negative candidate), -1 (no vector);
 *  - negatives are DPR's mined passages (the trainer draws a random sentence of each), or,
 *    for DCSR x IHN, mined sentences (passage row, slot) in rank order, -1 padded.
 */
import { padded, type Examples } from "../training/examples.ts";
import type { AnswerSentenceRow } from "./label-step.ts";

export interface SentenceList {
  readonly pids: readonly string[];
  readonly slots: readonly number[];
}

export interface DcsrExampleInputs {
  /** DPR's examples over the same queries, passages, gold and (optionally) mined passages. */
  readonly base: Examples;
  readonly trainQids: readonly string[];
  readonly labels: ReadonlyMap<string, AnswerSentenceRow>;
  readonly rowOf: ReadonlyMap<string, number>;
  /** Sentences with a vector in a passage row (markers that survived). */
  markedCount(row: number): number;
  readonly maxMarkers: number;
  /** Mined sentences per qid (DCSR x IHN); absent: negatives are the base's mined passages. */
  readonly sentenceNegatives?: ReadonlyMap<string, SentenceList>;
  readonly k: number;
}

export interface DcsrExamples {
  readonly trainRows: number[];
  readonly pos: Int32Array;
  readonly labels: { data: Int8Array; cols: number };
  readonly gold: { data: Int32Array; cols: number };
  readonly neg: { data: Int32Array; cols: number } | null;
  readonly negSentences: { rows: Int32Array; slots: Int32Array; cols: number } | null;
  readonly counts: Record<string, number>;
}

/** Labels of the marked slots of a passage: the sentence labels cut to the slots with a vector, -1 beyond. */
export function slotLabels(labels: readonly number[], marked: number, maxMarkers: number): Int8Array {
  const out = new Int8Array(maxMarkers).fill(-1);
  for (let s = 0; s < Math.min(marked, labels.length, maxMarkers); s++) out[s] = labels[s]!;
  return out;
}

/** Row e of a -1 padded matrix, without the padding. */
function rowOfPadded(m: { readonly data: Int32Array; readonly cols: number }, e: number): number[] {
  return Array.from(m.data.subarray(e * m.cols, (e + 1) * m.cols)).filter((r) => r >= 0);
}

/** The turn's positive passage (the one holding its answer sentence) and its slot labels; undefined (counted why) when it is no example. */
function answerPassage(x: DcsrExampleInputs, qid: string, counts: Record<string, number>): { p: number; slots: Int8Array } | undefined {
  const label = x.labels.get(qid);
  if (label === undefined) {
    counts.no_answer_sentence!++;
    return undefined;
  }
  const p = x.rowOf.get(label.pid);
  if (p === undefined) {
    counts.answer_passage_not_in_collection!++;
    return undefined;
  }
  const marked = x.markedCount(p);
  if (label.positive >= Math.min(marked, x.maxMarkers)) {
    counts.positive_without_vector!++;
    return undefined;
  }
  return { p, slots: slotLabels(label.labels, marked, x.maxMarkers) };
}

/** The turn's first k mined sentences in the collection, as passage rows and slots in rank order (missing ids and lists counted). */
function minedSentences(x: DcsrExampleInputs, negatives: ReadonlyMap<string, SentenceList>, qid: string, counts: Record<string, number>): { rows: number[]; slots: number[] } {
  const mined = negatives.get(qid);
  if (mined === undefined) counts.negatives_without_list!++;
  const rows: number[] = [];
  const slots: number[] = [];
  (mined?.pids ?? []).forEach((pid, i) => {
    if (rows.length >= x.k) return;
    const r = x.rowOf.get(pid);
    if (r === undefined) counts.negatives_missing_ids!++;
    else {
      rows.push(r);
      slots.push(mined!.slots[i]!);
    }
  });
  return { rows, slots };
}

export function buildDcsrExamples(x: DcsrExampleInputs): DcsrExamples {
  const counts: Record<string, number> = { dpr_examples: x.base.trainRows.length, no_answer_sentence: 0, answer_passage_not_in_collection: 0, positive_without_vector: 0, no_in_passage_candidate: 0, negatives_missing_ids: 0, negatives_without_list: 0 };
  const trainRows: number[] = [];
  const pos: number[] = [];
  const labels: Int8Array[] = [];
  const golds: number[][] = [];
  const neg: number[][] = [];
  const negRows: number[][] = [];
  const negSlots: number[][] = [];
  x.base.trainRows.forEach((row, e) => {
    const qid = x.trainQids[row]!;
    const answer = answerPassage(x, qid, counts);
    if (answer === undefined) return;
    const { p, slots } = answer;
    if (!slots.includes(0)) counts.no_in_passage_candidate!++;
    trainRows.push(row);
    pos.push(p);
    labels.push(slots);
    const g = rowOfPadded(x.base.gold, e);
    golds.push(g.includes(p) ? g : [p, ...g]);
    if (x.sentenceNegatives !== undefined) {
      const mined = minedSentences(x, x.sentenceNegatives, qid, counts);
      negRows.push(mined.rows);
      negSlots.push(mined.slots);
    } else if (x.base.neg !== null) neg.push(rowOfPadded(x.base.neg, e));
  });
  counts.examples = trainRows.length;
  const labelData = new Int8Array(labels.length * x.maxMarkers);
  labels.forEach((l, i) => labelData.set(l, i * x.maxMarkers));
  const sentences = x.sentenceNegatives === undefined ? null : { rows: padded(negRows).data, slots: padded(negSlots).data, cols: padded(negRows).cols };
  return {
    trainRows,
    pos: Int32Array.from(pos),
    labels: { data: labelData, cols: x.maxMarkers },
    gold: padded(golds),
    neg: x.sentenceNegatives === undefined && x.base.neg !== null ? padded(neg) : null,
    negSentences: sentences,
    counts,
  };
}
