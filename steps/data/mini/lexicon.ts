/**
 * The synthetic lexicon: syllables for names, fixed English word lists for attribute values
 * and filler prose, and the name-part pools entity names are drawn from. Plain data plus
 * builders that take their randomness from the caller.
 *
 * Names are built from small pools of parts (first names, surnames, place roots), as real
 * names are: many people share a first name or a surname, places are named after people
 * ("Vardis Bay"), firms after their founders or towns. A name token therefore rarely
 * identifies one entity on its own, which is what makes lexical matching on names ambiguous
 * in real collections (params.ts: `namePools`).
 */
import type { Rng } from "./rng.ts";

export const ONSETS = [
  "b", "br", "c", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr",
  "r", "s", "st", "t", "tr", "v", "vr", "w", "z", "th", "sh", "ch", "qu",
] as const;
export const NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "ae", "y"] as const;
export const CODAS = ["", "", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "sk", "x", "v"] as const;
export const PLACE_SUFFIXES = ["", "", "", "ford", "holm", "mark", "vale", "burg", "stead", "mouth", "wick", "thorpe"] as const;
/** Separate words that follow a place root ("Vardis Bay"). */
export const PLACE_WORDS = ["Bay", "Vale", "Falls", "Harbour", "Bridge", "Hill", "Cross", "Ford", "Green", "Point"] as const;
/** Words that precede a place root ("Port Vardis"). */
export const PLACE_PREFIXES = ["Port", "New", "Upper", "Lower", "Saint", "Fort"] as const;

export const PROFESSIONS = [
  "architect", "painter", "sculptor", "physician", "engineer", "astronomer", "composer", "poet",
  "botanist", "cartographer", "merchant", "lawyer", "historian", "chemist", "violinist", "navigator",
  "surveyor", "teacher", "printer", "weaver", "jeweller", "diplomat", "journalist", "photographer",
] as const;
export const FIELDS = [
  "mathematics", "medicine", "law", "philosophy", "music", "chemistry", "geology", "rhetoric",
  "architecture", "astronomy", "botany", "economics", "literature", "painting", "theology", "agriculture",
] as const;
export const HOBBIES = [
  "sailing", "chess", "gardening", "falconry", "fencing", "beekeeping", "fishing", "hiking",
  "calligraphy", "pottery", "birdwatching", "rowing", "archery", "woodcarving", "cycling", "astronomy",
] as const;
export const REGIONS = [
  "northern", "southern", "eastern", "western", "coastal", "highland", "lowland", "central",
  "alpine", "lakeland", "border", "delta", "forest", "steppe", "island", "valley",
] as const;
export const CLIMATES = [
  "temperate", "humid", "dry", "oceanic", "continental", "subarctic", "mild", "windy", "rainy", "arid",
] as const;
export const INDUSTRIES = [
  "fishing", "mining", "textile", "shipbuilding", "tourism", "farming", "timber", "brewing",
  "glassmaking", "salt", "wine", "banking", "printing", "railway", "steel", "pottery",
] as const;
export const PRODUCTS = [
  "cheese", "lace", "copper kettles", "woollen blankets", "honey", "clocks", "saddles", "porcelain",
  "olive oil", "linen", "rope", "candles", "maps", "violins", "barrels", "bicycles", "lanterns", "tiles",
] as const;
export const DISHES = [
  "barley soup", "smoked eel", "plum dumplings", "lamb stew", "rye bread", "onion pie", "pickled herring",
  "chestnut cake", "mushroom broth", "cabbage rolls", "apple fritters", "bean porridge",
] as const;
export const LANDMARKS = [
  "old lighthouse", "stone bridge", "clock tower", "cathedral", "harbour wall", "castle ruins",
  "botanical garden", "windmill", "observatory", "market hall", "city gate", "amphitheatre",
] as const;
export const GENRES = [
  "historical", "comic", "tragic", "satirical", "romantic", "adventure", "mystery", "pastoral",
  "philosophical", "epic", "gothic", "allegorical",
] as const;
export const THEMES = [
  "exile", "loyalty", "memory", "ambition", "betrayal", "friendship", "grief", "justice", "freedom",
  "jealousy", "redemption", "solitude", "pride", "hope",
] as const;
export const CRITIC_TERMS = [
  "a quiet masterpiece", "uneven but bold", "deeply moving", "overly long", "strikingly original",
  "a minor classic", "cold and distant", "warm and humorous", "ambitious and strange",
] as const;
export const ORG_INDUSTRIES = [
  "shipping", "insurance", "publishing", "railway", "chemical", "textile", "brewing", "telegraph",
  "banking", "mining", "aviation", "pharmaceutical", "furniture", "optical",
] as const;
export const MOTTO_WORDS = [
  "honour", "progress", "courage", "unity", "labour", "truth", "service", "wisdom", "patience", "light",
] as const;
export const ORG_SUFFIXES = ["Company", "Society", "Works", "Trust", "Guild", "Brothers", "Institute", "Union"] as const;
export const WORK_NOUNS = [
  "Harbor", "Lantern", "Orchard", "Winter", "Mirror", "Garden", "River", "Tower", "Voyage", "Letters",
  "Crown", "Field", "Shadow", "Bell", "Road", "Island", "Frost", "Fire", "Song", "Map",
] as const;
export const WORK_ADJECTIVES = [
  "Silent", "Last", "Golden", "Broken", "Hidden", "Distant", "Red", "Long", "Quiet", "Northern",
  "Burning", "Empty", "Lost", "Second", "Green", "Iron",
] as const;
export const AWARD_KINDS = ["Prize", "Medal", "Award", "Cross", "Laurel"] as const;

