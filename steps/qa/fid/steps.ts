/**
 * FiD as steps:
 * - `export-text-corpus` + `train-sentencepiece` (mini): a Unigram vocabulary in T5's layout
 *   trained on the pre-training collection and questions (qa.fid.train_spm, the sentencepiece module);
 *   `import-spiece-model` (real data): the locked t5-base spiece.model as the same artifact;
 * - `prepare-fid-inputs` / `prepare-fid-eval-inputs` (in-process): tokenized in Node (inputs.ts);
 * - `pretrain-fid` / `train-fid` (container, torch + numpy: qa.fid.fid train) and `predict-fid`
 *   (container: qa.fid.fid predict, greedy decoding) -> predictions.jsonl.
 */
import { copyFileSync, createWriteStream, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, file, type ContainerRuntime } from "../../../pipeline/engine/step.ts";
import { defineStepWith } from "../../../pipeline/engine/def-identity.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { canonicalJson } from "../../../pipeline/engine/canonical.ts";
import { readParquetRows } from "../../lib/parquet.ts";
import { writeNpy } from "../../lib/npy.ts";
import type { PassageRow, TurnRow } from "../../data/schemas.ts";
import { TRAINING_IMAGE } from "../../training/steps.ts";
import { modelConfigParams, T5 } from "../../pytrain/model-configs.ts";
import { pythonArgv } from "../../pytrain/launch.ts";
import { FID_FIELDS, paramsShape } from "../config-schema.ts";
import { readReaderExamples } from "../reader-io.ts";
import { loadT5Tokenizer, type T5Tokenizer } from "./t5-tokenizer.ts";
import { answerLabels, fidMatrix } from "./inputs.ts";

export const exportTextCorpus = defineStep({
  id: "export-text-corpus",
  version: 1,
  source: import.meta.url,
  description: "Passage titles and texts and the questions and answers of some splits, one line each (a vocabulary's training text).",
  params: z.object({ splits: z.array(z.string()).min(1).default(["train"]) }).strict(),
  inputs: { passages: "parquet:passages", turns: "parquet:turns" },
  outputs: { corpus: file("text:corpus", "corpus.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const ws = createWriteStream(ctx.outputs.corpus);
      let lines = 0;
      const line = async (s: string | null) => {
        const t = (s ?? "").replace(/\s+/g, " ").trim();
        if (t === "") return;
        lines++;
        if (!ws.write(t + "\n")) await once(ws, "drain");
      };
      for await (const p of readParquetRows<PassageRow>(ctx.inputs.passages)) {
        await line(p.title);
        await line(p.text);
      }
      const splits = new Set(ctx.params.splits);
      for await (const t of readParquetRows<TurnRow>(ctx.inputs.turns)) {
        if (!splits.has(t.split)) continue;
        await line(t.question);
        await line(t.answer);
      }
      ws.end();
      await once(ws, "finish");
      if (lines === 0) throw new InputError("no text to train a vocabulary on", { file: ctx.inputs.passages });
      ctx.log(`${lines} lines`);
    },
  },
});

export const trainSentencePiece = defineStep({
  id: "train-sentencepiece",
  version: 1,
  source: import.meta.url,
  description: "A SentencePiece Unigram vocabulary in T5's layout (<pad> 0, </s> 1, <unk> 2, nmt_nfkc).",
  params: z.object({ vocab_size: z.number().int().min(16).default(4000) }).strict(),
  inputs: { corpus: "text:corpus" },
  outputs: { model: dir("spm:model", "spm") },
  runtime: {
    type: "container",
    image: TRAINING_IMAGE,
    argv: pythonArgv("qa.fid.train_spm", ["--corpus", "{in:corpus}", "--out", "{out:model}", "--params", "{params}"]),
    pythonModules: ["sentencepiece"],
    pip: ["sentencepiece==0.1.99"],
    resources: { cpus: 1, memoryGiB: 1, expectedMinutes: 5 },
  } satisfies ContainerRuntime,
});

