/**
 * Parameters of the mini benchmark, with per-dataset defaults. Everything that changes the
 * output is here, so a params object (plus the generator's source) fully determines the bytes.
 * README.md (beside this file) says which statistic of the real data each knob reproduces and
 * how the defaults were calibrated against the paper's BM25 numbers.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { NamePoolSizes } from "./lexicon.ts";

export type MiniDatasetName = "mini-qrecc" | "mini-topiocqa" | "mini-orquac" | "mini-nq";
export const MINI_DATASETS: readonly MiniDatasetName[] = ["mini-qrecc", "mini-topiocqa", "mini-orquac", "mini-nq"];

export type Split = "train" | "dev" | "test";
export type Domain = "quac" | "nq" | "trec" | "topiocqa";

export interface DomainStyle {
  /** Turns per conversation [min, max]. */
  readonly turns: readonly [number, number];
  /** Probability that a turn after the first moves to another entity (when the previous answer names none). */
  readonly switchRate: number;
  /** Probability that a turn moves to the entity the previous answer names (a link the asker follows). */
  readonly switchOnLink: number;
  /** On a switch: probability the new entity is one the previous turn's passage names (a link). */
  readonly linkedSwitch: number;
  /** On the same topic: probability the next question is answered from the same passage (when it has an unasked fact). */
  readonly samePassage: number;
  /** On the same topic: probability of an open follow-up ("what happened next?") answered by another sentence of the same passage. */
  readonly eventRate: number;
}

export interface QuestionStyle {
  /** Share of questions written without the passage's words (attributes.ts `paraphrase`). */
  readonly paraphraseRate: number;
  /** Forms of a follow-up on the same topic (weights): pronoun, elliptic ("when?"), or the full name. */
  readonly followUp: { readonly pronoun: number; readonly short: number; readonly full: number };
  /** On a switch to an entity of the same kind: probability of "what about <name>?" for the same attribute. */
  readonly whatAbout: number;
  /** A self-contained question names the entity by its short name ("Vardis") rather than in full, with this probability. */
  readonly shortName: number;
  /** On a switch to the entity the previous answer names: probability the question refers to it ("where was she born?", "that town"). */
  readonly anaphora: number;
}

export interface ArticleStyle {
  /** Passages each section is split into [min, max]; sections with fewer facts get filler-only passages. */
  readonly sectionPassages: readonly [number, number];
  /** Filler sentences per passage [min, max]. */
  readonly fillers: readonly [number, number];
  /** Probability that a filler sentence names another entity. */
  readonly mentionRate: number;
  /** Probability that a filler sentence states a fact about a minor unnamed subject, in the words of the kind's statements. */
  readonly echoRate: number;
  /** Probability that a section passage names its entity in full (else only by short name or pronoun). */
  readonly fullNameRate: number;
  /** Extra article length of popular topics: the most popular has (1 + popularLength) times the passages per section. */
  readonly popularLength: number;
  /** "spread": a section's facts spread over its passages; "lead": all in its first passage, the rest is prose. */
  readonly factLayout: "spread" | "lead";
}

export interface ConversationFlavor {
  /** OR-QuAC: every turn of a conversation asks about the same (one) passage. */
  readonly singlePassage: boolean;
  /** QReCC: share of turns whose gold passage is not in the collection (Truth_passages: []). */
  readonly noGoldRate: number;
  /** QReCC: a fact restated in the Introduction has both passages as gold. */
  readonly multiGold: boolean;
  /** TopiOCQA-like: a fact restated in the Introduction is answered from it with this probability. */
  readonly introAnswerRate: number;
  /**
   * "span": the answer is the value phrase (OR-QuAC); "sentence": the whole fact sentence
   * (QReCC); "free": the value as the answerer would write it, a related entity by its short
   * name (TopiOCQA's free-form answers).
   */
  readonly answerMode: "span" | "sentence" | "free";
  /** Domain mix per split (weights). */
  readonly domains: Readonly<Record<Split, readonly (readonly [Domain, number])[]>>;
  readonly styles: Readonly<Partial<Record<Domain, DomainStyle>>>;
  readonly questions: QuestionStyle;
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
  readonly namePools: NamePoolSizes;
  /** Zipf exponent of entity popularity (0 = uniform): who conversations ask about, fact values and mentions name. */
  readonly popularity: number;
  readonly articles: ArticleStyle;
  readonly flavor: ConversationFlavor;
}

