/**
 * What the world is made of: entity kinds, their article sections, and for each
 * attribute the passage sentence(s) that state it and the question that asks for it.
 *
 * Templates: {N} = subject (the name, or a pronoun in follow-ups), {P} = possessive
 * ("Dorvane's" / "its" / "her"), {V} = the value. A registry, not an if-chain: add a kind
 * or an attribute by adding data here.
 */
import type { Rng } from "./rng.ts";
import {
  CLIMATES, CRITIC_TERMS, DISHES, FIELDS, GENRES, HOBBIES, INDUSTRIES, LANDMARKS, MOTTO_WORDS,
  ORG_INDUSTRIES, PRODUCTS, PROFESSIONS, REGIONS, THEMES, makeAwardName, makePersonName, makeWord,
} from "./lexicon.ts";

export type EntityKind = "person" | "place" | "work" | "organisation";
export const ENTITY_KINDS: readonly EntityKind[] = ["person", "place", "work", "organisation"];
/** Share of each kind among entities. */
export const KIND_WEIGHTS: readonly (readonly [EntityKind, number])[] = [
  ["person", 0.35], ["place", 0.25], ["work", 0.2], ["organisation", 0.2],
];

/** Picks an entity of a given kind (the world supplies it); returns its index and name. */
export type RefPicker = (kind: EntityKind) => { index: number; name: string };

export interface FactValue {
  readonly text: string;
  /** Index of the entity the value names, when it names one (a related entity). */
  readonly ref?: number;
}

export interface AttributeSpec {
  readonly key: string;
  readonly section: string;
  readonly value: (rng: Rng, ref: RefPicker) => FactValue;
  /** Passage sentence(s); one is picked per entity. */
  readonly sentences: readonly string[];
  /** The question; the rewrite is this template with the name filled in. */
  readonly question: string;
  /** Elliptic follow-up form ("when?"), only meaningful right after a turn on the same entity. */
  readonly short?: string;
}

export interface KindSpec {
  readonly kind: EntityKind;
  /** Descriptors for the introduction's first sentence: "{N} is a {D}." */
  readonly descriptors: readonly string[];
  readonly sections: readonly string[];
  readonly attributes: readonly AttributeSpec[];
}

const year = (lo: number, hi: number) => (rng: Rng): FactValue => ({ text: String(rng.range(lo, hi)) });
const word = (list: readonly string[]) => (rng: Rng): FactValue => ({ text: rng.pick(list) });
const refTo = (kind: EntityKind) => (_rng: Rng, ref: RefPicker): FactValue => {
  const r = ref(kind);
  return { text: r.name, ref: r.index };
};
const count = (lo: number, hi: number, step: number) => (rng: Rng): FactValue => ({
  text: String(rng.range(lo / step, hi / step) * step),
});

const PERSON: KindSpec = {
  kind: "person",
  descriptors: ["celebrated {profession}", "self-taught {profession}", "prolific {profession}", "travelling {profession}"],
  sections: ["Early life", "Career", "Personal life", "Legacy"],
  attributes: [
    { key: "birthplace", section: "Early life", value: refTo("place"), sentences: ["{N} was born in the town of {V}."], question: "where was {N} born?", short: "where?" },
    { key: "birthyear", section: "Early life", value: year(1720, 1960), sentences: ["{N} came into the world in the year {V}."], question: "in what year did {N} come into the world?", short: "what year?" },
    { key: "parents", section: "Early life", value: word(PROFESSIONS), sentences: ["Both parents of {N} earned a living as a {V}."], question: "how did {P} parents earn a living?" },
    { key: "study", section: "Early life", value: word(FIELDS), sentences: ["As a student {N} studied {V} at the academy."], question: "what did {N} study at the academy?" },
    { key: "profession", section: "Career", value: word(PROFESSIONS), sentences: ["{N} worked as a {V} for most of {P} career."], question: "what did {N} work as?" },
    { key: "employer", section: "Career", value: refTo("organisation"), sentences: ["{N} joined {V} as a young apprentice."], question: "which company did {N} join as an apprentice?" },
    { key: "notable-work", section: "Career", value: refTo("work"), sentences: ["The best known work of {N} is {V}."], question: "what is {P} best known work?" },
    { key: "years-active", section: "Career", value: count(8, 60, 1), sentences: ["{N} remained professionally active for {V} years."], question: "for how many years did {N} remain professionally active?", short: "for how long?" },
    { key: "spouse", section: "Personal life", value: (rng) => ({ text: makePersonName(rng) }), sentences: ["{N} married {V} after a long engagement."], question: "who did {N} marry?" },
    { key: "residence", section: "Personal life", value: refTo("place"), sentences: ["Late in life {N} settled in {V}."], question: "where did {N} settle late in life?" },
    { key: "hobby", section: "Personal life", value: word(HOBBIES), sentences: ["{N} spent free afternoons on {V}."], question: "what did {N} spend free afternoons on?" },
    { key: "award", section: "Legacy", value: (rng) => ({ text: `the ${makeAwardName(rng)}` }), sentences: ["{N} was honoured with {V}."], question: "which honour did {N} receive?" },
    { key: "death", section: "Legacy", value: year(1790, 2020), sentences: ["{N} passed away in {V}."], question: "when did {N} pass away?", short: "when?" },
    { key: "influenced", section: "Legacy", value: refTo("person"), sentences: ["{N} strongly influenced the younger {V}."], question: "who did {N} strongly influence?" },
  ],
};

