/**
 * The extract-qa-references step on raw directories laid out as the releases lay them out: TopiOCQA's
 * gold answers under either of the names its releases give the dev file (the original
 * `topiocqa_dev.json`, a JSON array; the Hugging Face copy `topiocqa_valid.jsonl`), refused when
 * both or neither are there.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { extractReferencesDef } from "../../steps/qa/steps.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { tempDir } from "../tmp.ts";

const HF_DEV = join(import.meta.dirname, "..", "data", "formats", "fixtures", "topiocqa", "topiocqa_valid.jsonl");
const ORIGINAL_DEV = join(import.meta.dirname, "fixtures", "topiocqa_dev.json");
const NAMES = ["topiocqa_dev.json", "topiocqa_valid.jsonl"];

async function extract(raw: string): Promise<{ qid: string; answers: string[]; format: string }[]> {
  const runtime = extractReferencesDef("raw:topiocqa").runtime;
  if (runtime.type !== "in-process") throw new Error("extract-qa-references runs in process");
  const out = join(raw, "..", "references.jsonl");
  await runtime.run({
    params: { files: NAMES }, inputs: { raw }, outputs: { references: out },
    log: () => {}, progress: () => {}, signal: new AbortController().signal, settings: {}, workDir: raw, scratchDir: raw, datasets: {},
    inputKeys: { raw: { key: "k", stepId: "assemble-raw-topiocqa", kind: "raw:topiocqa" } },
  } as never);
  return readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { qid: string; answers: string[]; format: string });
}

function rawWith(files: Record<string, string>): string {
  const raw = join(tempDir("qa-refs-"), "raw");
  for (const [to, from] of Object.entries(files)) {
    mkdirSync(join(raw, to, ".."), { recursive: true });
    copyFileSync(from, join(raw, to));
  }
  return raw;
}

test("TopiOCQA's dev answers from the Hugging Face copy (JSONL) beside the all_history files", async () => {
  const refs = await extract(rawWith({ "topiocqa_valid.jsonl": HF_DEV, "data/retriever/all_history/dev.json": ORIGINAL_DEV }));
  assert.deepEqual(refs.slice(0, 2).map((r) => [r.qid, r.answers]), [["5_1", ["a novel"]], ["5_2", ["Frank Herbert"]]]);
  assert.ok(refs.every((r) => r.format === refs[0]!.format));
});

test("the original release's name is read as well; both names at once, or neither, are refused naming them", async () => {
  assert.ok((await extract(rawWith({ "topiocqa_dev.json": ORIGINAL_DEV }))).length > 0);
  await assert.rejects(extract(rawWith({ "topiocqa_dev.json": ORIGINAL_DEV, "x/topiocqa_valid.jsonl": HF_DEV })), (e: unknown) => e instanceof InputError && /2 files named topiocqa_dev\.json or topiocqa_valid\.jsonl: topiocqa_dev\.json, x\/topiocqa_valid\.jsonl/.test(e.message));
  await assert.rejects(extract(rawWith({ "other.json": ORIGINAL_DEV })), (e: unknown) => e instanceof InputError && /0 files named topiocqa_dev\.json or topiocqa_valid\.jsonl/.test(e.message));
});
