/**
 * The overridable parameters of the DCSR targets (table-dcsr, table-dcsr-smoke, ablation-dcsr):
 * the dense setup's (../dense/parameters.ts: schedules, token budgets, dev collections, θ0,
 * shards), which the DCSR trainings share with the DPR rows, plus the DCSR setup's own fields
 * (setup.ts) under `dcsr.`: `dcsr.seeds`, `dcsr.topM`, `dcsr.maxMarkers`, `dcsr.keepSentences`,
 * `dcsr.split.minWords`, `dcsr.split.minTailWords`. One description per field, typed against
 * `DcsrSetup` (a field added there does not compile until it is described here or listed as
 * not overridable), read by `params`, by `--set` validation and by the application of overrides.
 *
 * The DCSR tables train every row, DPR and DCSR alike, with `dcsr.seeds`, so the dense setup's
 * `seeds`, `secondarySeeds`, `claimSeeds.*` and `claimReplicates.*` reach nothing here: they are listed as unavailable, and a
 * `--set seeds=...` is refused with the path to use instead.
 *
 * The overrides travel in the context: the dense ones in `overrides` (DenseContext, so DPR's
 * builders see exactly what a dense target would), the DCSR ones in `dcsrOverrides` with the
 * `dcsr.` prefix dropped.
 */
import type { DataSource, OverrideValue, Overrides, ParameterSpace, TargetContext } from "../../engine/targets.ts";
import type { SplitRule } from "../../../steps/dcsr/splitter.ts";
import { applyOverrides, getPath, parseSets, splitByPrefix, type Described, type ParamDef, type Violation } from "../overrides.ts";
import { denseContext, type DenseContext } from "../dense/base.ts";
import { denseChecks, denseParamDefs, denseSharedDefs } from "../dense/parameters.ts";
import { describeDefs } from "../shared-parameters.ts";
import { DENSE_SETUPS, type Profile } from "../dense/setup.ts";
import { DCSR_SETUPS, type DcsrSetup } from "./setup.ts";

/** The prefix of the DCSR setup's paths among a DCSR target's overrides. */
export const DCSR_PREFIX = "dcsr.";

export interface DcsrContext extends DenseContext {
  /** `--set dcsr.<path>` overrides of the DCSR setup, prefix dropped; part of every DCSR memo key through the context; absent when there are none. */
  readonly dcsrOverrides?: Overrides;
}

/** `marker` is a vocabulary token (fixed by the data source's vocabulary) and `datasets` a list of names: neither is a number `--set` could give. */
type Overridable = Omit<DcsrSetup, "marker" | "datasets" | "split">;

export const DCSR_FIELDS: Described<Overridable> = {
  seeds: { kind: "ints", min: 0, doc: "training seeds of every row of the DCSR tables, DPR and DCSR alike (several: mean ± sd)" },
  topM: { kind: "int", min: 1, doc: "sentences retrieved per query before the HasAns passage ranking (search and the trainer's model selection)" },
  maxMarkers: { kind: "int", min: 1, max: 512, doc: "sentence markers per passage: the first this many sentences get a vector, later ones follow unmarked" },
  keepSentences: { kind: "int", min: 1, doc: "top sentences per training query kept from a search, what DCSR x IHN mines its negatives from" },
};

export const SPLIT_FIELDS: Described<SplitRule> = {
  minWords: { kind: "int", min: 1, doc: "sentence splitter: a sentence ends only once it holds at least this many words" },
  minTailWords: { kind: "int", min: 1, doc: "sentence splitter: a last sentence with fewer words merges into the previous one" },
};

const ROW_SEEDS = "does not apply to the DCSR tables, whose rows (DPR and DCSR alike) train with dcsr.seeds: set dcsr.seeds instead";

