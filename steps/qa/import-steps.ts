/**
 * The readers' initialisations on real data, from datasets.lock entries: a weights file and a
 * config.json fetched separately, laid out as one Hugging Face model directory
 * (`pytorch_model.bin` + `config.json`, hard links or copies: `placeFile`) of the kind the
 * reader steps take: `hf:bert` (bert-base-uncased, the DPR reader) or `hf:t5` (t5-base, FiD).
 * The config is checked to be the architecture the reader loads, so a wrong entry fails here
 * with the entry's name rather than deep in the trainer.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { dir } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { placeFile } from "../data/assemble.ts";
import { FETCHED_KIND } from "../data/fetch/steps.ts";
import { BERT, releasedShape, shapeFields, T5, type ModelConfigSpec } from "../pytrain/model-configs.ts";

export type HfModelKind = "hf:bert" | "hf:t5";

/** The lock entries (weights, config) of each kind and the model configuration its config.json must fit (model-configs.ts). */
export const HF_MODELS = {
  "hf:bert": { weights: "bert-base-uncased", config: "bert-base-uncased-config", modelType: "bert", model: BERT },
  "hf:t5": { weights: "t5-base", config: "t5-base-config", modelType: "t5", model: T5 },
} as const satisfies Record<HfModelKind, { weights: string; config: string; modelType: string; model: ModelConfigSpec }>;

async function only(dirPath: string, entry: string, part: string): Promise<string> {
  const names = (await readdir(dirPath)).sort();
  if (names.length !== 1) {
    throw new InputError(`expected exactly one file, found ${names.length} (${names.join(", ") || "nothing"})`, { file: dirPath, field: part, fix: `wire lockedFiles("${entry}") to input '${part}'` });
  }
  return join(dirPath, names[0]!);
}

/** The config.json of a model of `kind`, checked (pure apart from the read). */
export async function checkHfConfig(path: string, kind: HfModelKind): Promise<Record<string, unknown>> {
  const spec = HF_MODELS[kind];
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, "utf8")) as unknown;
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message})`, { file: path, fix: `fetch ${spec.config} again` });
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new InputError("config.json is not a JSON object", { file: path, fix: `fetch ${spec.config} again` });
  const o = raw as Record<string, unknown>;
  if (o["model_type"] !== undefined && o["model_type"] !== spec.modelType) {
    throw new InputError(`model_type is '${String(o["model_type"])}', expected '${spec.modelType}'`, { file: path, field: "model_type", fix: `lock the ${spec.modelType} config (${spec.config})` });
  }
  const checked = releasedShape(spec.model, o);
  if ("message" in checked) throw new InputError(checked.message, { file: path, field: checked.field, fix: `lock a Hugging Face ${spec.modelType} config.json that this project's ${spec.modelType} implements` });
  return o;
}

/** The assemble step of one kind (the kind is its identity, so repeated uses merge). */
export function assembleHfModelDef<K extends HfModelKind>(kind: K) {
  return defineStepWith({ kind }, {
    id: `assemble-${kind.replace(":", "-")}-model`,
    version: 1,
    source: import.meta.url,
    description: `Lay out the fetched ${HF_MODELS[kind].weights} weights and config.json as one Hugging Face model directory.`,
    params: z.object({}).strict(),
    inputs: { weights: FETCHED_KIND, config: FETCHED_KIND },
    outputs: { model: dir(kind, "model") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const spec = HF_MODELS[kind];
        const config = await only(ctx.inputs.config, spec.config, "config");
        const weights = await only(ctx.inputs.weights, spec.weights, "weights");
        const c = await checkHfConfig(config, kind);
        await placeFile(config, join(ctx.outputs.model, "config.json"));
        await placeFile(weights, join(ctx.outputs.model, "pytorch_model.bin"));
        ctx.log(`${spec.modelType}: ${shapeFields(spec.model).map((f) => `${f}=${String(c[f])}`).join(" ")}`);
      },
    },
  });
}
