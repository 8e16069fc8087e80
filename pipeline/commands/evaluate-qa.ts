/**
 * `evaluate-qa`: score the answers of any QA system the way QReCC and TopiOCQA score them.
 *
 *   evaluate-qa --predictions P --references R [--dataset qrecc|topiocqa|max] [--keep-empty-truth]
 *               [--labels L] [--split S] [--json] [--out DIR]
 *
 * Predictions: a SCAI-QReCC-21 run (Conversation_no, Turn_no, Model_answer), TopiOCQA's reader
 * results (conv_id, turn_id, predictions) or JSONL {qid, prediction}. References: the SCAI ground
 * truth (Conversation_no, Turn_no, Truth_answer), TopiOCQA's raw turn files (Answer +
 * Additional_answers) or JSONL {qid, answers}. The reference format picks the rule (SCAI ->
 * qrecc, TopiOCQA -> topiocqa, JSONL -> max) unless --dataset names one (steps/qa/scoring.ts).
 * --labels adds breakdowns by question type and domain (the files `evaluate` takes).
 * Exit codes: 0 ok, 2 bad usage or bad input (the message names the file, line, field and fix).
 */
import { Option, type Command } from "commander";

export interface EvaluateQaIO {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

interface Flags {
  predictions: string;
  references: string;
  dataset?: "qrecc" | "topiocqa" | "max";
  keepEmptyTruth: boolean;
  labels?: string;
  split: string;
  json: boolean;
  out?: string;
}

export function registerEvaluateQaCommand(program: Command, io: EvaluateQaIO, setExitCode: (code: number) => void): void {
  program
    .command("evaluate-qa")
    .description("score QA predictions with EM and F1 as SCAI-QReCC-21 and TopiOCQA score them (SQuAD normalisation)")
    .requiredOption("--predictions <file>", "SCAI run [{Conversation_no, Turn_no, Model_answer}], TopiOCQA reader results [{conv_id, turn_id, predictions}] or JSONL {qid, prediction}")
    .requiredOption("--references <file>", "SCAI ground truth [{Conversation_no, Turn_no, Truth_answer}], TopiOCQA raw turns [{Conversation_no, Turn_no, Answer, Additional_answers}] or JSONL {qid, answers}")
    .addOption(new Option("--dataset <rule>", "scoring rule (default: from the reference format)").choices(["qrecc", "topiocqa", "max"]))
    .option("--keep-empty-truth", "qrecc: score turns whose Truth_answer is empty (the shared task skips them)", false)
    .option("--labels <file>", "question-type labels for breakdowns: {first|switch|no-switch|trec|quac|nq: [qids]} or TopiOCQA's {1st|tc|ts: [qids]}")
    .option("--split <name>", "split name recorded in metrics.json", "all")
    .option("--json", "print the metrics as JSON", false)
    .option("--out <dir>", "also write <dir>/metrics.json")
    .action(async (flags: Flags) => {
      try {
        io.stdout.write(await evaluateQa(flags));
      } catch (e) {
        const { InputError } = await import("../engine/errors.ts");
        if (!(e instanceof InputError)) throw e;
        io.stderr.write(`error: ${e.message}\n`);
        setExitCode(2);
      }
    });
}

async function evaluateQa(flags: Flags): Promise<string> {
  const { resolve, join } = await import("node:path");
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { readPredictions, readReferences, SCORING_OF_REFERENCES } = await import("../../steps/qa/formats.ts");
  const { evaluateAnswers, qaMetricsFile } = await import("../../steps/qa/evaluate.ts");
  const { QA_SCORING } = await import("../../steps/qa/scoring.ts");
  const { parseLabels } = await import("../../steps/eval/breakdown.ts");
  const { readJsonFile } = await import("../../steps/eval/line-reader.ts");
  const { canonicalJson } = await import("../engine/canonical.ts");
  const { renderQaReport } = await import("../../steps/qa/report-text.ts");
  const { checkInputFile } = await import("../../steps/lib/text.ts");
  const predPath = resolve(flags.predictions);
  const refPath = resolve(flags.references);
  checkInputFile(predPath, "--predictions");
  checkInputFile(refPath, "--references");
  if (flags.labels !== undefined) checkInputFile(resolve(flags.labels), "--labels");
  if (flags.out !== undefined) (await import("./paths.ts")).checkOutputDir(resolve(flags.out), "--out");
  const preds = readPredictions(predPath);
  const refs = readReferences(refPath);
  const scoring = flags.dataset ?? SCORING_OF_REFERENCES[refs.format];
  const labels = flags.labels === undefined ? new Map() : parseLabels(await readJsonFile(resolve(flags.labels)), resolve(flags.labels)).labels;
  const ev = evaluateAnswers(preds.predictions, refs.references, scoring, { keepEmptyTruth: flags.keepEmptyTruth });
  const file = qaMetricsFile(flags.split, ev, labels);
  if (flags.out !== undefined) {
    mkdirSync(resolve(flags.out), { recursive: true });
    writeFileSync(join(resolve(flags.out), "metrics.json"), canonicalJson(file, 2) + "\n");
  }
  const files = { predictions: predPath, predictionFormat: preds.format, references: refPath, referenceFormat: refs.format };
  if (flags.json) return `${JSON.stringify({ ...file, files }, null, 2)}\n`;
  return renderQaReport(file, `predictions ${predPath} (${preds.format}), references ${refPath} (${refs.format}); rule ${scoring}: ${QA_SCORING[scoring].description}`, flags.labels !== undefined);
}
