/**
 * Entities and their articles. Entity i is a pure function of (seed, i, its name/kind, the
 * pool's name table and name-part pools), so the collection can be streamed entity by entity.
 *
 * Each entity is a small Wikipedia-like article split into passages: an Introduction that
 * restates two facts, then each section's facts spread over one or more passages, among
 * filler sentences built from section vocabulary shared by every entity of the kind and
 * sentences that mention other entities by name (params.ts `articles`). So the passages a
 * question competes with are hard: the same entity's other passages carry its name, other
 * entities' passages carry the same section words and, through mentions, the same names.
 */
import { rngFor } from "./rng.ts";
import type { Rng } from "./rng.ts";
import {
  FILLER_ADJECTIVES, FILLER_NOUNS, FILLER_VERBS, PLACE_PREFIXES, PLACE_WORDS, SECTION_VOCAB, makeOrgName,
  makePersonName, makePlaceName, makeWorkName,
} from "./lexicon.ts";
import type { NamePools } from "./lexicon.ts";
import {
  INTRO_SECTION, KIND_SPECS, KIND_WEIGHTS, attributeSpec, capitaliseFirst, fillTemplate, fixArticles,
} from "./schema.ts";
import type { EntityKind, RefPicker, Subject } from "./schema.ts";
import type { ArticleStyle } from "./params.ts";

export type Pronoun = "he" | "she" | "it";

export interface Fact {
  readonly attr: string;
  readonly section: string;
  readonly value: string;
  /** Index of a related entity named by the value. */
  readonly ref?: number;
  /** Index into the attribute's statements (and literal questions). */
  readonly statement: number;
}

export interface Entity {
  readonly index: number;
  readonly kind: EntityKind;
  readonly name: string;
  /** How later mentions refer to it: a person's surname, a place's root, a work without "The". */
  readonly shortName: string;
  readonly pronoun: Pronoun;
  readonly descriptor: string;
  readonly facts: readonly Fact[];
  /** Attributes the introduction restates (their facts have two passages). */
  readonly introAttrs: readonly string[];
}

/** Where a fact sits in a passage's text (character offsets, end exclusive). */
export interface FactSpan {
  readonly attr: string;
  readonly sentenceStart: number;
  readonly sentenceEnd: number;
  readonly valueStart: number;
  readonly valueEnd: number;
}

export interface Passage {
  /** Internal id `<entity>:<position>`; writers map it to each dataset's native id. */
  readonly id: string;
  /** 0-based position in the collection's stream order. */
  readonly ordinal: number;
  readonly entity: number;
  /** 0-based position in its article: 0 = Introduction, then the sections' passages in order. */
  readonly position: number;
  readonly section: string;
  readonly title: string;
  readonly text: string;
  readonly facts: readonly FactSpan[];
  /** Sentences that state no fact (fillers, mentions): what open follow-ups ("what happened next?") are answered with. */
  readonly events: readonly { readonly start: number; readonly end: number }[];
  /** Entities this passage names besides its own (fact values and mentions). */
  readonly mentions: readonly number[];
}

export function passageId(entity: number, position: number): string {
  return `${entity}:${position}`;
}

export function kindOf(seed: number, index: number): EntityKind {
  return rngFor(seed, "kind", index).weighted(KIND_WEIGHTS);
}

const NAME_MAKERS: Readonly<Record<EntityKind, (rng: Rng, pools: NamePools) => string>> = {
  person: makePersonName, place: makePlaceName, work: makeWorkName, organisation: makeOrgName,
};

export function nameOf(seed: number, index: number, kind: EntityKind, pools: NamePools, salt = 0): string {
  return NAME_MAKERS[kind](rngFor(seed, "name", index, salt), pools);
}

const PRONOUNS: Readonly<Record<Pronoun, { subject: string; object: string; possessive: string }>> = {
  he: { subject: "he", object: "him", possessive: "his" },
  she: { subject: "she", object: "her", possessive: "her" },
  it: { subject: "it", object: "it", possessive: "its" },
};