const QUESTIONS: QuestionStyle = { paraphraseRate: 0.85, followUp: { pronoun: 0.86, short: 0.1, full: 0.04 }, whatAbout: 0.3, shortName: 0.6, anaphora: 0.8 };

const QRECC_FLAVOR: ConversationFlavor = {
  singlePassage: false,
  noGoldRate: 0.2,
  multiGold: true,
  introAnswerRate: 0,
  answerMode: "sentence",
  domains: {
    train: [["quac", 0.78], ["nq", 0.17], ["trec", 0.05]],
    dev: [["quac", 0.78], ["nq", 0.17], ["trec", 0.05]],
    test: [["quac", 0.6], ["nq", 0.28], ["trec", 0.12]],
  },
  styles: {
    quac: { turns: [4, 9], switchRate: 0, switchOnLink: 0, linkedSwitch: 0, samePassage: 0.5, eventRate: 0.2 },
    nq: { turns: [3, 8], switchRate: 0.1, switchOnLink: 0.5, linkedSwitch: 0.6, samePassage: 0.35, eventRate: 0.1 },
    trec: { turns: [6, 10], switchRate: 0.1, switchOnLink: 0.5, linkedSwitch: 0.6, samePassage: 0.35, eventRate: 0.1 },
  },
  questions: { ...QUESTIONS, paraphraseRate: 0.9, shortName: 0.8 },
};

/**
 * TopiOCQA's askers never see the passages and follow the links the answers give: follow-ups
 * and switches refer back ("did he conquer other territories as well?") far more than they
 * name a topic, and answers are short free-form phrases.
 */
const TOPIOCQA_FLAVOR: ConversationFlavor = {
  singlePassage: false,
  noGoldRate: 0,
  multiGold: false,
  introAnswerRate: 0.33,
  answerMode: "free",
  domains: { train: [["topiocqa", 1]], dev: [["topiocqa", 1]], test: [["topiocqa", 1]] },
  styles: { topiocqa: { turns: [10, 15], switchRate: 0.08, switchOnLink: 0.65, linkedSwitch: 0.9, samePassage: 0.13, eventRate: 0.23 } },
  questions: { paraphraseRate: 0.9, followUp: { pronoun: 0.9, short: 0.1, full: 0 }, whatAbout: 0.3, shortName: 0.9, anaphora: 1 },
};

const ORQUAC_FLAVOR: ConversationFlavor = {
  singlePassage: true,
  noGoldRate: 0,
  multiGold: false,
  introAnswerRate: 0,
  answerMode: "span",
  domains: { train: [["quac", 1]], dev: [["quac", 1]], test: [["quac", 1]] },
  styles: { quac: { turns: [5, 9], switchRate: 0, switchOnLink: 0, linkedSwitch: 0, samePassage: 1, eventRate: 0.4 } },
  questions: QUESTIONS,
};

const NQ_FLAVOR: ConversationFlavor = { ...TOPIOCQA_FLAVOR, introAnswerRate: 0, answerMode: "span", questions: QUESTIONS };

const BASE = {
  entities: 600,
  scale: 0,
  standaloneTrain: 0,
  standaloneDev: 0,
  namePools: { first: 40, surname: 100, placeRoot: 80 },
  popularity: 0.8,
  articles: { sectionPassages: [1, 1], fillers: [2, 4], mentionRate: 0.3, echoRate: 0, fullNameRate: 1, popularLength: 0, factLayout: "spread" },
} as const satisfies Partial<MiniParams>;

/** Wikipedia (TopiOCQA's and NQ's collection): long articles about popular, often mentioned topics, in a larger collection. */
const WIKIPEDIA = {
  ...BASE,
  entities: 400,
  scale: 16_000,
  popularity: 1.15,
  namePools: { first: 35, surname: 85, placeRoot: 70 },
  articles: { sectionPassages: [5, 8], fillers: [2, 4], mentionRate: 0.33, echoRate: 0.45, fullNameRate: 0.7, popularLength: 0, factLayout: "spread" },
} as const satisfies Partial<MiniParams>;

