/**
 * The synthetic lexicon: syllables for names, and fixed English word lists for attribute
 * values and filler prose. Plain data plus two name builders; no randomness of its own.
 */
import type { Rng } from "./rng.ts";

export const ONSETS = [
  "b", "br", "c", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr",
  "r", "s", "st", "t", "tr", "v", "vr", "w", "z", "th", "sh", "ch", "qu",
] as const;
export const NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "ae", "y"] as const;
export const CODAS = ["", "", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "sk", "x", "v"] as const;
export const PLACE_SUFFIXES = ["", "", "", "ford", "holm", "mark", "vale", "burg", "stead", "mouth", "wick", "thorpe"] as const;

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

export function makePersonName(rng: Rng): string {
  return `${makeWord(rng, 2, 2)} ${makeWord(rng, 2, 3)}`;
}

export function makePlaceName(rng: Rng): string {
  const base = makeWord(rng, 2, 2);
  const suffix = rng.pick(PLACE_SUFFIXES);
  return base + suffix;
}

export function makeWorkName(rng: Rng): string {
  return rng.chance(0.5)
    ? `The ${rng.pick(WORK_ADJECTIVES)} ${rng.pick(WORK_NOUNS)}`
    : `${rng.pick(WORK_NOUNS)} of ${makeWord(rng, 2, 2)}`;
}

export function makeOrgName(rng: Rng): string {
  return `${makeWord(rng, 2, 2)} ${rng.pick(ORG_SUFFIXES)}`;
}

export function makeAwardName(rng: Rng): string {
  return `${makeWord(rng, 2, 2)} ${rng.pick(AWARD_KINDS)}`;
}