const NON_ROOT_WORDS: ReadonlySet<string> = new Set<string>([...PLACE_WORDS, ...PLACE_PREFIXES, "The"]);

/**
 * The short form later mentions use: a person's surname, a place's root ("Port Vardis" ->
 * "Vardis"), an organisation's first word unless it is generic, a work without "The".
 */
export function shortNameOf(kind: EntityKind, name: string): string {
  const words = name.split(" ");
  if (words.length === 1) return name;
  if (kind === "person") return words[words.length - 1] as string;
  if (kind === "place") return words.find((w) => !NON_ROOT_WORDS.has(w)) ?? name;
  if (kind === "work") return words[0] === "The" ? words.slice(1).join(" ") : name;
  return words[0] as string;
}

/** Subject forms for questions: `full` names the entity, `short` by its short name, `pronoun` refers back to it. */
export function questionSubject(e: Entity, form: "full" | "short" | "pronoun"): Subject {
  if (form === "full") return { n: e.name, p: `${e.name}'s` };
  if (form === "short") return { n: e.shortName, p: `${e.shortName}'s` };
  const p = PRONOUNS[e.pronoun];
  return { n: p.subject, p: p.possessive, o: p.object };
}

export function makeEntity(seed: number, index: number, kind: EntityKind, name: string, ref: RefPicker, pools: NamePools): Entity {
  const rng = rngFor(seed, "facts", index);
  const spec = KIND_SPECS[kind];
  const pronoun: Pronoun = kind === "person" ? (rng.chance(0.5) ? "he" : "she") : "it";
  const facts: Fact[] = spec.attributes.map((a) => {
    const v = a.value(rng, ref, pools);
    const statement = rng.int(a.statements.length);
    return v.ref === undefined
      ? { attr: a.key, section: a.section, value: v.text, statement }
      : { attr: a.key, section: a.section, value: v.text, ref: v.ref, statement };
  });
  const profession = facts.find((f) => f.attr === "profession")?.value ?? "scholar";
  const descriptor = rng.pick(spec.descriptors).replace("{profession}", profession);
  const candidates = facts.map((f) => f.attr);
  rng.shuffle(candidates);
  const introAttrs = candidates.slice(0, 2).sort();
  return { index, kind, name, shortName: shortNameOf(kind, name), pronoun, descriptor, facts, introAttrs };
}

/** Other entities an article may mention besides the ones its facts name, and their short names. */
export interface MentionSource {
  readonly pick: RefPicker;
  readonly shortName: (index: number) => string;
}

const MENTION_KINDS: readonly EntityKind[] = ["person", "place", "organisation", "work"];
/** How a passage refers to its entity after the first mention. */
const SUBJECT_FORMS: readonly (readonly ["full" | "short" | "pronoun", number])[] = [["full", 0.25], ["short", 0.35], ["pronoun", 0.4]];

interface Piece {
  readonly text: string;
  readonly fact?: { attr: string; value: string };
  readonly mention?: number;
  /** A sentence an open follow-up may be answered with. */
  readonly event?: boolean;
}

function fillerSentence(rng: Rng, section: string): string {
  const vocab = SECTION_VOCAB[section] ?? SECTION_VOCAB[INTRO_SECTION] ?? ["records"];
  const sv = rng.pick(vocab);
  const sv2 = rng.pick(vocab);
  const adj = rng.pick(FILLER_ADJECTIVES);
  const noun = rng.pick(FILLER_NOUNS);
  const verb = rng.pick(FILLER_VERBS);
  const templates = [
    `The ${adj} ${sv} was ${verb} in a ${noun} report.`,
    `Local ${sv} and ${sv2} were ${verb} during the ${noun}.`,
    `A ${adj} ${noun} near the ${sv} was later ${verb}.`,
    `Accounts of the ${sv} remain ${adj} to this day.`,
  ];
  return fixArticles(rng.pick(templates));
}

