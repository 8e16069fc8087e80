/**
 * mini-nq: standalone (self-contained) questions for pre-training θ0, in DPR's NQ layout.
 *
 * Real DPR files (facebookresearch/DPR): `psgs_w100.tsv` (header `id\ttext\ttitle`, ids 1..N)
 * and `biencoder-nq-{train,dev}.json` (a JSON array of {"question", "answers", "positive_ctxs":
 * [{"title", "text", "passage_id", ...}], "negative_ctxs", "hard_negative_ctxs"}).
 * Here, as the brief asks, JSONL `nq-train.jsonl` / `nq-dev.jsonl`, one question per line:
 * {"question", "answers", "positive_passage_id", "positive_ctxs": [{"title", "text",
 * "passage_id"}], "negative_ctxs": [], "hard_negative_ctxs": []}. Titles are the article title
 * (DPR's 100-word passages carry no section). Questions never equal a dev/test conversation
 * question or rewrite of the same world.
 */
import type { World, StandaloneQuestion } from "../world.ts";
import { LineSink } from "../io.ts";
import { passageOf, writeCollection } from "./common.ts";
import type { MiniWriter, WriteOptions } from "./common.ts";

export const NQ_FILES = { train: "nq-train.jsonl", dev: "nq-dev.jsonl", passages: "psgs_w100.tsv" } as const;

async function writeQuestions(world: World, qs: readonly StandaloneQuestion[], path: string): Promise<void> {
  const sink = await LineSink.open(path);
  for (const q of qs) {
    const p = passageOf(world, q.passage);
    const id = String(p.ordinal + 1);
    await sink.writeLine(JSON.stringify({
      question: q.question,
      answers: q.answers,
      positive_passage_id: id,
      positive_ctxs: [{ title: p.title, text: p.text, passage_id: id }],
      negative_ctxs: [],
      hard_negative_ctxs: [],
    }));
  }
  await sink.close();
}

export const nqWriter: MiniWriter = {
  name: "mini-nq",
  async write(world: World, outDir: string, options: WriteOptions): Promise<string[]> {
    await writeQuestions(world, world.standalone.filter((q) => q.split === "train"), `${outDir}/${NQ_FILES.train}`);
    await writeQuestions(world, world.standalone.filter((q) => q.split === "dev"), `${outDir}/${NQ_FILES.dev}`);
    const collection = await writeCollection(
      world, outDir, () => NQ_FILES.passages, Number.MAX_SAFE_INTEGER,
      (p) => `${p.ordinal + 1}\t${p.text}\t${p.title}`, options, "id\ttext\ttitle",
    );
    return [NQ_FILES.train, NQ_FILES.dev, ...collection];
  },
};
