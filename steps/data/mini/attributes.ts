/**
 * The facts an entity has, per kind: for each attribute the section that states it, how its
 * value is drawn, the passage sentences that can state it, and the questions that ask for it.
 *
 * Questions come in two kinds, which is how the mini world reproduces the vocabulary
 * mismatch between questions and passages of real conversational search:
 * - `literal[i]` reuses a content word of `statements[i]` ("when was X founded?" for "X was
 *   founded in 1820."), as a question written while looking at the passage would;
 * - `paraphrase` questions share no content word (after Lucene's English analysis) with any
 *   statement of the attribute ("how old is X?"), as questions asked without seeing the
 *   passage mostly are. Which share of questions is paraphrased is a param (params.ts).
 * test/data/mini/attributes.test.ts checks both properties with the pipeline's own analyzer.
 *
 * Templates: {N} = subject (the name, or a pronoun in follow-ups), {P} = possessive
 * ("Dorvane's" / "its" / "her"), {V} = the value. Data only: add an attribute by adding a row.
 */
import type { Rng } from "./rng.ts";
import {
  CLIMATES, CRITIC_TERMS, DISHES, FIELDS, GENRES, HOBBIES, INDUSTRIES, LANDMARKS, MOTTO_WORDS,
  ORG_INDUSTRIES, PRODUCTS, PROFESSIONS, REGIONS, THEMES, makeAwardName, makePersonName, makeWord,
} from "./lexicon.ts";
import type { NamePools } from "./lexicon.ts";

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
  readonly value: (rng: Rng, ref: RefPicker, pools: NamePools) => FactValue;
  /** Passage sentences; one is picked per entity. */
  readonly statements: readonly string[];
  /** One question per statement, reusing a content word of it. */
  readonly literal: readonly string[];
  /** Questions sharing no content word with any statement. */
  readonly paraphrase: readonly string[];
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
const personName = (rng: Rng, _ref: RefPicker, pools: NamePools): FactValue => ({ text: makePersonName(rng, pools) });
const award = (rng: Rng, _ref: RefPicker, pools: NamePools): FactValue => ({ text: `the ${makeAwardName(rng, pools)}` });

const PERSON: KindSpec = {
  kind: "person",
  descriptors: ["celebrated {profession}", "self-taught {profession}", "prolific {profession}", "travelling {profession}"],
  sections: ["Early life", "Career", "Personal life", "Legacy"],
  attributes: [
    { key: "birthplace", section: "Early life", value: refTo("place"),
      statements: ["{N} was born in {V}.", "{N} grew up in the town of {V}."],
      literal: ["where was {N} born?", "in which town did {N} grow up?"],
      paraphrase: ["what is {P} hometown?", "where does {N} originally hail from?"], short: "where?" },
    { key: "birthyear", section: "Early life", value: year(1720, 1960),
      statements: ["{N} was born in the year {V}.", "{N} came into the world in {V}."],
      literal: ["in what year was {N} born?", "when did {N} enter the world?"],
      paraphrase: ["what is {P} date of birth?", "how long ago is {P} birthday?"], short: "what year?" },
    { key: "parents", section: "Early life", value: word(PROFESSIONS),
      statements: ["The father of {N} worked as a {V}.", "{N} was the child of a {V}."],
      literal: ["what did {P} father work as?", "whose child was {N}?"],
      paraphrase: ["what was {P} family's trade?", "how did {P} dad earn money?"] },
    { key: "study", section: "Early life", value: word(FIELDS),
      statements: ["{N} studied {V} at the academy.", "As a student {N} trained in {V}."],
      literal: ["what did {N} study at the academy?", "what was {N} trained in?"],
      paraphrase: ["which subject did {N} major in?", "what was {P} degree?"] },
    { key: "profession", section: "Career", value: word(PROFESSIONS),
      statements: ["{N} was a {V} for most of {P} career.", "By trade {N} was a {V}."],
      literal: ["what was {N} for most of {P} career?", "what was {P} trade?"],
      paraphrase: ["what was {P} job?", "what did {N} do for a living?"] },
    { key: "employer", section: "Career", value: refTo("organisation"),
      statements: ["{N} joined {V} as a young apprentice.", "{N} was employed by {V}."],
      literal: ["which company did {N} join as an apprentice?", "who employed {N}?"],
      paraphrase: ["where did {N} get {P} first position?", "which firm hired {N}?"] },
    { key: "notable-work", section: "Career", value: refTo("work"),
      statements: ["The best known work of {N} is {V}.", "{N} is famous for {V}."],
      literal: ["what is the best known work of {N}?", "what is {N} famous for?"],
      paraphrase: ["what is {P} most celebrated creation?", "which piece made {N} a household name?"] },
    { key: "years-active", section: "Career", value: count(8, 60, 1),
      statements: ["{N} remained professionally active for {V} years.", "The career of {N} lasted {V} years."],
      literal: ["for how many years did {N} remain active?", "how long did {P} career last?"],
      paraphrase: ["over how long a span did {N} practise?", "for what period did {N} keep going?"], short: "for how long?" },
    { key: "spouse", section: "Personal life", value: personName,
      statements: ["{N} married {V}.", "{V} was the partner of {N}."],
      literal: ["who did {N} marry?", "who was {P} partner?"],
      paraphrase: ["who was {N} wedded to?", "with whom did {N} tie the knot?"] },
    { key: "residence", section: "Personal life", value: refTo("place"),
      statements: ["Late in life {N} settled in {V}.", "{N} spent {P} final years in {V}."],
      literal: ["where did {N} settle late in life?", "where did {N} spend {P} final years?"],
      paraphrase: ["where did {N} retire to?", "which place did {N} call home in old age?"] },
    { key: "hobby", section: "Personal life", value: word(HOBBIES),
      statements: ["{N} spent free afternoons on {V}.", "In spare time {N} enjoyed {V}."],
      literal: ["what did {N} do on free afternoons?", "what did {N} enjoy in spare time?"],
      paraphrase: ["what was {P} favourite pastime?", "how did {N} relax?"] },
    { key: "award", section: "Legacy", value: award,
      statements: ["{N} was honoured with {V}.", "{N} received {V}."],
      literal: ["what was {N} honoured with?", "what did {N} receive?"],
      paraphrase: ["which distinction was given to {N}?", "how was {N} recognised?"] },
    { key: "death", section: "Legacy", value: year(1790, 2020),
      statements: ["{N} died in {V}.", "{N} passed away in {V}."],
      literal: ["in which year had {N} died?", "when did {N} pass away?"],
      paraphrase: ["when did {P} life end?", "how long ago did {N} perish?"], short: "when?" },
    { key: "influenced", section: "Legacy", value: refTo("person"),
      statements: ["{N} strongly influenced the younger {V}.", "{V} was a pupil of {N}."],
      literal: ["who did {N} influence?", "who was a pupil of {N}?"],
      paraphrase: ["whom did {N} inspire?", "which student followed in {P} footsteps?"] },
  ],
};