/** A sentence naming another entity, with the section's vocabulary around it. */
function mentionSentence(rng: Rng, section: string, other: string): string {
  const vocab = SECTION_VOCAB[section] ?? SECTION_VOCAB[INTRO_SECTION] ?? ["records"];
  const sv = rng.pick(vocab);
  const noun = rng.pick(FILLER_NOUNS);
  const verb = rng.pick(FILLER_VERBS);
  const templates = [
    `${other} ${verb} the ${sv} during the ${noun}.`,
    `The ${sv} was later ${verb} by ${other}.`,
    `Letters from ${other} mention the ${noun}.`,
  ];
  return fixArticles(rng.pick(templates));
}

/** Minor subjects that filler facts are about ("a local teacher was born in ..."). */
const MINOR_SUBJECTS: Readonly<Record<EntityKind, readonly string[]>> = {
  person: ["a local teacher", "one of the neighbours", "the old mayor", "a young clerk", "a visiting scholar", "a distant cousin"],
  place: ["a nearby village", "the neighbouring town", "a small hamlet", "the old port"],
  work: ["an earlier draft", "a rival book", "a later sequel", "a forgotten pamphlet"],
  organisation: ["a smaller firm", "a rival guild", "the local cooperative", "an older company"],
};

/**
 * A fact about a minor, unnamed subject, in the words of the kind's statements ("One of the
 * neighbours was born in Port Vardis."): real passages use the words of facts outside the
 * facts a question asks for, so those words alone do not single out the answer.
 */
function echoSentence(rng: Rng, kind: EntityKind, mentions: MentionSource, pools: NamePools): Piece {
  const a = rng.pick(KIND_SPECS[kind].attributes);
  const template = rng.pick(a.statements);
  const subject = rng.pick(MINOR_SUBJECTS[kind]);
  const v = a.value(rng, mentions.pick, pools);
  const text = capitaliseFirst(fillTemplate(template, { n: subject, p: kind === "person" ? "their" : "its" }, v.text));
  return v.ref === undefined ? { text, event: true } : { text, event: true, mention: v.ref };
}

/** Renders one fact sentence naming the entity in full, by its short name, or (where the sentence starts with it) by a pronoun. */
function factSentence(e: Entity, fact: Fact, form: "full" | "short" | "pronoun"): Piece {
  const a = attributeSpec(e.kind, fact.attr);
  const template = a.statements[fact.statement] ?? a.statements[0] ?? "{N} {V}.";
  // {P} refers back to the subject already named in the sentence: always the pronoun's possessive.
  const subject = { ...questionSubject(e, form === "pronoun" && !template.startsWith("{N}") ? "short" : form), p: PRONOUNS[e.pronoun].possessive };
  return { text: capitaliseFirst(fillTemplate(template, subject, fact.value)), fact: { attr: fact.attr, value: fact.value } };
}

function assemble(pieces: readonly Piece[]): { text: string; facts: FactSpan[]; events: { start: number; end: number }[] } {
  let text = "";
  const facts: FactSpan[] = [];
  const events: { start: number; end: number }[] = [];
  for (const p of pieces) {
    if (text.length > 0) text += " ";
    const start = text.length;
    text += p.text;
    if (p.event === true) events.push({ start, end: text.length });
    if (p.fact !== undefined) {
      const rel = p.text.lastIndexOf(p.fact.value);
      if (rel < 0) throw new Error(`value '${p.fact.value}' missing from its sentence`);
      facts.push({ attr: p.fact.attr, sentenceStart: start, sentenceEnd: text.length, valueStart: start + rel, valueEnd: start + rel + p.fact.value.length });
    }
  }
  return { text, facts, events };
}

/** Splits `facts` into `parts` consecutive groups (sizes differ by at most one; empty groups allowed). */
function splitFacts(facts: readonly Fact[], parts: number): Fact[][] {
  const out: Fact[][] = [];
  let at = 0;
  for (let i = 0; i < parts; i++) {
    const n = Math.floor(facts.length / parts) + (i < facts.length % parts ? 1 : 0);
    out.push(facts.slice(at, at + n));
    at += n;
  }
  return out;
}

