/**
 * Issue 12, defect 8: `lock --update <name> --data-dir` refuses a file that is obviously not
 * the release instead of pinning it: a size far from the one the lock records, or a format
 * that does not parse as the release (hand-made files in the real formats pass).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { registerLockCommand } from "../../../pipeline/commands/lock.ts";
import { parseLockFile, readLockFile, serializeLockFile } from "../../../pipeline/engine/datasets-lock.ts";
import { findProjectRoot } from "../../../pipeline/engine/sources.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { checkPlausibleRelease } from "../../../steps/data/fetch/plausibility.ts";
import { tempDir } from "../../tmp.ts";

const lock = readLockFile(join(findProjectRoot(), "datasets.lock"));
const FIX = join(import.meta.dirname, "..", "formats", "fixtures");
const dir = tempDir("cspipe-plausible-");
const write = (name: string, data: string | Buffer): string => {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
};
const refused = (name: string, path: string, pattern: RegExp) =>
  assert.throws(() => checkPlausibleRelease(name, lock.entries[name]!, path), (e: unknown) => e instanceof InputError && e.file === path && pattern.test(e.message));

const HTML = "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n";

test("real-format files pass", () => {
  const ok: [string, string][] = [
    ["qrecc-scai-turns-train", join(FIX, "qrecc", "scai-qrecc21-train.json")],
    ["qrecc-qrels", join(FIX, "qrecc", "types", "qrels.txt")],
    ["qrecc-question-types", join(FIX, "qrecc", "types", "test_question_types.json")],
    ["orquac-train", join(FIX, "orquac", "train.txt")],
    ["topiocqa-wiki-segments", join(FIX, "topiocqa", "full_wiki_segments.tsv")],
    ["qrecc-collection", write("passages.zip", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]))],
    ["orquac-all-blocks", write("all_blocks.txt.gz", Buffer.from([0x1f, 0x8b, 0x08, 0]))],
    ["dpr-nq-question-encoder-config", write("config.json", '{"architectures": ["DPRQuestionEncoder"], "hidden_size": 768}')],
  ];
  for (const [name, path] of ok) assert.doesNotThrow(() => checkPlausibleRelease(name, lock.entries[name]!, path), name);
});

test("an HTML error page, a truncated file or another dataset's file is refused, naming what was expected", () => {
  refused("qrecc-scai-turns-test", write("scai-qrecc21-test-turns.json", HTML), /does not look like the release of 'qrecc-scai-turns-test'/);
  refused("qrecc-collection", write("passages.zip", HTML), /not a zip archive/);
  refused("orquac-qrels", write("qrels.txt.gz", "{}"), /not a gzip file/);
  refused("qrecc-question-types", write("types.json", '{"first": ["1_1"], "sometimes": []}'), /unknown label 'sometimes'/);
  refused("orquac-test", write("orquac-test.txt", '{"Conversation_no": 1, "Turn_no": 1, "Question": "x"}\n'), /line 1 lacks qid, question/);
  refused("topiocqa-wiki-segments", write("full_wiki_segments.tsv", "id\ttext\n1\tx\n"), /header is "id\\ttext"/);
  refused("dpr-nq-question-encoder", write("pytorch_model.bin", HTML), /not a PyTorch checkpoint/);
  refused("qrecc-qrels", write("empty.txt", ""), /is empty/);
});

test("the BERT vocabulary (pinned size 231,508): a far size is refused before its format is read", () => {
  refused("bert-base-uncased-vocab", write("vocab-small.txt", "[PAD]\n[UNK]\n"), /2 bytes|12 bytes, far from the 231508 bytes/);
  const words = ["[PAD]", ...Array.from({ length: 30_521 }, (_, i) => `tok${i}`)].join("\n") + "\n";
  assert.doesNotThrow(() => checkPlausibleRelease("bert-base-uncased-vocab", lock.entries["bert-base-uncased-vocab"]!, write("vocab.txt", words)));
});

test("lock --update --data-dir: the refusal leaves the lock untouched and exits 1", async () => {
  const lockPath = write("datasets.lock", serializeLockFile({ version: 1, entries: { "qrecc-scai-turns-test": { ...lock.entries["qrecc-scai-turns-test"]! } } }));
  const dataDir = tempDir("cspipe-plausible-dd-");
  writeFileSync(join(dataDir, lock.entries["qrecc-scai-turns-test"]!.file), HTML);
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command("cspipe").exitOverride();
  registerLockCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {} }, (c) => (code = c));
  const before = readFileSync(lockPath, "utf8");
  await program.parseAsync(["lock", "--update", "qrecc-scai-turns-test", "--data-dir", dataDir, "--lock", lockPath], { from: "user" });
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.match(stderr, /does not look like the release of 'qrecc-scai-turns-test'.*not pinned/);
  assert.equal(readFileSync(lockPath, "utf8"), before);
  assert.equal(parseLockFile(before).entries["qrecc-scai-turns-test"]?.sha256, null);
});