const PLACE: KindSpec = {
  kind: "place",
  descriptors: ["market town", "fishing village", "river port", "hill town", "cathedral city"],
  sections: ["Geography", "History", "Economy", "Culture"],
  attributes: [
    { key: "region", section: "Geography", value: word(REGIONS),
      statements: ["{N} lies in the {V} part of the country.", "{N} is located in the {V} region."],
      literal: ["in which part of the country does {N} lie?", "in which region is {N} located?"],
      paraphrase: ["whereabouts is {N}?", "what area is {N} found in?"] },
    { key: "river", section: "Geography", value: (rng) => ({ text: makeWord(rng, 2, 2) }),
      statements: ["{N} sits on the banks of the river {V}.", "The river {V} flows through {N}."],
      literal: ["on which river does {N} sit?", "which river flows through {N}?"],
      paraphrase: ["what waterway runs past {N}?", "what stream passes {N}?"] },
    { key: "climate", section: "Geography", value: word(CLIMATES),
      statements: ["{N} has a {V} climate.", "The weather in {N} is {V}."],
      literal: ["what climate does {N} have?", "what is the weather like in {N}?"],
      paraphrase: ["is it warm or cold in {N}?", "what conditions should one expect in {N}?"] },
    { key: "elevation", section: "Geography", value: count(10, 2400, 10),
      statements: ["{N} stands at an elevation of {V} metres.", "{N} is {V} metres above sea level."],
      literal: ["at what elevation does {N} stand?", "how many metres above sea level is {N}?"],
      paraphrase: ["how high up is {N}?", "what altitude is {N} at?"], short: "how high?" },
    { key: "founded", section: "History", value: year(900, 1850),
      statements: ["{N} received its founding charter in {V}.", "{N} was founded in {V}."],
      literal: ["when did {N} receive its charter?", "when was {N} founded?"],
      paraphrase: ["how old is {N}?", "since when has {N} existed?"], short: "when?" },
    { key: "founder", section: "History", value: refTo("person"),
      statements: ["The first settlement at {N} was led by {V}.", "{V} established the first settlement at {N}."],
      literal: ["who led the first settlement at {N}?", "who established the settlement at {N}?"],
      paraphrase: ["who started {N}?", "who were {P} original settlers guided by?"] },
    { key: "old-name", section: "History", value: (rng) => ({ text: makeWord(rng, 2, 3) }),
      statements: ["In older documents {N} appears under the name {V}.", "{N} was formerly called {V}."],
      literal: ["under what name does {N} appear in older documents?", "what was {N} formerly called?"],
      paraphrase: ["what did people use to say for {N}?", "what was {P} previous title?"] },
    { key: "industry", section: "Economy", value: word(INDUSTRIES),
      statements: ["The economy of {N} depends on {V}.", "Most people in {N} make their living from {V}."],
      literal: ["what does the economy of {N} depend on?", "how do most people in {N} make their living?"],
      paraphrase: ["what is the main source of income in {N}?", "what keeps {N} prosperous?"] },
    { key: "product", section: "Economy", value: word(PRODUCTS),
      statements: ["Traders sell {V} made in {N} across the region.", "{N} is known for producing {V}."],
      literal: ["what goods made in {N} do traders sell?", "what is {N} known for producing?"],
      paraphrase: ["what does {N} export?", "which wares come from {N}?"] },
    { key: "population", section: "Economy", value: count(400, 250000, 100),
      statements: ["{N} has a population of {V}.", "About {V} people live in {N}."],
      literal: ["what is the population of {N}?", "how many people live in {N}?"],
      paraphrase: ["how big is {N}?", "how many inhabitants does {N} count?"], short: "how many inhabitants?" },
    { key: "festival", section: "Culture", value: (rng) => ({ text: `${makeWord(rng, 2, 2)} festival` }),
      statements: ["Every summer {N} hosts the {V}.", "The {V} is held in {N} each year."],
      literal: ["which event does {N} host every summer?", "what is held in {N} each year?"],
      paraphrase: ["what celebration takes place in {N}?", "what big gathering does {N} organise?"] },
    { key: "dish", section: "Culture", value: word(DISHES),
      statements: ["A traditional dish of {N} is {V}.", "Visitors to {N} often eat {V}."],
      literal: ["what is a traditional dish of {N}?", "what do visitors to {N} eat?"],
      paraphrase: ["what food is {N} famous for?", "what should one try at a restaurant in {N}?"] },
    { key: "landmark", section: "Culture", value: word(LANDMARKS),
      statements: ["Tourists to {N} mostly come to see the {V}.", "The best known sight in {N} is the {V}."],
      literal: ["what do tourists to {N} come to see?", "what is the best known sight in {N}?"],
      paraphrase: ["what is the main attraction of {N}?", "what is worth a look in {N}?"] },
  ],
};

