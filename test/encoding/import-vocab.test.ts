/**
 * import-bert-vocab: a BERT-layout vocab.txt (special tokens at BERT-base's kind of ids, not
 * the trained 0..4 layout) becomes a wordpiece:vocab that tokenizes exactly as expected;
 * bad vocabularies fail with the file, the line and the fix.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, use } from "../../pipeline/engine/step.ts";
import { parseLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { BERT_VOCAB_LOCK_ENTRY, BERT_VOCAB_LOCK_FILE, checkBertVocab, importBertVocab } from "../../steps/encoding/import-vocab.ts";
import { readVocabFile } from "../../steps/encoding/tokenize/vocab.ts";
import { createBertTokenizer } from "../../steps/encoding/tokenize/bert-tokenizer.ts";
import { buildBertTokenizerJson } from "../../steps/encoding/tokenize/bert-tokenizer-json.ts";
import { project, registry, ROOT, run, tempDir } from "../engine/helpers.ts";

const FIXTURE_SOURCE = join(tempDir(), "fixture.ts");
writeFileSync(FIXTURE_SOURCE, "export const fixture = 1;\n");

// ids:            0         1            2        3        4        5         6      7      8      9     10     11     12    13     14    15
const VOCAB = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "dog", "##s", ".", "un", "##seen"];

/** Stands in for fetch-dataset: writes `text` under the lock entry's file name. */
const fakeFetch = defineStep({
  id: "test-fake-fetch-vocab",
  version: 1,
  source: FIXTURE_SOURCE,
  params: z.object({ name: z.string(), text: z.string() }).strict(),
  inputs: {},
  outputs: { files: dir("fetched", "files") },
  runtime: { type: "in-process", run: async (ctx) => writeFileSync(join(ctx.outputs.files, ctx.params.name), ctx.params.text) },
});

async function importVocab(text: string, name = BERT_VOCAB_LOCK_FILE) {
  const p = project(registry({ t: () => [use(importBertVocab, { name: "import", inputs: { files: use(fakeFetch, { params: { name, text }, inputs: {} }).out.files } })] }));
  const r = await run(p, ["t"]);
  const result = "result" in r.outcome ? r.outcome.result : undefined;
  const entry = result?.results.get("import")?.entry;
  return { ok: r.outcome.ok, dir: entry ? p.store.outputPath(entry, "vocab") : undefined, failure: result?.failures.find((f) => f.step === "import") };
}

test("the default file name is the datasets.lock entry's file", () => {
  const lock = parseLockFile(readFileSync(join(ROOT, "datasets.lock"), "utf8"), "datasets.lock");
  assert.equal(lock.entries[BERT_VOCAB_LOCK_ENTRY]?.file, BERT_VOCAB_LOCK_FILE);
});

test("import-bert-vocab writes vocab.txt (canonical) and tokenizer.json; the tokenizer gives hand-computed ids", async () => {
  // CRLF line ends and no final newline: re-written canonically, ids unchanged
  const r = await importVocab(VOCAB.join("\r\n"));
  assert.equal(r.ok, true, JSON.stringify(r.failure));
  assert.equal(readFileSync(join(r.dir!, "vocab.txt"), "utf8"), VOCAB.map((t) => `${t}\n`).join(""));
  const vocab = readVocabFile(join(r.dir!, "vocab.txt"));
  assert.deepEqual(JSON.parse(readFileSync(join(r.dir!, "tokenizer.json"), "utf8")), buildBertTokenizerJson(vocab));
  assert.ok(readFileSync(join(r.dir!, "tokenizer_config.json"), "utf8").includes('"do_lower_case": true'));
  const tok = createBertTokenizer(vocab);
  assert.deepEqual(tok.special, { pad: 0, unk: 2, cls: 3, sep: 4, mask: 5 });
  // the(6) dog(11) ##s(12) sat(8) on(9) the(6) mat(10) .(13) un(14) ##seen(15) zebra -> [UNK](2)
  assert.deepEqual(tok.tokenize("The DOGS sat on the mat. Unseen zebra"), ["the", "dog", "##s", "sat", "on", "the", "mat", ".", "un", "##seen", "[UNK]"]);
  assert.deepEqual(tok.encode("The DOGS sat on the mat. Unseen zebra"), [6, 11, 12, 8, 9, 6, 10, 13, 14, 15, 2]);
});

test("a duplicate token is a bad-input failure naming its line and the first one", async () => {
  const r = await importVocab([...VOCAB.slice(0, 9), "cat", ...VOCAB.slice(9)].join("\n") + "\n");
  assert.equal(r.ok, false);
  const f = r.failure;
  assert.ok(f?.reason === "bad-input", JSON.stringify(f));
  assert.equal(f.line, 10);
  assert.ok(f.file?.endsWith(`/files/${BERT_VOCAB_LOCK_FILE}`) === true, f.file);
  assert.match(f.message, /:10: duplicate token "cat" \(first on line 8\)/);
});

test("checkBertVocab: [PAD] not first, a missing special token, an empty file", () => {
  const err = (text: string) => {
    try {
      checkBertVocab(text, "v.txt");
    } catch (e) {
      return (e as Error).message;
    }
    return "no error";
  };
  assert.equal(err(["[UNK]", "[PAD]", "[CLS]", "[SEP]", "[MASK]"].join("\n")), "v.txt:2: [PAD] has id 1, the token matrices pad with 0 Fix: put [PAD] on the first line of vocab.txt");
  assert.match(err(["[PAD]", "[UNK]", "[CLS]", "[SEP]"].join("\n")), /^v\.txt: vocabulary has no \[MASK\] token/);
  assert.match(err(""), /^v\.txt: vocabulary is empty/);
  assert.match(err("[PAD]\n\n[UNK]"), /^v\.txt:2: empty token/);
  assert.deepEqual(checkBertVocab(VOCAB.join("\n"), "v.txt").special, { pad: 0, unk: 2, cls: 3, sep: 4, mask: 5 });
});

test("a fetched directory without the file names the directory, the expected file and the fix", async () => {
  const r = await importVocab(VOCAB.join("\n"), "vocab.txt");
  const f = r.failure;
  assert.ok(f?.reason === "bad-input" && f.field === "file", JSON.stringify(f));
  assert.ok(f.file?.endsWith("/files") === true, f.file);
  assert.match(f.message, new RegExp(`has no '${BERT_VOCAB_LOCK_FILE}' \\(it holds: vocab\\.txt\\)`));
  assert.match(f.fix ?? "", /lockedFiles\("bert-base-uncased-vocab"\)/);
});

