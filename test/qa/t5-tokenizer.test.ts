/**
 * T5 SentencePiece tokenization in Node against the sentencepiece library itself: a Unigram model
 * trained by train_spm.py (deterministic bytes), tokenized both ways on text with the normalizer's
 * quirks (NFKC full-width letters and ligatures, tabs, non-breaking and ideographic spaces,
 * zero-width characters, unknown characters, control-piece look-alikes); spiece.model and an
 * equivalent tokenizer.json read alike.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadT5Tokenizer } from "../../steps/qa/fid/t5-tokenizer.ts";
import { SPM, trainTinySpm } from "./spm-fixture.ts";
import { PYTHON } from "./python.ts";
import { tempDir } from "../tmp.ts";

const TEXTS = ["the company acme", "  Ａｃｍｅ   was\tfounded\n by ﬁnance ", "café naïve", "e-mail don't 40%", "unknown ZZZ ÿ 字", "</s> <pad>", "", "   ", "x\u00a0y\u200bz", "Hello\u3000World ①", "Smith's"];

test("the Unigram trainer is deterministic and Node tokenizes exactly as sentencepiece", () => {
  const dir = tempDir("cspipe-spm-");
  const model = trainTinySpm(dir);
  const again = spawnSync(PYTHON, [...SPM, "--corpus", join(dir, "corpus.txt"), "--out", join(dir, "spm2"), "--vocab-size", "120"], { encoding: "utf8" });
  assert.equal(again.status, 0);
  assert.ok(readFileSync(model).equals(readFileSync(join(dir, "spm2", "spiece.model"))), "same corpus and options, same bytes");
  const tok = loadT5Tokenizer(model);
  assert.deepEqual([tok.padId, tok.eosId, tok.unkId], [0, 1, 2]);
  const py = JSON.parse(spawnSync(PYTHON, [...SPM, "--encode", model], { input: JSON.stringify(TEXTS), encoding: "utf8" }).stdout) as number[][];
  TEXTS.forEach((t, i) => assert.deepEqual(tok.encode(t), py[i], JSON.stringify(t)));
  assert.equal(tok.decode(tok.encode("  Ａｃｍｅ   was\tfounded ")), "Acme was founded");
  assert.equal(tok.decode([...tok.encode("paris"), tok.eosId, tok.padId]), "paris");
  // The same model as tokenizer.json (T5's layout: Precompiled normalizer, Metaspace, special added tokens).
  const spec = tok.spec;
  const json = {
    added_tokens: [{ id: 0, content: "<pad>", special: true }, { id: 1, content: "</s>", special: true }, { id: 2, content: "<unk>", special: true }],
    normalizer: { type: "Sequence", normalizers: [{ type: "Precompiled", precompiled_charsmap: Buffer.from(spec.precompiledCharsmap!).toString("base64") }, { type: "Replace", pattern: { Regex: " {2,}" }, content: " " }] },
    pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "WhitespaceSplit" }, { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }] },
    model: { type: "Unigram", unk_id: 2, vocab: spec.pieces.map((p) => [p.piece, p.score]) },
  };
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(json));
  const fromJson = loadT5Tokenizer(join(dir, "tokenizer.json"));
  for (const t of TEXTS) assert.deepEqual(fromJson.encode(t), tok.encode(t), JSON.stringify(t));
});