const WORK: KindSpec = {
  kind: "work",
  descriptors: ["novel", "opera", "verse drama", "collection of stories", "painting cycle"],
  sections: ["Background", "Content", "Reception"],
  attributes: [
    { key: "creator", section: "Background", value: refTo("person"),
      statements: ["{N} was written by {V}.", "{V} is the author of {N}."],
      literal: ["by whom was {N} written?", "who is the author of {N}?"],
      paraphrase: ["who created {N}?", "whose pen produced {N}?"] },
    { key: "published", section: "Background", value: year(1750, 2015),
      statements: ["{N} was first published in {V}.", "{N} first appeared in print in {V}."],
      literal: ["when was {N} first published?", "when did {N} first appear in print?"],
      paraphrase: ["when did {N} come out?", "what is the release date of {N}?"], short: "when?" },
    { key: "genre", section: "Background", value: word(GENRES),
      statements: ["{N} is a {V} work.", "Scholars classify {N} as {V}."],
      literal: ["what kind of work is {N}?", "how do scholars classify {N}?"],
      paraphrase: ["what genre is {N}?", "what category does {N} belong to?"] },
    { key: "setting", section: "Content", value: refTo("place"),
      statements: ["The story of {N} is set in {V}.", "{N} takes place in {V}."],
      literal: ["where is the story of {N} set?", "where does {N} take place?"],
      paraphrase: ["in what location does {N} unfold?", "where do the events of {N} happen?"], short: "where?" },
    { key: "theme", section: "Content", value: word(THEMES),
      statements: ["{N} explores the theme of {V}.", "The central subject of {N} is {V}."],
      literal: ["what theme does {N} explore?", "what is the central subject of {N}?"],
      paraphrase: ["what is {N} about?", "what idea runs through {N}?"] },
    { key: "protagonist", section: "Content", value: personName,
      statements: ["The main character of {N} is {V}.", "{N} follows the life of {V}."],
      literal: ["who is the main character of {N}?", "whose life does {N} follow?"],
      paraphrase: ["who is the hero of {N}?", "who does {N} centre on?"] },
    { key: "work-award", section: "Reception", value: award,
      statements: ["{N} won {V} soon after release.", "{N} was awarded {V}."],
      literal: ["what did {N} win soon after release?", "what was {N} awarded?"],
      paraphrase: ["what recognition did {N} get?", "which accolade went to {N}?"] },
    { key: "sales", section: "Reception", value: count(2000, 900000, 1000),
      statements: ["{N} sold {V} copies in its first year.", "In its first year {N} found {V} buyers."],
      literal: ["how many copies did {N} sell?", "how many buyers did {N} find?"],
      paraphrase: ["how popular was {N} commercially?", "how well did {N} do in shops?"], short: "how many copies?" },
    { key: "critics", section: "Reception", value: word(CRITIC_TERMS),
      statements: ["Critics called {N} {V}.", "Reviewers described {N} as {V}."],
      literal: ["what did critics call {N}?", "how did reviewers describe {N}?"],
      paraphrase: ["how was {N} received?", "what was the verdict on {N}?"] },
  ],
};

