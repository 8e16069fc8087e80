/** FiD's training inputs for the tests, as prepare-fid-inputs lays them out: train ids and labels, dev ids and answers, pieces, meta. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeNpy } from "../../steps/lib/npy.ts";
import type { T5Tokenizer } from "../../steps/qa/fid/t5-tokenizer.ts";
import { answerLabels, fidMatrix } from "../../steps/qa/fid/inputs.ts";
import type { ReaderExample } from "../../steps/qa/reader-data.ts";

export interface FidShape {
  readonly nContext: number;
  readonly passageLength: number;
  readonly questionLength: number;
}

/** Writes `<dir>/inputs` (answers cut to `answerLength` tokens); returns its path and pieces.json's text. */
export function writeFidInputs(dir: string, tok: T5Tokenizer, train: readonly ReaderExample[], dev: readonly ReaderExample[], o: FidShape, answerLength: number): { inputs: string; pieces: string } {
  const inputs = join(dir, "inputs");
  mkdirSync(join(inputs, "train"), { recursive: true });
  mkdirSync(join(inputs, "dev"), { recursive: true });
  writeNpy(join(inputs, "train", "input_ids.npy"), { dtype: "int32", shape: [train.length, o.nContext, o.passageLength], data: fidMatrix(tok, train, o) });
  const labels = new Int32Array(train.length * answerLength).fill(-100);
  train.forEach((e, q) => labels.set(answerLabels(tok, e.answers[0]!, answerLength), q * answerLength));
  writeNpy(join(inputs, "train", "labels.npy"), { dtype: "int32", shape: [train.length, answerLength], data: labels });
  writeNpy(join(inputs, "dev", "input_ids.npy"), { dtype: "int32", shape: [dev.length, o.nContext, o.passageLength], data: fidMatrix(tok, dev, o) });
  writeFileSync(join(inputs, "dev", "answers.json"), JSON.stringify(dev.map((e) => e.answers)));
  const pieces = JSON.stringify(tok.spec.pieces.map((p) => [p.piece, p.type]));
  writeFileSync(join(inputs, "pieces.json"), pieces);
  writeFileSync(join(inputs, "meta.json"), JSON.stringify({ vocabDigest: tok.vocabDigest, vocabSize: tok.vocabSize }));
  return { inputs, pieces };
}
