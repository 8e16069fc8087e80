/** QReCC (Anantha et al. 2021), with the question types and test qrels of the paper's authors. */
import { preprocessQrecc } from "../preprocess/qrecc.ts";
import type { DatasetDescriptor } from "./descriptor.ts";

export const qrecc = {
  name: "qrecc",
  label: "QReCC",
  layout: {
    turns: { train: "scai-qrecc21-training-turns.json", test: "scai-qrecc21-test-turns.json" },
    derived: { dev: "train" },
    collection: /^(.*\/)?collection-paragraph\/.*\.jsonl(\.gz)?$/,
    qrels: { test: "qrels.txt", train: "qrels_train.txt" },
    labels: { file: "test_question_types.json", split: "test" },
  },
  rawParts: [
    { entry: "qrecc-scai-turns-train", from: "scai-qrecc21-training-turns.json", to: "scai-qrecc21-training-turns.json", part: "turns", splits: ["train"] },
    { entry: "qrecc-scai-turns-test", from: "scai-qrecc21-test-turns.json", to: "scai-qrecc21-test-turns.json", part: "turns", splits: ["test"] },
    // passages.zip unpacks to collection-paragraph/{commoncrawl,wayback,wayback-backfill}/*.jsonl
    { entry: "qrecc-collection", from: "collection-paragraph", to: "collection-paragraph", part: "collection" },
    // the authors' test qrels and question-type labels (naver-ai/cs-shortcut assets/qrecc)
    { entry: "qrecc-qrels", from: "cs-shortcut-qrecc-qrels.txt", to: "qrels.txt", part: "turns", splits: ["test"] },
    { entry: "qrecc-question-types", from: "cs-shortcut-qrecc-test-question-types.json", to: "test_question_types.json", part: "turns", splits: ["test"] },
  ],
  collectionFormat: "qrecc-jsonl",
  preprocessor: preprocessQrecc,
  // The dev cut is the authors' 2,000 conversations; dev-split.ts clamps it to 20% of the train
  // conversations, which scales it down on the mini train set (60 of ~300) and leaves it at
  // exactly 2,000 on the real one (~10.8k conversations). The labels of the test split (the
  // mini generator writes the same file) are the breakdown (labelsMode "override", the step's
  // default) and the computed types are reported beside them.
  preprocessParams: { devConversations: 2000 },
  questionTypes: { first: "first", switch: "switch", noSwitch: "no-switch" },
  questionTypeOrder: ["first", "switch", "no-switch"],
  switchTurns: true,
  evaluation: { split: "test", metrics: ["mrr", "recall@10", "recall@100"] },
  // The cutoff the paper reports QReCC's gains in ("by 9.7 in Recall@10 on QReCC", abstract, Section 5.2).
  claimMetric: "recall@10",
  hasTitles: false,
  inputForm: "history",
  bm25: { k1: 0.82, b: 0.68 },
  // Truth_answer of the SCAI-QReCC-21 turn files (dev is cut out of the training file).
  qa: { scoring: "qrecc", references: { test: ["scai-qrecc21-test-turns.json"], dev: ["scai-qrecc21-training-turns.json"] }, maxAnswerTokens: 30 },
} as const satisfies DatasetDescriptor<"qrecc">;
