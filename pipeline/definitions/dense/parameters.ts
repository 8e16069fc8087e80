/**
 * The overridable hyperparameters of the dense setup (setup.ts), described once: kind, range
 * and meaning per field. The tables below are typed against `DenseSetup` (every field of each
 * group must be described, with a field kind that fits its type), so a field added to the setup
 * does not compile until it is described here, and `params`, `--set` validation and the
 * application of overrides all read this one description.
 */
import type { DataSource, OverrideValue, ParameterSpace, TargetContext } from "../../engine/targets.ts";
import { applyOverrides, getPath, parseSets, type Described, type Field, type FieldFor, type ParamDef, type Violation } from "../overrides.ts";
import { describeDefs, ownOverrides, sharedParamDefs } from "../shared-parameters.ts";
import { DATASETS } from "../../../steps/data/steps.ts";
import { REPLICATE_SEED_STRIDE } from "./variants.ts";
import { DENSE_SETUPS, type DenseSetup, type DevCollection, type MiniBert, type Profile, type TrainSchedule } from "./setup.ts";

/** Per dataset: `schedule.<dataset>.<field>`. */
export const SCHEDULE_FIELDS: Described<TrainSchedule> = {
  iterations: { kind: "int", min: 2, max: 10, doc: "IHN iterations I (iteration 1 = in-batch negatives only; the tables compare iteration 2 and I with it)" },
  epochs: { kind: "int", min: 1, doc: "epochs of a training: the learning rate decays to zero at the last (patience, if set, may stop it earlier)" },
  lastEpochs: { kind: "int", min: 1, doc: "most epochs of the last IHN iteration I" },
  patience: { kind: "int", min: 0, doc: "stop after this many epochs without a dev Recall@5 gain of minDelta (0 = train every epoch)" },
  minDelta: { kind: "number", min: 0, max: 1, doc: "smallest dev Recall@5 gain (a fraction) that counts as progress for patience" },
  keepLast: { kind: "bool", doc: "model selection: keep the last epoch (true; needs patience 0) or the epoch with the best dev Recall@5 (false, DPR's rule)" },
  batch: { kind: "int", min: 2, doc: "queries per step in iteration 1 (in-batch negatives); halved with hard negatives" },
  lr: { kind: "number", min: 0, minExclusive: true, max: 1, doc: "AdamW learning rate of every training on the dataset" },
  n: { kind: "int", min: 1, doc: "hard negatives sampled per example per step (variants with mined negatives)" },
  k: { kind: "int", min: 1, doc: "depth of every dense search on the dataset, of the BM25 searches over its train and dev turns (mined negatives, dev collection) and of the negative miner; the tables' BM25 rows keep depth 100" },
};

/** `retrieval` (the encode/search path: CPU ONNX or GPU shards) follows the data source and is not a hyperparameter: no override. */
type TopLevel = Omit<DenseSetup, "schedule" | "devPassages" | "model" | "theta0" | "retrieval" | "claimSeeds" | "claimReplicates">;

export const TOP_FIELDS: Described<TopLevel> = {
  seeds: { kind: "ints", min: 0, doc: "seeds of the models behind the paper's claims (mean ± sd over them)" },
  secondarySeeds: { kind: "ints", min: 0, doc: "seeds of the other variants (negative sources, released-code ablation)" },
  maxQueryLength: { kind: "int", min: 8, max: 512, doc: "token budget of a conversational input (first question pinned, the rest truncated from the left)" },
  maxPassageLength: { kind: "int", min: 8, max: 512, doc: "token budget of a passage (title and text)" },
  evalBeforeTraining: { kind: "bool", doc: "log dev Recall@5 of the initial model before epoch 1 (never selected)" },
  devEvalEvery: { kind: "int", min: 1, doc: "dev Recall@5 after every this-many-th epoch and the last (only those can be kept with keepLast=false)" },
  shards: { kind: "int", min: 1, max: 256, doc: "index shards (separately cached encode and index steps); results do not depend on it" },
  vocabSize: { kind: "int", min: 200, max: 100_000, doc: "size of the WordPiece vocabulary trained on mini-nq (mini only)" },
};

/** Per claim: `claimSeeds.<claim id>`. */
export const CLAIM_SEEDS_FIELDS: Described<DenseSetup["claimSeeds"]> = {
  "shortcut-collapses-on-switch": { kind: "ints", min: 0, doc: "seeds of DPR^shortcut on QReCC for the claim that it collapses on switch turns (its verdict is over these)" },
  "hard-negatives-help-orquac": { kind: "ints", min: 0, doc: "seeds of DPR (IBN) and DPR (IHN, last iteration) on OR-QuAC for the claim that hard negatives help there" },
  "ihn-iterations-improve": { kind: "ints", min: 0, doc: "seeds of the IHN chain on TopiOCQA (every iteration) for the claim that each iteration improves recall" },
};