export const importSpieceModel = defineStep({
  id: "import-spiece-model",
  version: 1,
  source: import.meta.url,
  description: "A locked SentencePiece model (t5-base's spiece.model) as the tokenizer artifact.",
  params: z.object({ file: z.string().min(1) }).strict(),
  inputs: { files: "fetched" },
  outputs: { model: dir("spm:model", "spm") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const hit = readdirSync(ctx.inputs.files).find((n) => n === ctx.params.file && statSync(join(ctx.inputs.files, n)).isFile());
      if (hit === undefined) throw new InputError(`no file ${ctx.params.file}`, { file: ctx.inputs.files, fix: "fetch the datasets.lock entry t5-base-spiece" });
      copyFileSync(join(ctx.inputs.files, hit), join(ctx.outputs.model, "spiece.model"));
      ctx.log(`${loadT5Tokenizer(join(ctx.outputs.model, "spiece.model")).vocabSize} pieces`);
    },
  },
});

const shape = z.object({
  nContext: z.number().int().positive().default(50),
  passageLength: z.number().int().min(8).default(384),
  questionLength: z.number().int().min(4).default(128),
  answerLength: z.number().int().min(2).default(100),
});

/** `pieces.json`: the vocabulary as [piece, type] pairs, which the Python side decodes ids with. */
export function writePieces(tok: T5Tokenizer, out: string): void {
  writeFileSync(join(out, "pieces.json"), JSON.stringify(tok.spec.pieces.map((p) => [p.piece, p.type])) + "\n");
}

function writeCommon(tok: T5Tokenizer, out: string, extra: Record<string, unknown>): void {
  writePieces(tok, out);
  writeFileSync(join(out, "meta.json"), canonicalJson({ format: "cspipe/fid-inputs@1", vocabDigest: tok.vocabDigest, vocabSize: tok.vocabSize, padId: tok.padId, eosId: tok.eosId, ...extra }, 2) + "\n");
}

export const prepareFidInputs = defineStep({
  id: "prepare-fid-inputs",
  version: 1,
  source: import.meta.url,
  description: "FiD's training inputs: per question its passages as `question: ... title: ... context: ...</s>` ids, answer labels; dev questions.",
  params: shape.strict(),
  inputs: { train: "qa:reader-data", dev: "qa:reader-data", spm: "spm:model" },
  outputs: { inputs: dir("qa:fid-inputs", "inputs") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const p = ctx.params;
      const tok = loadT5Tokenizer(join(ctx.inputs.spm, "spiece.model"));
      const train = await readReaderExamples(join(ctx.inputs.train, "examples.jsonl"));
      const dev = await readReaderExamples(join(ctx.inputs.dev, "examples.jsonl"));
      if (train.length === 0) throw new InputError("no training examples", { file: ctx.inputs.train });
      const out = ctx.outputs.inputs;
      for (const d of ["train", "dev"]) mkdirSync(join(out, d), { recursive: true });
      writeNpy(join(out, "train", "input_ids.npy"), { dtype: "int32", shape: [train.length, p.nContext, p.passageLength], data: fidMatrix(tok, train, p) });
      const labels = new Int32Array(train.length * p.answerLength).fill(-100);
      train.forEach((ex, q) => labels.set(answerLabels(tok, ex.answers[0] ?? "", p.answerLength), q * p.answerLength));
      writeNpy(join(out, "train", "labels.npy"), { dtype: "int32", shape: [train.length, p.answerLength], data: labels });
      writeNpy(join(out, "dev", "input_ids.npy"), { dtype: "int32", shape: [dev.length, p.nContext, p.passageLength], data: fidMatrix(tok, dev, p) });
      writeFileSync(join(out, "dev", "answers.json"), JSON.stringify(dev.map((ex) => ex.answers)) + "\n");
      writeCommon(tok, out, { ...p, train: train.length, dev: dev.length });
      ctx.log(`${train.length} train and ${dev.length} dev questions x ${p.nContext} passages x ${p.passageLength} tokens`);
    },
  },
});