/**
 * The passage groups of an article: [section, facts] per passage, Introduction first. Each
 * section has `sectionPassages` passages, times `lengthFactor` (popular topics have longer
 * articles); its facts are spread evenly over them ("spread") or all in the first ("lead").
 */
function articleLayout(rng: Rng, e: Entity, style: ArticleStyle, lengthFactor: number): [string, Fact[]][] {
  const layout: [string, Fact[]][] = [[INTRO_SECTION, e.facts.filter((f) => e.introAttrs.includes(f.attr))]];
  for (const section of KIND_SPECS[e.kind].sections) {
    const facts = e.facts.filter((f) => f.section === section);
    rng.shuffle(facts);
    const parts = Math.max(1, Math.round(rng.range(style.sectionPassages[0], style.sectionPassages[1]) * lengthFactor));
    const groups = style.factLayout === "lead" ? [facts, ...Array.from({ length: parts - 1 }, () => [])] : splitFacts(facts, parts);
    for (const group of groups) layout.push([section, group]);
  }
  return layout;
}

/** The entity's passages in article order (Introduction first); ordinals start at `firstOrdinal`. */
export function entityPassages(
  seed: number, e: Entity, firstOrdinal: number, style: ArticleStyle, mentions: MentionSource, pools: NamePools, lengthFactor = 1,
): Passage[] {
  const rng = rngFor(seed, "text", e.index);
  // Entities the facts name (value = their name): the article's most likely mentions.
  const related = e.facts.flatMap((f) => (f.ref === undefined || f.ref === e.index ? [] : [{ index: f.ref, name: f.value }]));
  return articleLayout(rng, e, style, lengthFactor).map(([section, facts], position) => {
    // The first fact of a section passage names the entity (in full with probability fullNameRate); later ones mostly refer back.
    const firstForm = rng.chance(style.fullNameRate) ? "full" : "short";
    const slots: Piece[] = facts.map((f, k) => factSentence(e, f, position !== 0 && k === 0 ? firstForm : rng.weighted(SUBJECT_FORMS)));
    const fillers = rng.range(style.fillers[0], style.fillers[1]) + (facts.length === 0 ? 2 : 0);
    for (let k = 0; k < fillers; k++) {
      let piece: Piece = { text: fillerSentence(rng, section), event: true };
      const r = rng.next();
      if (r < style.echoRate) {
        piece = echoSentence(rng, e.kind, mentions, pools);
      } else if (r < style.echoRate + style.mentionRate) {
        const other = related.length > 0 && rng.chance(0.5) ? rng.pick(related) : mentions.pick(rng.pick(MENTION_KINDS));
        // Mentions name the other entity in full or (as running text does) by its last word.
        const shown = rng.chance(0.5) ? other.name : mentions.shortName(other.index);
        if (other.index !== e.index) piece = { text: mentionSentence(rng, section, shown), mention: other.index, event: true };
      }
      // keep a fact first in section passages, so every such passage names its entity early
      const at = rng.int(slots.length + 1);
      slots.splice(position === 0 || facts.length === 0 ? at : Math.max(1, at), 0, piece);
    }
    const pieces: Piece[] = position === 0 ? [{ text: fixArticles(`${e.name} is a ${e.descriptor}.`) }, ...slots] : slots;
    if (facts.length === 0 && position !== 0) pieces.unshift({ text: `More on ${firstForm === "full" ? e.name : e.shortName}.` });
    const { text, facts: spans, events } = assemble(pieces);
    const named = new Set<number>();
    for (const f of facts) if (f.ref !== undefined) named.add(f.ref);
    for (const p of pieces) if (p.mention !== undefined) named.add(p.mention);
    named.delete(e.index);
    return {
      id: passageId(e.index, position),
      ordinal: firstOrdinal + position,
      entity: e.index,
      position,
      section,
      title: e.name,
      text,
      facts: spans,
      events,
      mentions: [...named].sort((a, b) => a - b),
    };
  });
}
