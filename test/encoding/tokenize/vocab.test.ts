import { test } from "node:test";
import assert from "node:assert/strict";
import { parseVocabTxt, renderVocabTxt, vocabFromTokens } from "../../../steps/encoding/tokenize/vocab.ts";
import { resolveSpecialIds } from "../../../steps/encoding/tokenize/special-tokens.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";

test("parse vocab.txt: CRLF and missing final newline give the same vocab and digest", () => {
  const a = parseVocabTxt("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nx\n");
  const b = parseVocabTxt("[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n[MASK]\r\nx");
  assert.deepEqual(a.tokens, b.tokens);
  assert.equal(a.digest, b.digest);
  assert.equal(a.index.get("x"), 5);
  assert.equal(renderVocabTxt(a.tokens), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nx\n");
  assert.match(a.digest, /^[0-9a-f]{64}$/);
  assert.notEqual(a.digest, parseVocabTxt("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ny\n").digest);
});

test("bad vocabularies name the line and the fix", () => {
  assert.throws(() => parseVocabTxt("a\nb\na\n", "v.txt"), (e: unknown) => e instanceof InputError && e.line === 3 && /duplicate/.test(e.message));
  assert.throws(() => parseVocabTxt("a\n\nb\n", "v.txt"), (e: unknown) => e instanceof InputError && e.line === 2);
  assert.throws(() => parseVocabTxt("", "v.txt"), InputError);
  assert.throws(() => resolveSpecialIds(vocabFromTokens(["[UNK]", "[PAD]", "[CLS]", "[SEP]", "[MASK]"]).index), /\[PAD\] has id 1/);
  assert.throws(() => resolveSpecialIds(vocabFromTokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]"]).index), /no \[MASK\]/);
});

test("BERT layout special ids are looked up, not assumed", () => {
  const tokens = ["[PAD]", ...Array.from({ length: 99 }, (_, i) => `[unused${i}]`), "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
  assert.deepEqual(resolveSpecialIds(vocabFromTokens(tokens).index), { pad: 0, unk: 100, cls: 101, sep: 102, mask: 103 });
});
