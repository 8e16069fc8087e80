/**
 * mini-qrecc in QReCC's native (SCAI-QReCC-21) layout.
 *
 * The real release (zenodo 5115890 / apple/ml-qrecc):
 * - `scai-qrecc21-training-turns.json`, `scai-qrecc21-test-turns.json`: ONE JSON array per
 *   file, keys sorted, 4-space indent, one object per turn:
 *   {"Context": [q1, a1, ...], "Conversation_no": 1, "Conversation_source": "quac"|"nq"|"trec",
 *    "Question": "...", "Truth_answer": "...", "Truth_passages": ["<passage id>", ...],
 *    "Truth_rewrite": "...", "Turn_no": 1}. Truth_passages is [] when no gold passage exists
 *   (about half of the real test turns). Conversation_no restarts per file. The real test
 *   file also has "Transformer_rewrite" (a model's rewrite) — not generated here.
 * - `passages.zip` -> `collection-paragraph/{commoncrawl,wayback,wayback-backfill}/*.jsonl`,
 *   Pyserini JSONL lines {"id": "<page url>_p<i>", "contents": "..."}; ids are URLs (Wayback
 *   URLs for most), `_p<i>` = i-th passage of that page. Here: `collection-paragraph/wayback/`.
 * Files the paper's authors built on top (naver-ai/cs-shortcut reads them):
 * - `qrels.txt` (test) and `qrels_train.txt` (train): JSON {"<conv>_<turn>": {"<pid>": 1}},
 *   a turn without gold stored as {"": 1}.
 * - `test_question_types.json`: {"trec": [qids], "quac": [...], "nq": [...], "first": [...],
 *   "switch": [...], "no-switch": [...]}; as in the authors' file, first/switch/no-switch only
 *   list NQ and TREC turns with gold passages (QuAC conversations never switch topic; a type
 *   compares p+_{t-1} with p+_t). Ground truth of the generator.
 * The dev split is not written: like the authors, cut conversations out of train.
 */
import { rngFor } from "../rng.ts";
import type { World } from "../world.ts";
import type { Passage } from "../entities.ts";
import type { Conversation } from "../conversations.ts";
import { jsonArrayText, writeText } from "../io.ts";
import { conversationsOf, qid, writeCollection } from "./common.ts";
import type { MiniWriter, WriteOptions } from "./common.ts";

export const QRECC_FILES = {
  train: "scai-qrecc21-training-turns.json",
  test: "scai-qrecc21-test-turns.json",
  qrelsTest: "qrels.txt",
  qrelsTrain: "qrels_train.txt",
  questionTypes: "test_question_types.json",
} as const;

const PASSAGES_PER_FILE = 500_000;

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

/** The page URL of an entity's article (Wayback style, deterministic timestamp). */
export function qreccPageUrl(seed: number, entity: number, title: string): string {
  const rng = rngFor(seed, "url", entity);
  const two = (lo: number, hi: number) => String(rng.range(lo, hi)).padStart(2, "0");
  const ts = `20${two(10, 19)}${two(1, 12)}${two(1, 28)}${two(0, 23)}${two(0, 59)}${two(0, 59)}`;
  const host = slug(title.split(" ").find((w) => w !== "The") ?? "site") || "site";
  return `http://web.archive.org/web/${ts}id_/http://www.${host}.org:80/articles/${entity}/${slug(title)}`;
}

export function qreccPassageId(seed: number, p: Passage): string {
  return `${qreccPageUrl(seed, p.entity, p.title)}_p${p.position}`;
}