/** Topical words per section name: fillers of a section share them across entities (hard negatives). */
export const SECTION_VOCAB: Readonly<Record<string, readonly string[]>> = {
  "Introduction": ["sources", "archives", "travellers", "chronicles", "guides", "accounts", "scholars", "visitors"],
  "Early life": ["childhood", "family", "village", "youth", "siblings", "tutor", "winters", "household"],
  "Career": ["commission", "workshop", "clients", "apprentice", "colleagues", "projects", "contract", "studio"],
  "Personal life": ["friends", "letters", "home", "garden", "travels", "evenings", "neighbours", "health"],
  "Legacy": ["memorial", "students", "reputation", "biography", "statue", "archive", "centenary", "exhibition"],
  "Geography": ["hills", "valley", "coast", "plain", "lake", "soil", "forest", "meadows"],
  "History": ["charter", "settlers", "war", "treaty", "council", "siege", "records", "century"],
  "Economy": ["market", "trade", "harbour", "workers", "goods", "exports", "guilds", "prices"],
  "Culture": ["music", "dance", "theatre", "costume", "traditions", "church", "square", "songs"],
  "Background": ["manuscript", "draft", "publisher", "edition", "notebook", "inspiration", "chapters", "proofs"],
  "Content": ["narrator", "chapter", "scene", "journey", "village", "dialogue", "ending", "episode"],
  "Reception": ["reviewers", "readers", "translation", "audience", "praise", "controversy", "reprint", "sales"],
  "Operations": ["factories", "offices", "branches", "customers", "warehouses", "staff", "routes", "orders"],
  "Leadership": ["board", "directors", "shareholders", "chairman", "meeting", "policy", "vote", "succession"],
};

export const FILLER_ADJECTIVES = [
  "small", "large", "old", "new", "busy", "quiet", "famous", "modest", "remote", "wealthy", "humble",
  "important", "early", "later", "brief", "steady", "rapid", "gradual", "local", "regional", "annual",
  "narrow", "wide", "bright", "dark", "ancient", "modern", "curious", "careful", "generous",
] as const;
export const FILLER_NOUNS = [
  "period", "decade", "season", "journey", "building", "road", "bridge", "school", "library", "newspaper",
  "museum", "council", "festival", "market", "railway", "canal", "church", "tower", "square", "street",
  "harvest", "storm", "flood", "fire", "census", "survey", "collection", "portrait", "report", "debate",
] as const;
export const FILLER_VERBS = [
  "described", "praised", "recorded", "visited", "restored", "rebuilt", "studied", "mentioned", "celebrated",
  "documented", "photographed", "measured", "criticised", "remembered", "expanded", "replaced",
] as const;