export const prepareFidEvalInputs = defineStep({
  id: "prepare-fid-eval-inputs",
  version: 1,
  source: import.meta.url,
  description: "FiD's inputs for answering a split's questions.",
  params: shape.omit({ answerLength: true }).strict(),
  inputs: { data: "qa:reader-data", spm: "spm:model" },
  outputs: { inputs: dir("qa:fid-eval-inputs", "inputs") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const p = ctx.params;
      const tok = loadT5Tokenizer(join(ctx.inputs.spm, "spiece.model"));
      const examples = await readReaderExamples(join(ctx.inputs.data, "examples.jsonl"));
      writeNpy(join(ctx.outputs.inputs, "input_ids.npy"), { dtype: "int32", shape: [examples.length, p.nContext, p.passageLength], data: fidMatrix(tok, examples, p) });
      writeFileSync(join(ctx.outputs.inputs, "qids.json"), JSON.stringify(examples.map((e) => e.qid)) + "\n");
      writeCommon(tok, ctx.outputs.inputs, { ...p, questions: examples.length });
      ctx.log(`${examples.length} questions x ${p.nContext} passages`);
    },
  },
});

/** The config as params, less the run-level keys (steps/training/steps.ts says why). */
const { threads: _threads, world_size: _world, ...fidConfig } = paramsShape(FID_FIELDS);

/** `init.t5_config` of a random init (steps/pytrain/model-configs.ts). */
export const t5Config = modelConfigParams(T5);

export function fidRuntime(argv: readonly string[], gpu: "optional" | "required"): ContainerRuntime {
  return { type: "container", image: TRAINING_IMAGE, argv: pythonArgv("qa.fid.fid", argv), pythonModules: ["torch", "numpy"], gpu: { count: 1, required: gpu === "required" }, resources: { cpus: 1, memoryGiB: 2, expectedMinutes: 15 } };
}

const fidOutputs = { model: dir("qa:fid", "fid") };
const cost = (p: { epochs: number }) => 5 + 15 * p.epochs;
const TRAIN = ["train", "--config", "{params}", "--inputs", "{in:inputs}", "--out", "{out:model}"];

export const pretrainFid = defineStep({
  id: "pretrain-fid",
  version: 1,
  source: import.meta.url,
  description: "Train FiD from a random tiny T5 (vocabulary size from the inputs).",
  params: z.object({ ...fidConfig, init: z.object({ kind: z.literal("random"), t5_config: t5Config }).strict() }).strict(),
  inputs: { inputs: "qa:fid-inputs" },
  outputs: fidOutputs,
  runtime: fidRuntime(TRAIN, "optional"),
  cost,
});

/** Mini: FiD's pre-training on mini-nq from a T5 first pre-trained by span corruption (span-steps.ts). */
export const pretrainFidFromT5 = defineStep({
  id: "pretrain-fid",
  version: 1,
  source: import.meta.url,
  description: "Train FiD from a span-corruption pre-trained tiny T5 (its vocabulary digest must be the inputs').",
  params: z.object(fidConfig).strict(),
  inputs: { inputs: "qa:fid-inputs", init: "qa:fid" },
  outputs: fidOutputs,
  runtime: fidRuntime([...TRAIN, "--init-from", "{in:init}"], "optional"),
  cost,
});

/** Fine-tuning from an earlier FiD model (mini) or from Hugging Face T5 weights (real data: t5-base, a GPU step). */
export function trainFidDef(from: "fid" | "hf-t5", gpuRequired: boolean) {
  return defineStepWith({ from, gpuRequired }, {
      id: "train-fid",
      version: 1,
      source: import.meta.url,
      description: "Fine-tune FiD on a retriever's passages; the epoch with the best dev EM (ties: dev F1) is kept, the starting model among the candidates when start_is_candidate.",
      params: z.object(fidConfig).strict(),
      inputs: from === "fid" ? { inputs: "qa:fid-inputs", init: "qa:fid" } : { inputs: "qa:fid-inputs", init: "hf:t5" },
      outputs: fidOutputs,
      runtime: fidRuntime([...TRAIN, from === "fid" ? "--init-from" : "--init-hf-t5", "{in:init}"], gpuRequired ? "required" : "optional"),
      cost,
    });
}

export const predictFid = defineStep({
  id: "predict-fid",
  version: 1,
  source: import.meta.url,
  description: "FiD's answers by greedy decoding.",
  params: z.object({ batch: z.number().int().positive().default(8) }).strict(),
  inputs: { model: "qa:fid", inputs: "qa:fid-eval-inputs" },
  outputs: { predictions: file("qa:predictions", "predictions.jsonl") },
  runtime: fidRuntime(["predict", "--model", "{in:model}", "--inputs", "{in:inputs}", "--out", "{out:predictions}", "--params", "{params}"], "optional"),
  cost: () => 20,
});