function turnsJson(world: World, convs: readonly Conversation[]): unknown[] {
  const seed = world.params.seed;
  const idOf = (id: string): string => {
    const p = world.passageById.get(id);
    if (p === undefined) throw new Error(`gold passage ${id} missing from pool`);
    return qreccPassageId(seed, p);
  };
  const out: unknown[] = [];
  for (const c of convs) {
    const context: string[] = [];
    for (const t of c.turns) {
      // keys in sorted order, as the SCAI files are written (jq --sort-keys)
      out.push({
        Context: [...context],
        Conversation_no: c.convNo,
        Conversation_source: c.domain,
        Question: t.question,
        Truth_answer: t.answer,
        Truth_passages: t.gold.map(idOf),
        Truth_rewrite: t.rewrite,
        Turn_no: t.turnNo,
      });
      context.push(t.question, t.answer);
    }
  }
  return out;
}

function qrelsJson(world: World, convs: readonly Conversation[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const c of convs) {
    for (const t of c.turns) {
      const rel: Record<string, number> = {};
      if (t.gold.length === 0) rel[""] = 1;
      for (const g of t.gold) {
        const p = world.passageById.get(g);
        if (p !== undefined) rel[qreccPassageId(world.params.seed, p)] = 1;
      }
      out[qid(c, t)] = rel;
    }
  }
  return out;
}

/**
 * The authors' labels file: every turn under its sub-domain; question types only where the
 * paper could compute them (Appendix A): NQ and TREC turns only, turn 1 ("first", by its
 * position), or turn t > 1 where both p+_{t-1} and p+_t exist. The paper calls a turn
 * "no-switch" when p+_{t-1} and p+_t are similar by a thresholded BM25-vector dot product,
 * which holds for the same passage and rarely for two passages of one page; here the
 * generator knows the passages, so "no-switch" = the two gold sets share a passage, and
 * "switch" otherwise (another section of the same page included). A turn t > 1 without
 * gold, or after a turn without gold, has no pair of gold passages, so it gets no type.
 */
export function qreccQuestionTypes(convs: readonly Conversation[]): Record<string, string[]> {
  const out: Record<string, string[]> = { trec: [], quac: [], nq: [], first: [], switch: [], "no-switch": [] };
  for (const c of convs) {
    c.turns.forEach((t, i) => {
      const id = qid(c, t);
      out[c.domain]?.push(id);
      if (c.domain !== "nq" && c.domain !== "trec") return;
      const prev = i > 0 ? c.turns[i - 1] : undefined;
      if (i === 0) out["first"]?.push(id);
      else if (t.gold.length > 0 && prev !== undefined && prev.gold.length > 0) out[t.gold.some((g) => prev.gold.includes(g)) ? "no-switch" : "switch"]?.push(id);
    });
  }
  return out;
}

export const qreccWriter: MiniWriter = {
  name: "mini-qrecc",
  async write(world: World, outDir: string, options: WriteOptions): Promise<string[]> {
    const train = conversationsOf(world, "train");
    const test = conversationsOf(world, "test");
    await writeText(`${outDir}/${QRECC_FILES.train}`, jsonArrayText(turnsJson(world, train), 4));
    await writeText(`${outDir}/${QRECC_FILES.test}`, jsonArrayText(turnsJson(world, test), 4));
    await writeText(`${outDir}/${QRECC_FILES.qrelsTest}`, `${JSON.stringify(qrelsJson(world, test))}\n`);
    await writeText(`${outDir}/${QRECC_FILES.qrelsTrain}`, `${JSON.stringify(qrelsJson(world, train))}\n`);
    await writeText(`${outDir}/${QRECC_FILES.questionTypes}`, `${JSON.stringify(qreccQuestionTypes(test))}\n`);
    const seed = world.params.seed;
    const collection = await writeCollection(
      world, outDir, (part) => `collection-paragraph/wayback/mini-${String(part).padStart(5, "0")}.jsonl`, PASSAGES_PER_FILE,
      (p) => JSON.stringify({ id: qreccPassageId(seed, p), contents: p.text }), options,
    );
    return [QRECC_FILES.train, QRECC_FILES.test, QRECC_FILES.qrelsTest, QRECC_FILES.qrelsTrain, QRECC_FILES.questionTypes, ...collection];
  },
};
