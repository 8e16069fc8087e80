/**
 * The DPR extractive reader as steps:
 * - `prepare-dpr-reader-inputs` (in-process): train and dev reader examples -> the trainer's
 *   .npy inputs, tokenized in Node with the pipeline's WordPiece vocabulary (prepare.ts);
 * - `pretrain-dpr-reader` / `train-dpr-reader` (container, torch + numpy: qa.dpr_reader.train_reader) from a
 *   random tiny BERT or θ0's passage encoder (mini pre-training), an earlier reader (fine-tuning)
 *   or BERT weights (real data);
 * - `predict-dpr-reader` (in-process): the exported reader.onnx answers in Node (predict.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, file, type ContainerRuntime } from "../../../pipeline/engine/step.ts";
import { defineStepWith } from "../../../pipeline/engine/def-identity.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../../pipeline/engine/canonical.ts";
import { readVocabFile } from "../../encoding/tokenize/vocab.ts";
import { createBertTokenizer } from "../../encoding/tokenize/bert-tokenizer.ts";
import { TRAINING_IMAGE } from "../../training/steps.ts";
import { BERT, modelConfigParams } from "../../pytrain/model-configs.ts";
import { pythonArgv } from "../../pytrain/launch.ts";
import { TRAINING_OUTPUT_FILES } from "../../training/contract.ts";
import { paramsShape, READER_FIELDS } from "../config-schema.ts";
import { readReaderExamples, writeJsonLines } from "../reader-io.ts";
import { prepareReaderInputs } from "./prepare.ts";
import { openReader, predictOne, type ReaderPrediction } from "./predict.ts";
import { verifyReaderParity } from "./reader-parity.ts";
import type { ReaderPassageTokens } from "./inputs.ts";

const tokenizer = (vocabDir: string) => createBertTokenizer(readVocabFile(join(vocabDir, "vocab.txt")));

export const prepareDprReaderInputs = defineStep({
  id: "prepare-dpr-reader-inputs",
  version: 1,
  source: import.meta.url,
  description: "The DPR reader trainer's inputs: [CLS] X_t [SEP] title [SEP] passage token ids, candidates, has-answer, answer token spans.",
  params: z
    .object({
      maxLength: z.number().int().min(16).max(4096).default(384),
      maxQuestionLength: z.number().int().min(4).default(128),
      trainPassages: z.number().int().min(2).default(100),
      devPassages: z.number().int().min(1).default(50),
      maxSpans: z.number().int().min(1).default(10),
    })
    .strict(),
  inputs: { train: "qa:reader-data", dev: "qa:reader-data", vocab: "wordpiece:vocab" },
  outputs: { inputs: dir("qa:dpr-reader-inputs", "inputs") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const p = ctx.params;
      if (p.maxQuestionLength >= p.maxLength - 2) throw new InputError("maxQuestionLength leaves no room for the passage", { field: "maxQuestionLength", fix: "keep it well below maxLength" });
      const encoder = tokenizer(ctx.inputs.vocab);
      const train = await readReaderExamples(join(ctx.inputs.train, "examples.jsonl"));
      const dev = await readReaderExamples(join(ctx.inputs.dev, "examples.jsonl"));
      const counts = await prepareReaderInputs(encoder, train, dev, p, ctx.outputs.inputs);
      if (counts["trainWithPositive"] === 0) throw new InputError("no training question has a passage with its answer", { file: ctx.inputs.train, fix: "check the answers and the run (or add the gold passages)" });
      const meta = { format: "cspipe/dpr-reader-inputs@1", vocabDigest: encoder.vocabDigest, vocabSize: encoder.vocabSize, sepId: encoder.special.sep, clsId: encoder.special.cls, maxLength: p.maxLength, maxQuestionLength: p.maxQuestionLength, counts };
      writeFileSync(join(ctx.outputs.inputs, "meta.json"), canonicalJson(meta, 2) + "\n");
      ctx.log(Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(" "));
    },
  },
});

/** The config as params, less the run-level keys (steps/training/steps.ts says why). */
const { threads: _threads, world_size: _world, ...readerConfig } = paramsShape(READER_FIELDS);

/** The reader's vocabulary size comes from its inputs. */
const bertConfig = modelConfigParams(BERT, ["vocab_size"]);

function runtime(extra: readonly string[], gpuRequired: boolean): ContainerRuntime {
  return {
    type: "container",
    image: TRAINING_IMAGE,
    argv: pythonArgv("qa.dpr_reader.train_reader", ["--config", "{params}", "--inputs", "{in:inputs}", "--out", "{out:model}", ...extra]),
    pythonModules: ["torch", "numpy"],
    gpu: { count: 1, required: gpuRequired },
    // Mini-sized (the 20-epoch pre-training took 1,256 s); real: pipeline/definitions/resources.ts.
    resources: { cpus: 1, memoryGiB: 2, expectedMinutes: 30 },
  };
}

const modelOutputs = { model: dir("qa:dpr-reader", "reader") };
const cost = (p: { epochs: number }) => 5 + 10 * p.epochs;

