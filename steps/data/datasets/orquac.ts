/** OR-QuAC (Qu et al. 2020): QuAC's conversations opened up to retrieval over Wikipedia blocks. */
import { preprocessOrquac } from "../preprocess/orquac.ts";
import type { DatasetDescriptor } from "./descriptor.ts";

export const orquac = {
  name: "orquac",
  label: "OR-QuAC",
  layout: {
    turns: { train: "train.txt", dev: "dev.txt", test: "test.txt" },
    collection: /^(.*\/)?all_blocks\.txt$/,
    qrels: { all: "qrels.txt" },
  },
  rawParts: [
    { entry: "orquac-train", from: "orquac-train.txt", to: "preprocessed/train.txt", part: "turns", splits: ["train"] },
    { entry: "orquac-dev", from: "orquac-dev.txt", to: "preprocessed/dev.txt", part: "turns", splits: ["dev"] },
    { entry: "orquac-test", from: "orquac-test.txt", to: "preprocessed/test.txt", part: "turns", splits: ["test"] },
    { entry: "orquac-all-blocks", from: "all_blocks.txt", to: "all_blocks.txt", part: "collection" },
    { entry: "orquac-qrels", from: "qrels.txt", to: "qrels.txt", part: "turns" },
  ],
  collectionFormat: "orquac-jsonl",
  preprocessor: preprocessOrquac,
  preprocessParams: {},
  // computed from the gold passages of consecutive turns (the preprocess step's typeRule)
  questionTypes: { first: "first", switch: "switch", noSwitch: "no-switch" },
  questionTypeOrder: ["first", "switch", "no-switch"],
  // every turn of a dialog has the same gold block
  switchTurns: false,
  evaluation: { split: "test", metrics: ["mrr", "recall@5"] },
  // The first column of final Table 3 (the text names no metric for OR-QuAC).
  claimMetric: "mrr",
  hasTitles: true,
  // Only the questions Q_t, as the paper.
  inputForm: "questions",
  bm25: { k1: 0.9, b: 0.4 },
} as const satisfies DatasetDescriptor<"orquac">;
