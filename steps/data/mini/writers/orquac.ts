/**
 * mini-orquac in OR-QuAC's native layout (prdwb/orconvqa-release; ciir.cs.umass.edu/downloads/ORConvQA).
 *
 * The real files:
 * - `preprocessed/{train,dev,test}.txt`: JSONL, one turn per line:
 *   {"qid": "C_<dialog hash>_<n>_q#<k>", "question", "rewrite" (CANARD), "answer": {"text",
 *    "answer_start", "bid"}, "history": [{"question", "answer": {"text", "answer_start", "bid"}}],
 *    "evidences": [passage texts], "retrieval_labels": [0|1 per evidence], "followup":
 *    "y"|"m"|"n", "yesno": "y"|"n"|"x"}. All turns of a dialog share one gold passage.
 *   `answer_start` is the character offset in the gold evidence. `bid`: here the gold block's
 *   index inside its article (the `@<bid>` part of the block id) — the real semantics of this
 *   field were not verifiable offline; parsers should not depend on it.
 * - `all_blocks.txt`: JSONL {"id": "<article id>@<block index>", "title", "text", "aid", "bid"}
 *   (the brief's {id, title, text}; aid/bid as in the release as far as known).
 * - `dev_blocks.txt`: same format, a small collection for model selection: the dev gold
 *   blocks plus every third block of the pool.
 * - `qrels.txt`: one JSON object {"<qid>": {"<block id>": 1}} over all splits.
 * `evidences` hold the gold block and four other blocks (same article first: hard negatives).
 */
import { rngFor } from "../rng.ts";
import type { World } from "../world.ts";
import type { Passage } from "../entities.ts";
import type { Conversation } from "../conversations.ts";
import type { Split } from "../params.ts";
import { LineSink, writeText } from "../io.ts";
import { conversationsOf, passageOf, writeCollection } from "./common.ts";
import type { MiniWriter, WriteOptions } from "./common.ts";

export const ORQUAC_FILES = {
  train: "preprocessed/train.txt",
  dev: "preprocessed/dev.txt",
  test: "preprocessed/test.txt",
  blocks: "all_blocks.txt",
  devBlocks: "dev_blocks.txt",
  qrels: "qrels.txt",
} as const;

export function orquacBlockId(p: Passage): string {
  return `${p.entity}@${p.position}`;
}

export function orquacDialogId(seed: number, split: Split, c: Conversation): string {
  const rng = rngFor(seed, "dialog", split, c.convNo);
  let hex = "";
  for (let i = 0; i < 4; i++) hex += (rng.int(0x10000) * 0x10000 + rng.int(0x10000)).toString(16).padStart(8, "0");
  return `C_${hex}_${rng.int(2)}`;
}

function blockJson(p: Passage): string {
  return JSON.stringify({ id: orquacBlockId(p), title: p.title, text: p.text, aid: String(p.entity), bid: p.position });
}

function evidencesFor(world: World, gold: Passage, seed: number, key: string): { evidences: string[]; labels: number[] } {
  const rng = rngFor(seed, "evidences", key);
  const sameArticle = world.passages.filter((p) => p.entity === gold.entity && p.id !== gold.id);
  const others: Passage[] = [...sameArticle];
  while (others.length < 4) {
    const p = rng.pick(world.passages);
    if (p.entity !== gold.entity && !others.includes(p)) others.push(p);
  }
  const chosen = others.slice(0, 4);
  chosen.splice(rng.int(chosen.length + 1), 0, gold);
  return { evidences: chosen.map((p) => p.text), labels: chosen.map((p) => (p.id === gold.id ? 1 : 0)) };
}

async function writeTurns(world: World, split: Split, path: string, qrels: Record<string, Record<string, number>>): Promise<void> {
  const seed = world.params.seed;
  const sink = await LineSink.open(path);
  for (const c of conversationsOf(world, split)) {
    const dialog = orquacDialogId(seed, split, c);
    const history: { question: string; answer: { text: string; answer_start: number; bid: number } }[] = [];
    for (const t of c.turns) {
      const gold = passageOf(world, t.answerPassage);
      const qid = `${dialog}_q#${t.turnNo - 1}`;
      const answer = { text: t.answer, answer_start: t.answerStart, bid: gold.position };
      const { evidences, labels } = evidencesFor(world, gold, seed, qid);
      const rng = rngFor(seed, "followup", qid);
      await sink.writeLine(JSON.stringify({
        qid,
        question: t.question,
        rewrite: t.rewrite,
        answer,
        history: history.map((h) => ({ question: h.question, answer: { ...h.answer } })),
        evidences,
        retrieval_labels: labels,
        followup: rng.weighted([["y", 0.5], ["m", 0.4], ["n", 0.1]] as const),
        yesno: "x",
      }));
      qrels[qid] = { [orquacBlockId(gold)]: 1 };
      history.push({ question: t.question, answer });
    }
  }
  await sink.close();
}

async function writeDevBlocks(world: World, path: string): Promise<void> {
  const keep = new Set<string>();
  for (const c of conversationsOf(world, "dev")) for (const t of c.turns) keep.add(t.answerPassage);
  const sink = await LineSink.open(path);
  for (const p of world.passages) {
    if (keep.has(p.id) || p.ordinal % 3 === 0) await sink.writeLine(blockJson(p));
  }
  await sink.close();
}

export const orquacWriter: MiniWriter = {
  name: "mini-orquac",
  async write(world: World, outDir: string, options: WriteOptions): Promise<string[]> {
    const qrels: Record<string, Record<string, number>> = {};
    await writeTurns(world, "train", `${outDir}/${ORQUAC_FILES.train}`, qrels);
    await writeTurns(world, "dev", `${outDir}/${ORQUAC_FILES.dev}`, qrels);
    await writeTurns(world, "test", `${outDir}/${ORQUAC_FILES.test}`, qrels);
    await writeText(`${outDir}/${ORQUAC_FILES.qrels}`, `${JSON.stringify(qrels)}\n`);
    await writeDevBlocks(world, `${outDir}/${ORQUAC_FILES.devBlocks}`);
    const collection = await writeCollection(world, outDir, () => ORQUAC_FILES.blocks, Number.MAX_SAFE_INTEGER, blockJson, options);
    return [ORQUAC_FILES.train, ORQUAC_FILES.dev, ORQUAC_FILES.test, ORQUAC_FILES.qrels, ORQUAC_FILES.devBlocks, ...collection];
  },
};