/** From a random tiny BERT (the mini pre-training on mini-nq). */
export const pretrainDprReader = defineStep({
  id: "pretrain-dpr-reader",
  version: 1,
  source: import.meta.url,
  description: "Train a DPR reader from a random tiny BERT (vocabulary size from the inputs).",
  params: z.object({ ...readerConfig, init: z.object({ kind: z.literal("random"), bert_config: bertConfig }).strict() }).strict(),
  inputs: { inputs: "qa:dpr-reader-inputs" },
  outputs: modelOutputs,
  runtime: runtime([], false),
  cost,
});

/**
 * From θ0's passage encoder (the mini pre-training on mini-nq, θ0 standing in for a pre-trained
 * language model as it does for the retrievers): the trainer reads the encoder with `--init-bert`,
 * its shape from θ0's config.json, and refuses inputs tokenized with another vocabulary than the
 * one θ0 records (`cspipe.vocab_digest`). The heads start random.
 */
export const pretrainDprReaderFromTheta0 = defineStep({
  id: "pretrain-dpr-reader",
  version: 1,
  source: import.meta.url,
  description: "Train a DPR reader from θ0's passage encoder (same vocabulary, checked by digest).",
  params: z.object(readerConfig).strict(),
  inputs: { inputs: "qa:dpr-reader-inputs", theta0: "dpr:model" },
  outputs: modelOutputs,
  runtime: runtime(["--init-bert", `{in:theta0}/${TRAINING_OUTPUT_FILES.passageWeights}`], false),
  cost,
});

/** Fine-tuning from an earlier reader (mini) or from BERT weights (real data: bert-base-uncased, a GPU step). */
export function trainDprReaderDef(from: "reader" | "bert", gpuRequired: boolean) {
  return defineStepWith({ from, gpuRequired }, {
      id: "train-dpr-reader",
      version: 1,
      source: import.meta.url,
      description: "Fine-tune the DPR reader on a retriever's passages; the epoch with the best dev EM (ties: dev F1) is kept, the starting model among the candidates when start_is_candidate.",
      params: z.object(readerConfig).strict(),
      inputs: from === "reader" ? { inputs: "qa:dpr-reader-inputs", init: "qa:dpr-reader" } : { inputs: "qa:dpr-reader-inputs", init: "hf:bert" },
      outputs: modelOutputs,
      runtime: runtime(from === "reader" ? ["--init-from", "{in:init}"] : ["--init-bert", "{in:init}"], gpuRequired),
      cost,
    });
}

interface ReaderConfigJson {
  readonly cspipe?: { max_length?: number; max_question_length?: number; max_answer_length?: number; eval_top_docs?: number; vocab_digest?: string | null };
}

export const predictDprReader = defineStep({
  id: "predict-dpr-reader",
  version: 1,
  source: import.meta.url,
  description: "Answers of the DPR reader in Node (onnxruntime-node, its parity fixture checked first): best passage by selection logit, best span, whole words.",
  params: z.object({ topDocs: z.number().int().positive().optional(), threads: z.number().int().positive().default(1) }).strict(),
  inputs: { model: "qa:dpr-reader", data: "qa:reader-data", vocab: "wordpiece:vocab" },
  outputs: { predictions: file("qa:predictions", "predictions.jsonl") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const confPath = join(ctx.inputs.model, "config.json");
      const own = (JSON.parse(readFileSync(confPath, "utf8")) as ReaderConfigJson).cspipe ?? {};
      const need = (k: keyof typeof own) => {
        const v = own[k];
        if (typeof v !== "number") throw new InputError(`the reader's config has no cspipe.${k}`, { file: confPath, fix: "train the reader with train_reader.py" });
        return v;
      };
      const encoder = tokenizer(ctx.inputs.vocab);
      if (own.vocab_digest && own.vocab_digest !== encoder.vocabDigest) {
        throw new InputError("the reader was trained on another vocabulary", { file: confPath, field: "cspipe.vocab_digest", fix: "predict with the vocabulary the reader's inputs were tokenized with" });
      }
      const settings = { maxLength: need("max_length"), maxQuestionLength: need("max_question_length"), maxAnswerLength: need("max_answer_length"), topDocs: ctx.params.topDocs ?? need("eval_top_docs") };
      const examples = await readReaderExamples(join(ctx.inputs.data, "examples.jsonl"));
      const session = await openReader(join(ctx.inputs.model, "reader.onnx"), ctx.params.threads);
      try {
        ctx.log((await verifyReaderParity(session, ctx.inputs.model)).note);
      } catch (e) {
        await session.release();
        throw e;
      }
      const cache = new Map<string, ReaderPassageTokens>();
      const out: ReaderPrediction[] = [];
      try {
        for (const ex of examples) {
          out.push(await predictOne(session, encoder, ex, settings, cache));
          if (out.length % 100 === 0) ctx.progress(out.length, examples.length, "answer");
        }
      } finally {
        await session.release();
      }
      await writeJsonLines(ctx.outputs.predictions, out);
      ctx.log(`${out.length} answers from the top ${settings.topDocs} passages (max ${settings.maxAnswerLength} answer tokens)`);
    },
  },
});