/** Per claim: `claimReplicates.<claim id>`. */
export const CLAIM_REPLICATES_FIELDS: Described<DenseSetup["claimReplicates"]> = {
  "shortcut-collapses-on-switch": { kind: "int", min: 1, max: 20, doc: "fine-tunings of DPR^shortcut per seed's θ0 (in other example orders) for the switch-turn claim, averaged per θ0" },
  "hard-negatives-help-orquac": { kind: "int", min: 1, max: 20, doc: "OR-QuAC IBN-to-IHN chains per seed's θ0 for its hard-negatives claim, averaged per θ0" },
  "ihn-iterations-improve": { kind: "int", min: 1, max: 20, doc: "TopiOCQA IHN chains per seed's θ0 for the every-iteration claim, averaged per θ0" },
};

export const MODEL_FIELDS: Described<MiniBert> = {
  hidden_size: { kind: "int", min: 8, max: 1024, doc: "θ0's hidden width (a multiple of num_attention_heads)" },
  num_hidden_layers: { kind: "int", min: 1, max: 24, doc: "θ0's transformer layers" },
  num_attention_heads: { kind: "int", min: 1, max: 64, doc: "θ0's attention heads" },
  intermediate_size: { kind: "int", min: 8, max: 8192, doc: "θ0's feed-forward width" },
  hidden_dropout_prob: { kind: "number", min: 0, max: 1, maxExclusive: true, doc: "θ0's dropout after attention and feed-forward" },
  attention_probs_dropout_prob: { kind: "number", min: 0, max: 1, maxExclusive: true, doc: "θ0's dropout on attention weights" },
};

export const THETA0_FIELDS: Described<DenseSetup["theta0"]> = {
  epochs: { kind: "int", min: 1, doc: "most epochs of θ0's pre-training on mini-nq" },
  patience: { kind: "int", min: 0, doc: "θ0: stop after this many epochs without a dev Recall@5 gain of minDelta (0 = every epoch)" },
  minDelta: { kind: "number", min: 0, max: 1, doc: "θ0: smallest dev Recall@5 gain that counts as progress" },
  keepLast: { kind: "bool", doc: "θ0: keep the last epoch (true; needs patience 0) or the one with the best dev Recall@5 (false)" },
  batch: { kind: "int", min: 2, doc: "θ0: queries per step (in-batch negatives)" },
  lr: { kind: "number", min: 0, minExclusive: true, max: 1, doc: "θ0: AdamW learning rate" },
};

type DevFields = { readonly [K in keyof Extract<DevCollection, { bm25: number }>]: FieldFor<number> } & { readonly sample: FieldFor<number> };

export const DEV_FIELDS: DevFields = {
  bm25: { kind: "int", min: 0, doc: "dev collection: each dev query's top BM25 passages (hard negatives)" },
  size: { kind: "int", min: 1, doc: "dev collection: passages in all (gold, BM25 negatives, then a seeded sample)" },
  sample: { kind: "int", min: 0, doc: "dev collection: gold plus a seeded sample up to this many passages (0 = the whole collection)" },
};

const MINI_ONLY = "applies to the mini benchmark only (on real data θ0 is the released DPR-NQ with its BERT vocabulary)";

/** What needs the mini θ0 (its architecture, pre-training, vocabulary and mini-nq dev collection). */
const miniOnly = (path: string): boolean => path === "vocabSize" || path.startsWith("model.") || path.startsWith("theta0.") || path.startsWith("devPassages.nq.");