const PLACE: KindSpec = {
  kind: "place",
  descriptors: ["market town", "fishing village", "river port", "hill town", "cathedral city"],
  sections: ["Geography", "History", "Economy", "Culture"],
  attributes: [
    { key: "region", section: "Geography", value: word(REGIONS), sentences: ["{N} lies in the {V} part of the country."], question: "in which part of the country does {N} lie?" },
    { key: "river", section: "Geography", value: (rng) => ({ text: makeWord(rng, 2, 2) }), sentences: ["{N} sits on the banks of the river {V}."], question: "on which river does {N} sit?" },
    { key: "climate", section: "Geography", value: word(CLIMATES), sentences: ["{N} has a {V} climate with short summers."], question: "what kind of climate does {N} have?" },
    { key: "elevation", section: "Geography", value: count(10, 2400, 10), sentences: ["{N} stands at an elevation of {V} metres."], question: "at what elevation does {N} stand?", short: "how high?" },
    { key: "founded", section: "History", value: year(900, 1850), sentences: ["{N} received its founding charter in {V}."], question: "when did {N} receive its founding charter?", short: "when?" },
    { key: "founder", section: "History", value: refTo("person"), sentences: ["The first settlement at {N} was led by {V}."], question: "who led {P} first settlement?" },
    { key: "old-name", section: "History", value: (rng) => ({ text: makeWord(rng, 2, 3) }), sentences: ["In older documents {N} appears under the name {V}."], question: "under what name does {N} appear in older documents?" },
    { key: "industry", section: "Economy", value: word(INDUSTRIES), sentences: ["The economy of {N} depends on {V}."], question: "what does {P} economy depend on?" },
    { key: "product", section: "Economy", value: word(PRODUCTS), sentences: ["Traders sell {V} made in {N} across the region."], question: "what goods does {N} make for traders?" },
    { key: "population", section: "Economy", value: count(400, 250000, 100), sentences: ["{N} counts a population of {V} inhabitants."], question: "what population does {N} count?", short: "how many inhabitants?" },
    { key: "festival", section: "Culture", value: (rng) => ({ text: `${makeWord(rng, 2, 2)} festival` }), sentences: ["Every summer {N} hosts the {V}."], question: "which festival does {N} host every summer?" },
    { key: "dish", section: "Culture", value: word(DISHES), sentences: ["A traditional dish of {N} is {V}."], question: "what is {P} traditional dish?" },
    { key: "landmark", section: "Culture", value: word(LANDMARKS), sentences: ["Visitors to {N} mostly come to see the {V}."], question: "what is {P} main sight for visitors?" },
  ],
};

