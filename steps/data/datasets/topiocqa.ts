/** TopiOCQA (Adlakha et al. 2022): topic-switching conversations over a Wikipedia segment collection. */
import { preprocessTopiocqa } from "../preprocess/topiocqa.ts";
import type { DatasetDescriptor } from "./descriptor.ts";

export const topiocqa = {
  name: "topiocqa",
  label: "TopiOCQA",
  layout: {
    // The DPR-style all_history files carry the gold passages (the raw turn files do not).
    turns: { train: "all_history/train.json", dev: "all_history/dev.json" },
    collection: /^(.*\/)?full_wiki_segments\.tsv$/,
  },
  rawParts: [
    // the DPR-style AllHistory files carry the gold passages (download_data.py's data/retriever/...)
    { entry: "topiocqa-all-history-train", from: "topiocqa_all_history_retriever_train.json", to: "data/retriever/all_history/train.json", part: "turns", splits: ["train"] },
    { entry: "topiocqa-all-history-dev", from: "topiocqa_all_history_retriever_dev.json", to: "data/retriever/all_history/dev.json", part: "turns", splits: ["dev"] },
    // Answer + Additional_answers of the dev turns, for end-to-end QA (the all_history files keep one answer)
    { entry: "topiocqa-turns-dev", from: "topiocqa_valid.jsonl", to: "topiocqa_valid.jsonl", part: "answers", splits: ["dev"] },
    { entry: "topiocqa-wiki-segments", from: "full_wiki_segments.tsv", to: "data/wikipedia_split/full_wiki_segments.tsv", part: "collection" },
  ],
  collectionFormat: "topiocqa-tsv",
  preprocessor: preprocessTopiocqa,
  preprocessParams: {},
  // computed from the gold article: topic-switch when it differs from the previous turn's
  questionTypes: { first: "first", switch: "topic-switch", noSwitch: "topic-continues" },
  questionTypeOrder: ["first", "topic-continues", "topic-switch"],
  switchTurns: true,
  evaluation: { split: "dev", metrics: ["mrr", "recall@5", "recall@20", "recall@100"] },
  // The cutoff the paper reports TopiOCQA's gains in ("12.4 in Recall@5 on TopiOCQA", abstract, Section 5.2).
  claimMetric: "recall@5",
  hasTitles: true,
  inputForm: "history",
  bm25: { k1: 0.9, b: 0.4 },
  // Answer + Additional_answers of the raw turn file (the all_history files keep one answer per turn).
  qa: { scoring: "topiocqa", references: { dev: ["topiocqa_dev.json", "topiocqa_valid.jsonl"] }, maxAnswerTokens: 10 },
} as const satisfies DatasetDescriptor<"topiocqa">;