/** The DCSR setup's own parameters (paths without the prefix), with their values in `setup`. */
export function dcsrOwnParamDefs(setup: DcsrSetup): ParamDef[] {
  const out: ParamDef[] = [];
  for (const [k, f] of Object.entries(DCSR_FIELDS)) out.push({ path: k, field: f, value: getPath(setup, k) as OverrideValue });
  for (const [k, f] of Object.entries(SPLIT_FIELDS)) out.push({ path: `split.${k}`, field: f, value: getPath(setup, `split.${k}`) as OverrideValue });
  return out;
}

/** Every parameter of a DCSR target, in listing order: the dense setup's, then `dcsr.*`. */
export function dcsrParamDefs(data: DataSource, profile: Profile): ParamDef[] {
  const dense = denseParamDefs(DENSE_SETUPS[data][profile], data).map((d): ParamDef => (d.path === "seeds" || d.path === "secondarySeeds" || d.path.startsWith("claimSeeds.") || d.path.startsWith("claimReplicates.") ? { ...d, unavailable: ROW_SEEDS } : d));
  const own = dcsrOwnParamDefs(DCSR_SETUPS[data][profile]).map((d) => ({ ...d, path: `${DCSR_PREFIX}${d.path}` }));
  return [...dense, ...denseSharedDefs(data), ...own];
}

/** Rules across the DCSR fields, and between them and the search depths of the setup's datasets. */
export function dcsrChecks(datasets: readonly string[]): (value: (path: string) => OverrideValue | undefined) => Violation[] {
  return (value) => {
    const out: Violation[] = [];
    const m = value("dcsr.topM");
    const keep = value("dcsr.keepSentences");
    if (typeof m === "number" && typeof keep === "number" && keep > m) out.push({ message: "a search cannot keep more sentences per query than it retrieves", paths: ["dcsr.keepSentences", "dcsr.topM"] });
    const deeper = datasets.map((d) => `schedule.${d}.k`).filter((p) => {
      const k = value(p);
      return typeof m === "number" && typeof k === "number" && k > m;
    });
    if (deeper.length > 0) out.push({ message: "HasAns over the top dcsr.topM sentences ranks at most that many passages, fewer than the depth the runs are cut at", paths: ["dcsr.topM", ...deeper] });
    return out;
  };
}

/** The parameter space of the DCSR targets of one profile. */
export function dcsrParameters(profile: Profile): ParameterSpace {
  const space = (data: DataSource) => `the dense and DCSR setups (${data}, ${profile} profile)`;
  return {
    name: `the dense and DCSR setups (${profile} profile)`,
    describe: (ctx) => describeDefs(dcsrParamDefs(ctx.data, profile)),
    parse: (sets, ctx) => parseSets(sets, dcsrParamDefs(ctx.data, profile), { space: space(ctx.data), check: (v) => [...denseChecks(v), ...dcsrChecks(DCSR_SETUPS[ctx.data][profile].datasets)(v)] }),
  };
}

/** A DCSR target's context: its overrides split into the dense setup's and the DCSR setup's (empty ones dropped, so both spell the plain setup alike). */
export function dcsrContext(t: TargetContext, profile: Profile): DcsrContext {
  const { own, rest } = splitByPrefix(t.overrides, DCSR_PREFIX);
  const base = denseContext({ data: t.data, overrides: rest }, profile);
  return Object.keys(own).length > 0 ? { ...base, dcsrOverrides: own } : base;
}

/** The dense part of a DCSR context: what DPR's builders are memoised on, so the DPR rows are the dense targets' own steps. */
export function denseOf(ctx: DcsrContext): DenseContext {
  return ctx.overrides !== undefined ? { data: ctx.data, profile: ctx.profile, overrides: ctx.overrides } : { data: ctx.data, profile: ctx.profile };
}

/** The DCSR setup a context sees: the code's values for its data source and profile, with its `dcsr.` overrides applied. */
export function dcsrSetupOf(ctx: DcsrContext): DcsrSetup {
  return applyOverrides(DCSR_SETUPS[ctx.data][ctx.profile], ctx.dcsrOverrides);
}
