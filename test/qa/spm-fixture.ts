/** A tiny SentencePiece Unigram model trained by qa.fid.train_spm for the T5 tests. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { PYTHON, program } from "./python.ts";

export const SPM = program("qa.fid.train_spm");

export function trainTinySpm(dir: string, vocabSize = 120): string {
  const r = mulberry32(1);
  const words = "the company acme was founded by john smith long ago it is based in paris and oslo rome quito history of firm story café naïve ﬁnance Ａｃｍｅ 2019 40% e-mail don't".split(" ");
  const lines = Array.from({ length: 2000 }, () => Array.from({ length: 3 + Math.floor(r() * 12) }, () => words[Math.floor(r() * words.length)]).join(" "));
  writeFileSync(join(dir, "corpus.txt"), lines.join("\n") + "\n");
  const res = spawnSync(PYTHON, [...SPM, "--corpus", join(dir, "corpus.txt"), "--out", join(dir, "spm"), "--vocab-size", String(vocabSize)], { encoding: "utf8", timeout: 120_000 });
  assert.equal(res.status, 0, res.stderr);
  return join(dir, "spm", "spiece.model");
}