/** Every parameter of a setup with its field and value, in listing order. */
export function denseParamDefs(setup: DenseSetup, data: DataSource): ParamDef[] {
  const out: ParamDef[] = [];
  const add = (path: string, field: Field) => {
    const value = getPath(setup, path);
    if (value === undefined || value === null) return;
    const v = value as OverrideValue;
    out.push(data !== "mini" && miniOnly(path) ? { path, field, value: v, unavailable: MINI_ONLY } : { path, field, value: v });
  };
  for (const [k, f] of Object.entries(TOP_FIELDS)) add(k, f);
  for (const [k, f] of Object.entries(CLAIM_SEEDS_FIELDS)) add(`claimSeeds.${k}`, f);
  for (const [k, f] of Object.entries(CLAIM_REPLICATES_FIELDS)) add(`claimReplicates.${k}`, f);
  for (const ds of Object.keys(setup.schedule).sort()) for (const [k, f] of Object.entries(SCHEDULE_FIELDS)) add(`schedule.${ds}.${k}`, f);
  for (const ds of Object.keys(setup.devPassages).sort()) for (const [k, f] of Object.entries(DEV_FIELDS)) add(`devPassages.${ds}.${k}`, f);
  // On real data `model` is null: its paths are listed as unavailable, from the mini setup's shape.
  for (const [k, f] of Object.entries(MODEL_FIELDS)) {
    if (setup.model !== null) add(`model.${k}`, f);
    else out.push({ path: `model.${k}`, field: f, value: getPath(DENSE_SETUPS.mini.paper, `model.${k}`) as OverrideValue, unavailable: MINI_ONLY });
  }
  for (const [k, f] of Object.entries(THETA0_FIELDS)) add(`theta0.${k}`, f);
  return out;
}

/** Rules across fields (also checked by the spaces that extend the dense one, e.g. ../dcsr/parameters.ts). */
export function denseChecks(value: (path: string) => OverrideValue | undefined): Violation[] {
  const out: Violation[] = [];
  const h = value("model.hidden_size");
  const a = value("model.num_attention_heads");
  if (typeof h === "number" && typeof a === "number" && h % a !== 0) out.push({ message: "θ0's hidden size must be a multiple of its attention heads", paths: ["model.hidden_size", "model.num_attention_heads"] });
  for (const ds of [...DATASETS, "nq"]) {
    const bm25 = value(`devPassages.${ds}.bm25`);
    const size = value(`devPassages.${ds}.size`);
    if (typeof bm25 === "number" && typeof size === "number" && bm25 > size) out.push({ message: "a dev collection cannot hold more BM25 negatives per query than passages in all", paths: [`devPassages.${ds}.bm25`, `devPassages.${ds}.size`] });
  }
  for (const claim of Object.keys(CLAIM_REPLICATES_FIELDS)) {
    // The claim's models are those of `seeds` and of its `claimSeeds` (findings.ts).
    const replicates = value(`claimReplicates.${claim}`);
    const seeds = [value("seeds"), value(`claimSeeds.${claim}`)].flatMap((v) => (Array.isArray(v) ? v : []));
    if (typeof replicates === "number" && replicates > 1 && seeds.some((x) => x >= REPLICATE_SEED_STRIDE)) {
      out.push({ message: `replicates train with seed + ${REPLICATE_SEED_STRIDE} per replicate, so their seeds must be below ${REPLICATE_SEED_STRIDE}`, paths: ["seeds", `claimSeeds.${claim}`, `claimReplicates.${claim}`] });
    }
  }
  for (const group of [...DATASETS.map((d) => `schedule.${d}`), "theta0"]) {
    const patience = value(`${group}.patience`);
    if (value(`${group}.keepLast`) === true && typeof patience === "number" && patience > 0) {
      out.push({ message: "keepLast keeps the last epoch, so patience cannot stop the training early: set patience=0 or keepLast=false", paths: [`${group}.keepLast`, `${group}.patience`] });
    }
  }
  return out;
}

/** The setup a dense target sees: the code's values for the data source and profile, with the overrides applied (the shared bm25.* and data.* are not the setup's). */
export function denseSetup(data: DataSource, profile: Profile, overrides: TargetContext["overrides"]): DenseSetup {
  return applyOverrides(DENSE_SETUPS[data][profile], ownOverrides(overrides));
}

/** The shared parameters of the dense graph (BM25 and preprocessing of every dataset; BM25 on mini-nq where θ0 is pre-trained). */
export function denseSharedDefs(data: DataSource): ParamDef[] {
  return sharedParamDefs(DATASETS, data === "mini" ? [...DATASETS, "nq"] : DATASETS);
}

/** The parameter space of the dense targets of one profile. */
export function denseParameters(profile: Profile): ParameterSpace {
  const space = (ctx: TargetContext) => `the dense setup (${ctx.data}, ${profile} profile)`;
  return {
    name: `the dense setup (${profile} profile)`,
    describe: (ctx) => describeDefs([...denseParamDefs(DENSE_SETUPS[ctx.data][profile], ctx.data), ...denseSharedDefs(ctx.data)]),
    parse: (sets, ctx) => parseSets(sets, [...denseParamDefs(DENSE_SETUPS[ctx.data][profile], ctx.data), ...denseSharedDefs(ctx.data)], { space: space(ctx), check: denseChecks }),
  };
}