function syllable(rng: Rng): string {
  return rng.pick(ONSETS) + rng.pick(NUCLEI) + rng.pick(CODAS);
}

function capitalise(s: string): string {
  return s.length === 0 ? s : s.charAt(0).toUpperCase() + s.slice(1);
}

/** A pseudo-English word of 2-3 syllables, capitalised ("Dravonel"). */
export function makeWord(rng: Rng, minSyllables = 2, maxSyllables = 3): string {
  const n = rng.range(minSyllables, maxSyllables);
  let w = "";
  for (let i = 0; i < n; i++) w += syllable(rng);
  return capitalise(w);
}

/** The parts names are built from; sizes are params (`namePools`). */
export interface NamePools {
  readonly first: readonly string[];
  readonly surname: readonly string[];
  readonly placeRoot: readonly string[];
}

export interface NamePoolSizes {
  readonly first: number;
  readonly surname: number;
  readonly placeRoot: number;
}

/** `n` distinct pseudo-words not in `taken` (which is extended). */
function distinctWords(rng: Rng, n: number, taken: Set<string>, min: number, max: number): string[] {
  const out: string[] = [];
  while (out.length < n) {
    const w = makeWord(rng, min, max);
    if (taken.has(w)) continue;
    taken.add(w);
    out.push(w);
  }
  return out;
}

/**
 * The name parts of the language every mini dataset is written in: one fixed list per part,
 * of which a dataset uses the first `sizes[part]` (so names recur across datasets, as real
 * first names and surnames do, and a model pre-trained on one dataset has seen them). Each
 * part has its own stream, so a larger pool extends a smaller one; a word may serve in two
 * parts, as "Jordan" is a first name, a surname and a place.
 */
export function makeNamePools(rngOf: (part: keyof NamePoolSizes) => Rng, sizes: NamePoolSizes): NamePools {
  return {
    first: distinctWords(rngOf("first"), sizes.first, new Set(), 2, 2),
    surname: distinctWords(rngOf("surname"), sizes.surname, new Set(), 2, 3),
    placeRoot: distinctWords(rngOf("placeRoot"), sizes.placeRoot, new Set(), 2, 2),
  };
}

export function makePersonName(rng: Rng, pools: NamePools): string {
  return `${rng.pick(pools.first)} ${rng.pick(pools.surname)}`;
}

/** A place root: its own pool, or (a third of the time) a surname, as towns named after people. */
function placeRoot(rng: Rng, pools: NamePools): string {
  return rng.chance(1 / 3) ? rng.pick(pools.surname) : rng.pick(pools.placeRoot);
}

export function makePlaceName(rng: Rng, pools: NamePools): string {
  const root = placeRoot(rng, pools);
  const r = rng.next();
  if (r < 0.35) return root + rng.pick(PLACE_SUFFIXES);
  if (r < 0.7) return `${root} ${rng.pick(PLACE_WORDS)}`;
  return `${rng.pick(PLACE_PREFIXES)} ${root}`;
}

export function makeWorkName(rng: Rng, pools: NamePools): string {
  const r = rng.next();
  if (r < 0.45) return `The ${rng.pick(WORK_ADJECTIVES)} ${rng.pick(WORK_NOUNS)}`;
  if (r < 0.8) return `${rng.pick(WORK_NOUNS)} of ${placeRoot(rng, pools)}`;
  return `${rng.pick(WORK_ADJECTIVES)} ${rng.pick(WORK_NOUNS)}s`;
}

export function makeOrgName(rng: Rng, pools: NamePools): string {
  const r = rng.next();
  if (r < 0.5) return `${rng.pick(pools.surname)} ${rng.pick(ORG_SUFFIXES)}`;
  if (r < 0.8) return `${placeRoot(rng, pools)} ${capitalise(rng.pick(ORG_INDUSTRIES))} ${rng.pick(ORG_SUFFIXES)}`;
  return `${rng.pick(WORK_ADJECTIVES)} ${rng.pick(WORK_NOUNS)} ${rng.pick(ORG_SUFFIXES)}`;
}

export function makeAwardName(rng: Rng, pools: NamePools): string {
  return `${rng.pick(pools.surname)} ${rng.pick(AWARD_KINDS)}`;
}
