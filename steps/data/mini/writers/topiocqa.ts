/**
 * mini-topiocqa in TopiOCQA's native layout (McGill-NLP/topiocqa, download_data.py).
 *
 * The real files:
 * - `topiocqa_train.json`, `topiocqa_dev.json`: one JSON array of turns
 *   {"Conversation_no", "Turn_no", "Context": [q1, a1, ...], "Question", "Answer", "Topic"
 *   (Wikipedia article title), "Topic_section" (section title, "Introduction" for the lead),
 *   "Rationale" (the supporting text span), "is_nq" (true when the question came from NQ),
 *   "Additional_answers" (dev only: [{"Answer", "Topic", "Topic_section", "Rationale"}]: other
 *   annotators' short answers, here seeded variants of the answer, `../additional-answers.ts`)}.
 * - `data/retriever/all_history/{train,dev}.json`: DPR bi-encoder JSON arrays
 *   {"conv_id", "turn_id", "question": "q1 [SEP] a1 [SEP] ... [SEP] q_t", "answers": [...],
 *    "positive_ctxs": [{"title": "<Topic> [SEP] <Topic_section>", "text", "passage_id"}],
 *    "negative_ctxs": [], "hard_negative_ctxs": []}. TopiOCQA's evaluate_retriever.py matches
 *   passages by (title, text); `passage_id` (the TSV id, a string) is added for convenience.
 * - `data/wikipedia_split/full_wiki_segments.tsv`: header `id\ttext\ttitle`, ids 1..N,
 *   title "<Doc> [SEP] <Section>" (DPR's CsvCtxSrc reads it with id_prefix 'wiki:').
 * Here there is no test split (TopiOCQA's test is hidden); the paper evaluates on dev.
 */
import type { World } from "../world.ts";
import type { Passage } from "../entities.ts";
import type { Conversation } from "../conversations.ts";
import type { Split } from "../params.ts";
import { jsonArrayText, writeText } from "../io.ts";
import { additionalAnswers } from "../additional-answers.ts";
import { conversationsOf, passageOf, writeCollection } from "./common.ts";
import type { MiniWriter, WriteOptions } from "./common.ts";

export const TOPIOCQA_FILES = {
  train: "topiocqa_train.json",
  dev: "topiocqa_dev.json",
  allHistoryTrain: "data/retriever/all_history/train.json",
  allHistoryDev: "data/retriever/all_history/dev.json",
  segments: "data/wikipedia_split/full_wiki_segments.tsv",
} as const;

export function topiocqaTitle(p: Passage): string {
  return `${p.title} [SEP] ${p.section}`;
}

export function topiocqaPassageId(p: Passage): string {
  return String(p.ordinal + 1);
}

function rawTurns(world: World, convs: readonly Conversation[], split: Split): unknown[] {
  const out: unknown[] = [];
  for (const c of convs) {
    const context: string[] = [];
    for (const t of c.turns) {
      const p = passageOf(world, t.answerPassage);
      const turn: Record<string, unknown> = {
        Conversation_no: c.convNo,
        Turn_no: t.turnNo,
        Context: [...context],
        Question: t.question,
        Answer: t.answer,
        Topic: p.title,
        Topic_section: p.section,
        Rationale: t.rationale,
        is_nq: t.turnNo === 1,
      };
      if (split === "dev") {
        const more = additionalAnswers(world.params.seed, c.convNo, t.turnNo, t.answer, t.rationale);
        turn["Additional_answers"] = more.map((a) => ({ Answer: a, Topic: p.title, Topic_section: p.section, Rationale: t.rationale }));
      }
      out.push(turn);
      context.push(t.question, t.answer);
    }
  }
  return out;
}

function allHistory(world: World, convs: readonly Conversation[]): unknown[] {
  const out: unknown[] = [];
  for (const c of convs) {
    const parts: string[] = [];
    for (const t of c.turns) {
      parts.push(t.question);
      const p = passageOf(world, t.answerPassage);
      out.push({
        conv_id: c.convNo,
        turn_id: t.turnNo,
        question: parts.join(" [SEP] "),
        answers: [t.answer],
        positive_ctxs: [{ title: topiocqaTitle(p), text: p.text, passage_id: topiocqaPassageId(p) }],
        negative_ctxs: [],
        hard_negative_ctxs: [],
      });
      parts.push(t.answer);
    }
  }
  return out;
}

export const topiocqaWriter: MiniWriter = {
  name: "mini-topiocqa",
  async write(world: World, outDir: string, options: WriteOptions): Promise<string[]> {
    const train = conversationsOf(world, "train");
    const dev = conversationsOf(world, "dev");
    await writeText(`${outDir}/${TOPIOCQA_FILES.train}`, jsonArrayText(rawTurns(world, train, "train"), 2));
    await writeText(`${outDir}/${TOPIOCQA_FILES.dev}`, jsonArrayText(rawTurns(world, dev, "dev"), 2));
    await writeText(`${outDir}/${TOPIOCQA_FILES.allHistoryTrain}`, jsonArrayText(allHistory(world, train), 2));
    await writeText(`${outDir}/${TOPIOCQA_FILES.allHistoryDev}`, jsonArrayText(allHistory(world, dev), 2));
    const collection = await writeCollection(
      world, outDir, () => TOPIOCQA_FILES.segments, Number.MAX_SAFE_INTEGER,
      (p) => `${topiocqaPassageId(p)}\t${p.text}\t${topiocqaTitle(p)}`, options, "id\ttext\ttitle",
    );
    return [TOPIOCQA_FILES.train, TOPIOCQA_FILES.dev, TOPIOCQA_FILES.allHistoryTrain, TOPIOCQA_FILES.allHistoryDev, ...collection];
  },
};