const WORK: KindSpec = {
  kind: "work",
  descriptors: ["novel", "opera", "verse drama", "collection of stories", "painting cycle"],
  sections: ["Background", "Content", "Reception"],
  attributes: [
    { key: "creator", section: "Background", value: refTo("person"), sentences: ["{N} was created by {V}."], question: "by whom was {N} created?" },
    { key: "published", section: "Background", value: year(1750, 2015), sentences: ["{N} first appeared in print in {V}."], question: "when did {N} first appear in print?", short: "when?" },
    { key: "genre", section: "Background", value: word(GENRES), sentences: ["{N} is classified by scholars as a {V} work."], question: "how is {N} classified by scholars?" },
    { key: "setting", section: "Content", value: refTo("place"), sentences: ["The story of {N} is set in {V}."], question: "where is {P} story set?", short: "where?" },
    { key: "theme", section: "Content", value: word(THEMES), sentences: ["{N} explores the theme of {V}."], question: "what theme does {N} explore?" },
    { key: "protagonist", section: "Content", value: (rng) => ({ text: makePersonName(rng) }), sentences: ["The central character of {N} is {V}."], question: "who is {P} central character?" },
    { key: "work-award", section: "Reception", value: (rng) => ({ text: `the ${makeAwardName(rng)}` }), sentences: ["{N} won {V} soon after release."], question: "what did {N} win soon after release?" },
    { key: "sales", section: "Reception", value: count(2000, 900000, 1000), sentences: ["{N} sold {V} copies in its first year."], question: "how many copies did {N} sell in its first year?", short: "how many copies?" },
    { key: "critics", section: "Reception", value: word(CRITIC_TERMS), sentences: ["Critics called {N} {V}."], question: "what was {N} called by critics?" },
  ],
};

const ORGANISATION: KindSpec = {
  kind: "organisation",
  descriptors: ["trading house", "manufacturing firm", "learned society", "family business", "cooperative"],
  sections: ["History", "Operations", "Leadership"],
  attributes: [
    { key: "established", section: "History", value: year(1700, 1990), sentences: ["{N} was formally established in {V}."], question: "when was {N} formally established?", short: "when?" },
    { key: "org-founder", section: "History", value: refTo("person"), sentences: ["{N} owes its existence to {V}."], question: "to whom does {N} owe its existence?" },
    { key: "headquarters", section: "History", value: refTo("place"), sentences: ["{N} keeps its headquarters in {V}."], question: "where does {N} keep its headquarters?", short: "where?" },
    { key: "org-industry", section: "Operations", value: word(ORG_INDUSTRIES), sentences: ["{N} operates in the {V} industry."], question: "in which industry does {N} operate?" },
    { key: "org-product", section: "Operations", value: word(PRODUCTS), sentences: ["The main product of {N} is {V}."], question: "what is {P} main product?" },
    { key: "employees", section: "Operations", value: count(20, 40000, 10), sentences: ["{N} employs about {V} people."], question: "how many people does {N} employ?", short: "how many people?" },
    { key: "chair", section: "Leadership", value: refTo("person"), sentences: ["{N} is chaired by {V}."], question: "by whom is {N} chaired?" },
    { key: "motto", section: "Leadership", value: (rng) => ({ text: `${rng.pick(MOTTO_WORDS)} and ${rng.pick(MOTTO_WORDS)}` }), sentences: ["{N} adopted the motto {V}."], question: "what motto did {N} adopt?" },
    { key: "rival", section: "Leadership", value: refTo("organisation"), sentences: ["The fiercest competitor of {N} is {V}."], question: "who is {P} fiercest competitor?" },
  ],
};

export const KIND_SPECS: Readonly<Record<EntityKind, KindSpec>> = {
  person: PERSON, place: PLACE, work: WORK, organisation: ORGANISATION,
};

export const INTRO_SECTION = "Introduction";

/** Subject forms used when filling templates. */
export interface Subject {
  /** Subject position: the name, or "he"/"she"/"it". */
  readonly n: string;
  /** Possessive: "Dorvane's", or "his"/"her"/"its". */
  readonly p: string;
}

export function fillTemplate(template: string, s: Subject, value = ""): string {
  return fixArticles(template.replaceAll("{N}", s.n).replaceAll("{P}", s.p).replaceAll("{V}", value));
}

/** English article agreement before a lowercase vowel ("a epic" -> "an epic"). */
export function fixArticles(text: string): string {
  return text.replace(/\b([Aa]) ([aeiou])/g, "$1n $2");
}

export function capitaliseFirst(s: string): string {
  return s.length === 0 ? s : s.charAt(0).toUpperCase() + s.slice(1);
}
