/**
 * The mini benchmark: a seeded synthetic conversational-search world written in each
 * dataset's native format. Public entry points for the pipeline.
 */
import { generateWorld } from "./world.ts";
import type { World } from "./world.ts";
import { MINI_DATASETS, resolveParams } from "./params.ts";
import type { MiniDatasetName, MiniParamsOverrides } from "./params.ts";
import { qreccWriter } from "./writers/qrecc.ts";
import { topiocqaWriter } from "./writers/topiocqa.ts";
import { orquacWriter } from "./writers/orquac.ts";
import { nqWriter } from "./writers/nq.ts";
import type { MiniWriter, WriteOptions } from "./writers/common.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";

export { generateWorld, streamCollection, collectionSize } from "./world.ts";
export type { World, StandaloneQuestion } from "./world.ts";
export { resolveParams, DEFAULT_PARAMS, MINI_DATASETS } from "./params.ts";
export type { MiniParams, MiniParamsOverrides, MiniDatasetName, Split, Domain } from "./params.ts";
export type { Conversation, Turn, QuestionType, QuestionForm } from "./conversations.ts";
export type { Entity, Passage } from "./entities.ts";
export type { WriteOptions } from "./writers/common.ts";

/** Writers keyed by dataset name. */
export const MINI_WRITERS: Readonly<Record<MiniDatasetName, MiniWriter>> = {
  "mini-qrecc": qreccWriter,
  "mini-topiocqa": topiocqaWriter,
  "mini-orquac": orquacWriter,
  "mini-nq": nqWriter,
};

function isWorld(x: World | MiniParamsOverrides): x is World {
  return "passageById" in x;
}

/**
 * Generates (unless a World is given) and writes dataset `name` under `outDir`, streaming the
 * collection. Returns the written files, relative to `outDir`, in write order.
 */
export async function writeMiniDataset(
  name: MiniDatasetName, worldOrParams: World | MiniParamsOverrides, outDir: string, options: WriteOptions = {},
): Promise<{ files: string[] }> {
  const writer = MINI_WRITERS[name];
  if (writer === undefined) {
    throw new InputError(`unknown mini dataset '${String(name)}'`, { field: "name", fix: `use one of ${MINI_DATASETS.join(", ")}` });
  }
  const world = isWorld(worldOrParams) ? worldOrParams : generateWorld(resolveParams(name, worldOrParams));
  return { files: await writer.write(world, outDir, options) };
}
