/**
 * What every preprocessing step declares and logs (the conversational datasets and NQ),
 * in a module of its own so a step's source closure does not grow by sharing it.
 */
import { file } from "../../../pipeline/engine/step.ts";
import type { PreprocessWarning } from "./common.ts";

/** The normalized tables every preprocessing step writes (conversational datasets and NQ). */
export const PREPROCESS_OUTPUTS = {
  turns: file("parquet:turns", "turns.parquet"),
  passages: file("parquet:passages", "passages.parquet"),
  qrels: file("parquet:qrels", "qrels.parquet"),
  report: file("json:preprocess-report", "report.json"),
};

/** One log line per counted preprocessing warning. */
export function logWarnings(log: (line: string) => void, warnings: readonly PreprocessWarning[]): void {
  for (const w of warnings) log(`warning ${w.code} x${w.count}: ${w.message} (e.g. ${w.examples.join("; ")})`);
}


/** What `preprocess-collection-<dataset>` writes. */
export const COLLECTION_OUTPUTS = {
  passages: file("parquet:passages", "passages.parquet"),
  report: file("json:collection-report", "report.json"),
};

/** What a conversational turn preprocessing step writes (question-types.* : see question-type-report.ts). */
export const TURN_OUTPUTS = {
  turns: file("parquet:turns", "turns.parquet"),
  qrels: file("parquet:qrels", "qrels.parquet"),
  report: file("json:preprocess-report", "report.json"),
  questionTypes: file("json:question-types", "question-types.json"),
  questionTypesReport: file("text:question-types-md", "question-types.md"),
};