/** Defaults: 4-16k passages per collection, ~1.6-1.9k train turns, 600-2,000 evaluation turns per dataset. */
export const DEFAULT_PARAMS: Readonly<Record<MiniDatasetName, MiniParams>> = {
  // QReCC ships no dev split (the authors cut 2,000 train conversations): train is larger.
  "mini-qrecc": { ...BASE, seed: 1001, trainTurns: 1900, devTurns: 0, testTurns: 2000, articles: { ...BASE.articles, sectionPassages: [1, 2] }, flavor: QRECC_FLAVOR },
  "mini-topiocqa": { ...WIKIPEDIA, seed: 2002, trainTurns: 1600, devTurns: 800, testTurns: 0, flavor: TOPIOCQA_FLAVOR },
  "mini-orquac": { ...BASE, seed: 3003, trainTurns: 1600, devTurns: 600, testTurns: 600, articles: { ...BASE.articles, sectionPassages: [3, 4], fillers: [3, 5] }, flavor: ORQUAC_FLAVOR },
  // Natural Questions is asked over Wikipedia too: the same kind of collection as TopiOCQA's.
  "mini-nq": { ...WIKIPEDIA, seed: 4004, trainTurns: 0, devTurns: 0, testTurns: 0, standaloneTrain: 3000, standaloneDev: 400, flavor: NQ_FLAVOR },
};

export type MiniParamsOverrides = Partial<Omit<MiniParams, "flavor">> & { readonly flavor?: ConversationFlavor };

const INT_FIELDS = ["seed", "entities", "scale", "trainTurns", "devTurns", "testTurns", "standaloneTrain", "standaloneDev"] as const;

function checkRate(field: string, v: number): void {
  if (!(v >= 0 && v <= 1)) throw new InputError(`${field} must be a probability in [0, 1], got ${String(v)}`, { field, fix: `set ${field} between 0 and 1` });
}

function checkRange(field: string, r: readonly [number, number], min: number): void {
  if (!Number.isInteger(r[0]) || !Number.isInteger(r[1]) || r[0] < min || r[1] < r[0]) {
    throw new InputError(`${field} must be [min, max] integers with ${min} <= min <= max, got [${r.join(", ")}]`, { field, fix: `use e.g. [${min}, ${min + 2}]` });
  }
}

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
  for (const [k, v] of Object.entries(p.namePools)) {
    if (!Number.isInteger(v) || v < 2) throw new InputError(`namePools.${k} must be an integer >= 2, got ${String(v)}`, { field: `namePools.${k}`, fix: "use a pool of at least 2 name parts" });
  }
  if (!(p.popularity >= 0 && p.popularity <= 3)) throw new InputError(`popularity must be a Zipf exponent in [0, 3], got ${String(p.popularity)}`, { field: "popularity", fix: "use 0 (uniform) to about 1" });
  checkRange("articles.sectionPassages", p.articles.sectionPassages, 1);
  checkRange("articles.fillers", p.articles.fillers, 0);
  checkRate("articles.mentionRate", p.articles.mentionRate);
  checkRate("articles.echoRate", p.articles.echoRate);
  if (p.articles.mentionRate + p.articles.echoRate > 1) throw new InputError("articles.mentionRate + articles.echoRate must be at most 1", { field: "articles", fix: "lower one of them" });
  checkRate("articles.fullNameRate", p.articles.fullNameRate);
  if (!(p.articles.popularLength >= 0 && p.articles.popularLength <= 20)) throw new InputError(`articles.popularLength must be in [0, 20], got ${String(p.articles.popularLength)}`, { field: "articles.popularLength", fix: "use 0 (no extra length) to a few" });
  const f = p.flavor;
  for (const [k, v] of [["noGoldRate", f.noGoldRate], ["introAnswerRate", f.introAnswerRate], ["questions.paraphraseRate", f.questions.paraphraseRate], ["questions.whatAbout", f.questions.whatAbout], ["questions.shortName", f.questions.shortName], ["questions.anaphora", f.questions.anaphora]] as const) checkRate(`flavor.${k}`, v);
  for (const [domain, s] of Object.entries(f.styles)) {
    checkRange(`flavor.styles.${domain}.turns`, s.turns, 1);
    for (const [k, v] of [["switchRate", s.switchRate], ["switchOnLink", s.switchOnLink], ["linkedSwitch", s.linkedSwitch], ["samePassage", s.samePassage], ["eventRate", s.eventRate]] as const) checkRate(`flavor.styles.${domain}.${k}`, v);
  }
  return p;
}