const ORGANISATION: KindSpec = {
  kind: "organisation",
  descriptors: ["trading house", "manufacturing firm", "learned society", "family business", "cooperative"],
  sections: ["History", "Operations", "Leadership"],
  attributes: [
    { key: "established", section: "History", value: year(1700, 1990),
      statements: ["{N} was formally established in {V}.", "{N} opened its doors in {V}."],
      literal: ["when was {N} established?", "when did {N} open its doors?"],
      paraphrase: ["how long has {N} been around?", "what year did {N} start?"], short: "when?" },
    { key: "org-founder", section: "History", value: refTo("person"),
      statements: ["{N} owes its existence to {V}.", "{V} founded {N}."],
      literal: ["to whom does {N} owe its existence?", "who founded {N}?"],
      paraphrase: ["who started {N}?", "who was behind the creation of {N}?"] },
    { key: "headquarters", section: "History", value: refTo("place"),
      statements: ["{N} keeps its headquarters in {V}.", "{N} is based in {V}."],
      literal: ["where does {N} keep its headquarters?", "where is {N} based?"],
      paraphrase: ["where is the head office of {N}?", "which city does {N} operate out of?"], short: "where?" },
    { key: "org-industry", section: "Operations", value: word(ORG_INDUSTRIES),
      statements: ["{N} is active in the {V} industry.", "{N} is a {V} business."],
      literal: ["in which industry is {N} active?", "what kind of business is {N}?"],
      paraphrase: ["what sector is {N} in?", "what line of trade does {N} follow?"] },
    { key: "org-product", section: "Operations", value: word(PRODUCTS),
      statements: ["The main product of {N} is {V}.", "{N} manufactures {V}."],
      literal: ["what is the main product of {N}?", "what does {N} manufacture?"],
      paraphrase: ["what does {N} make?", "what do customers buy from {N}?"] },
    { key: "employees", section: "Operations", value: count(20, 40000, 10),
      statements: ["{N} employs about {V} people.", "The workforce of {N} numbers {V}."],
      literal: ["how many people does {N} employ?", "how large is the workforce of {N}?"],
      paraphrase: ["how many staff work at {N}?", "how big is {N}?"], short: "how many people?" },
    { key: "chair", section: "Leadership", value: refTo("person"),
      statements: ["{N} is chaired by {V}.", "{V} leads the board of {N}."],
      literal: ["who chairs {N}?", "who leads the board of {N}?"],
      paraphrase: ["who is in charge of {N}?", "who runs {N}?"] },
    { key: "motto", section: "Leadership", value: (rng) => ({ text: `${rng.pick(MOTTO_WORDS)} and ${rng.pick(MOTTO_WORDS)}` }),
      statements: ["{N} adopted the motto {V}.", "The slogan of {N} is {V}."],
      literal: ["what motto did {N} adopt?", "what is the slogan of {N}?"],
      paraphrase: ["what words does {N} live by?", "what is {P} catchphrase?"] },
    { key: "rival", section: "Leadership", value: refTo("organisation"),
      statements: ["The fiercest competitor of {N} is {V}.", "{N} competes mainly with {V}."],
      literal: ["who is the fiercest competitor of {N}?", "who does {N} compete with?"],
      paraphrase: ["who is {P} main rival?", "which firm is up against {N}?"] },
  ],
};

export const KIND_SPECS: Readonly<Record<EntityKind, KindSpec>> = {
  person: PERSON, place: PLACE, work: WORK, organisation: ORGANISATION,
};

export function attributeSpec(kind: EntityKind, attr: string): AttributeSpec {
  const spec = KIND_SPECS[kind].attributes.find((a) => a.key === attr);
  if (spec === undefined) throw new Error(`unknown attribute ${attr} for kind ${kind}`);
  return spec;
}

/**
 * Open follow-ups ("what happened next?"), answered by another sentence of the passage the
 * conversation is reading, as QuAC and TopiOCQA askers do. They name nothing: only the
 * history tells which passage they continue. The rewrite names the entity and the section.
 */
export const EVENT_QUESTIONS: readonly string[] = [
  "what happened next?", "what else happened?", "anything else notable?", "what else is known?", "did anything else happen?",
];
export const EVENT_REWRITE = "what else is known about {N}'s {S}?";
export const EVENT_ATTR = "event";

