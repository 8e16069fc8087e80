import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkVocabFits, checkVocabFitsDirs } from "../../steps/dense/vocab-fit.ts";
import { InputError } from "../../pipeline/engine/errors.ts";

test("tokens from a larger vocabulary than the model's embedding table are refused, naming both files and the fix", () => {
  checkVocabFits({ vocabSize: 30522, file: "t" }, { vocabSize: 30522, file: "m" });
  checkVocabFits({ vocabSize: 8000, file: "t" }, { vocabSize: 30522, file: "m" });
  assert.throws(
    () => checkVocabFits({ vocabSize: 30522, file: "tokens/meta.json" }, { vocabSize: 8000, file: "model/config.json" }),
    (e: unknown) =>
      e instanceof InputError &&
      /vocabulary of 30522 ids, but the model's embedding table has 8000 rows \(model\/config\.json\)/.test(e.message) &&
      e.file === "tokens/meta.json" &&
      /import-bert-vocab/.test(e.fix ?? ""),
  );
});

test("the directory check reads meta.json and config.json, and skips when either size is not recorded", () => {
  const dir = mkdtempSync(join(tmpdir(), "cspipe-vocab-fit-"));
  try {
    const tokens = join(dir, "tokens");
    const model = join(dir, "model");
    for (const d of [tokens, model]) mkdirSync(d);
    checkVocabFitsDirs(tokens, model); // nothing recorded: skipped
    writeFileSync(join(tokens, "meta.json"), JSON.stringify({ vocabSize: 9000 }));
    checkVocabFitsDirs(tokens, model); // model size unknown (e.g. an ONNX-only directory): skipped
    writeFileSync(join(model, "config.json"), JSON.stringify({ vocab_size: 9000 }));
    checkVocabFitsDirs(tokens, model);
    writeFileSync(join(model, "config.json"), JSON.stringify({ vocab_size: 8999 }));
    assert.throws(() => checkVocabFitsDirs(tokens, model), /vocabulary of 9000 ids, but the model's embedding table has 8999 rows/);
    writeFileSync(join(model, "config.json"), JSON.stringify({ vocab_size: "big" }));
    assert.throws(() => checkVocabFitsDirs(tokens, model), /vocab_size must be a positive integer, got "big"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

