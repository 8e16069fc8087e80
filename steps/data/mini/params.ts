/**
 * Parameters of the mini benchmark, with per-dataset defaults. Everything that changes the
 * output is here, so a params object (plus the generator's source) fully determines the bytes.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";

export type MiniDatasetName = "mini-qrecc" | "mini-topiocqa" | "mini-orquac" | "mini-nq";
export const MINI_DATASETS: readonly MiniDatasetName[] = ["mini-qrecc", "mini-topiocqa", "mini-orquac", "mini-nq"];

export type Split = "train" | "dev" | "test";
export type Domain = "quac" | "nq" | "trec" | "topiocqa";

export interface DomainStyle {
  readonly minTurns: number;
  readonly maxTurns: number;
  /** Probability that a turn after the first moves to another entity. */
  readonly switchRate: number;
}

export interface ConversationFlavor {
  /** OR-QuAC: every turn of a conversation asks about the same (one) passage. */
  readonly singlePassage: boolean;
  /** QReCC: share of turns whose gold passage is not in the collection (Truth_passages: []). */
  readonly noGoldRate: number;
  /** QReCC: a fact restated in the Introduction has both passages as gold. */
  readonly multiGold: boolean;
  /** "span": the answer is the value phrase; "sentence": the whole fact sentence (QReCC-like). */
  readonly answerMode: "span" | "sentence";
  /** Domain mix per split (weights). */
  readonly domains: Readonly<Record<Split, readonly (readonly [Domain, number])[]>>;
  readonly styles: Readonly<Partial<Record<Domain, DomainStyle>>>;
}

export interface MiniParams {
  readonly seed: number;
  /** Entities in the in-memory pool (conversations and standalone questions use only these). */
  readonly entities: number;
  /** Target number of passages in the collection; 0 = exactly the pool's passages. Streams beyond the pool. */
  readonly scale: number;
  readonly trainTurns: number;
  readonly devTurns: number;
  readonly testTurns: number;
  readonly standaloneTrain: number;
  readonly standaloneDev: number;
  readonly flavor: ConversationFlavor;
}

const QRECC_FLAVOR: ConversationFlavor = {
  singlePassage: false,
  noGoldRate: 0.2,
  multiGold: true,
  answerMode: "sentence",
  domains: {
    train: [["quac", 0.7], ["nq", 0.3]],
    dev: [["quac", 0.7], ["nq", 0.3]],
    test: [["quac", 0.55], ["nq", 0.25], ["trec", 0.2]],
  },
  styles: {
    quac: { minTurns: 4, maxTurns: 9, switchRate: 0 },
    nq: { minTurns: 3, maxTurns: 8, switchRate: 0.3 },
    trec: { minTurns: 6, maxTurns: 10, switchRate: 0.3 },
  },
};

const TOPIOCQA_FLAVOR: ConversationFlavor = {
  singlePassage: false,
  noGoldRate: 0,
  multiGold: false,
  answerMode: "span",
  domains: { train: [["topiocqa", 1]], dev: [["topiocqa", 1]], test: [["topiocqa", 1]] },
  styles: { topiocqa: { minTurns: 7, maxTurns: 12, switchRate: 0.3 } },
};

const ORQUAC_FLAVOR: ConversationFlavor = {
  singlePassage: true,
  noGoldRate: 0,
  multiGold: false,
  answerMode: "span",
  domains: { train: [["quac", 1]], dev: [["quac", 1]], test: [["quac", 1]] },
  styles: { quac: { minTurns: 3, maxTurns: 4, switchRate: 0 } },
};

const BASE = { entities: 900, scale: 0, standaloneTrain: 0, standaloneDev: 0 } as const;

/** Defaults: ~4,000 passages, ~1.6k train turns, a few hundred dev/test turns per dataset. */
export const DEFAULT_PARAMS: Readonly<Record<MiniDatasetName, MiniParams>> = {
  // QReCC ships no dev split (the authors cut 2,000 train conversations): train is larger.
  "mini-qrecc": { ...BASE, seed: 1001, trainTurns: 1900, devTurns: 0, testTurns: 400, flavor: QRECC_FLAVOR },
  "mini-topiocqa": { ...BASE, seed: 2002, trainTurns: 1600, devTurns: 400, testTurns: 0, flavor: TOPIOCQA_FLAVOR },
  "mini-orquac": { ...BASE, seed: 3003, trainTurns: 1600, devTurns: 300, testTurns: 300, flavor: ORQUAC_FLAVOR },
  "mini-nq": { ...BASE, seed: 4004, trainTurns: 0, devTurns: 0, testTurns: 0, standaloneTrain: 3000, standaloneDev: 300, flavor: TOPIOCQA_FLAVOR },
};

export type MiniParamsOverrides = Partial<Omit<MiniParams, "flavor">> & { readonly flavor?: ConversationFlavor };

const INT_FIELDS = ["seed", "entities", "scale", "trainTurns", "devTurns", "testTurns", "standaloneTrain", "standaloneDev"] as const;

/** Defaults for `name` with `overrides` applied; throws InputError on a bad value. */
export function resolveParams(name: MiniDatasetName, overrides: MiniParamsOverrides = {}): MiniParams {
  const base = DEFAULT_PARAMS[name];
  if (base === undefined) {
    throw new InputError(`unknown mini dataset '${String(name)}'`, { field: "name", fix: `use one of ${MINI_DATASETS.join(", ")}` });
  }
  const p: MiniParams = { ...base, ...overrides };
  for (const f of INT_FIELDS) {
    const v = p[f];
    if (!Number.isInteger(v) || v < 0 || (f === "seed" && v > 0xffffffff)) {
      throw new InputError(`${f} must be a non-negative integer, got ${String(v)}`, { field: f, fix: `set ${f} to an integer >= 0${f === "seed" ? " and < 2^32" : ""}` });
    }
  }
  if (p.entities < 8) {
    throw new InputError(`entities must be at least 8, got ${p.entities}`, { field: "entities", fix: "use entities >= 8 so every kind of entity exists" });
  }
  return p;
}
