/**
 * Entities and their passages. Entity i is a pure function of (seed, i, its name/kind and
 * the pool's name table), so the collection can be streamed entity by entity.
 *
 * Each entity is a small Wikipedia-like article: an Introduction passage that restates two
 * facts, then one passage per section, each stating that section's facts among filler
 * sentences built from section vocabulary shared by all entities of the kind (hard
 * negatives: same entity other facts, other entities same vocabulary).
 */
import { rngFor } from "./rng.ts";
import type { Rng } from "./rng.ts";
import {
  FILLER_ADJECTIVES, FILLER_NOUNS, FILLER_VERBS, SECTION_VOCAB, makeOrgName, makePersonName,
  makePlaceName, makeWorkName,
} from "./lexicon.ts";
import {
  INTRO_SECTION, KIND_SPECS, KIND_WEIGHTS, capitaliseFirst, fillTemplate, fixArticles,
} from "./schema.ts";
import type { AttributeSpec, EntityKind, RefPicker, Subject } from "./schema.ts";

export type Pronoun = "he" | "she" | "it";

export interface Fact {
  readonly attr: string;
  readonly section: string;
  readonly value: string;
  /** Index of a related entity named by the value. */
  readonly ref?: number;
  /** Index into the kind's sentence list. */
  readonly sentence: number;
}

export interface Entity {
  readonly index: number;
  readonly kind: EntityKind;
  readonly name: string;
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
  /** Internal id `<entity>:<section index>`; writers map it to each dataset's native id. */
  readonly id: string;
  /** 0-based position in the collection's stream order. */
  readonly ordinal: number;
  readonly entity: number;
  /** 0 = Introduction, then the kind's sections in order. */
  readonly sectionIndex: number;
  readonly section: string;
  readonly title: string;
  readonly text: string;
  readonly facts: readonly FactSpan[];
}

export function passageId(entity: number, sectionIndex: number): string {
  return `${entity}:${sectionIndex}`;
}

export function kindOf(seed: number, index: number): EntityKind {
  return rngFor(seed, "kind", index).weighted(KIND_WEIGHTS);
}

const NAME_MAKERS: Readonly<Record<EntityKind, (rng: Rng) => string>> = {
  person: makePersonName, place: makePlaceName, work: makeWorkName, organisation: makeOrgName,
};

export function nameOf(seed: number, index: number, kind: EntityKind, salt = 0): string {
  return NAME_MAKERS[kind](rngFor(seed, "name", index, salt));
}

const PRONOUNS: Readonly<Record<Pronoun, { subject: string; possessive: string }>> = {
  he: { subject: "he", possessive: "his" },
  she: { subject: "she", possessive: "her" },
  it: { subject: "it", possessive: "its" },
};

/** Subject forms for questions: `full` names the entity, `pronoun` refers back to it. */
export function questionSubject(e: Entity, form: "full" | "pronoun"): Subject {
  if (form === "full") return { n: e.name, p: `${e.name}'s` };
  const p = PRONOUNS[e.pronoun];
  return { n: p.subject, p: p.possessive };
}

export function attributeSpec(kind: EntityKind, attr: string): AttributeSpec {
  const spec = KIND_SPECS[kind].attributes.find((a) => a.key === attr);
  if (spec === undefined) throw new Error(`unknown attribute ${attr} for kind ${kind}`);
  return spec;
}

export function makeEntity(seed: number, index: number, kind: EntityKind, name: string, ref: RefPicker): Entity {
  const rng = rngFor(seed, "facts", index);
  const spec = KIND_SPECS[kind];
  const pronoun: Pronoun = kind === "person" ? (rng.chance(0.5) ? "he" : "she") : "it";
  const facts: Fact[] = spec.attributes.map((a) => {
    const v = a.value(rng, ref);
    const sentence = rng.int(a.sentences.length);
    return v.ref === undefined
      ? { attr: a.key, section: a.section, value: v.text, sentence }
      : { attr: a.key, section: a.section, value: v.text, ref: v.ref, sentence };
  });
  const profession = facts.find((f) => f.attr === "profession")?.value ?? "scholar";
  const descriptor = rng.pick(spec.descriptors).replace("{profession}", profession);
  const candidates = facts.map((f) => f.attr);
  rng.shuffle(candidates);
  const introAttrs = candidates.slice(0, 2).sort();
  return { index, kind, name, pronoun, descriptor, facts, introAttrs };
}

function fillerSentence(rng: Rng, section: string): string {
  const sv = rng.pick(SECTION_VOCAB[section] ?? SECTION_VOCAB[INTRO_SECTION] ?? ["records"]);
  const adj = rng.pick(FILLER_ADJECTIVES);
  const adj2 = rng.pick(FILLER_ADJECTIVES);
  const noun = rng.pick(FILLER_NOUNS);
  const noun2 = rng.pick(FILLER_NOUNS);
  const verb = rng.pick(FILLER_VERBS);
  const sv2 = rng.pick(SECTION_VOCAB[section] ?? ["records"]);
  const templates = [
    `The ${adj} ${sv} was ${verb} in a ${adj2} ${noun} report.`,
    `Local ${sv} and ${sv2} were often ${verb} during the ${adj} ${noun}.`,
    `A ${adj} ${noun} near the ${sv} was later ${verb}.`,
    `Accounts of the ${sv} and the ${noun} remain ${adj} to this day.`,
    `During the ${adj} ${noun} the ${sv} was ${verb} by ${adj2} visitors.`,
    `Some ${sv2} from the ${noun2} were ${verb} with ${adj} care.`,
  ];
  return fixArticles(rng.pick(templates));
}

interface Piece {
  readonly text: string;
  readonly fact?: { attr: string; value: string };
}

/** Renders one fact sentence; the name is used when `useName`, otherwise a pronoun. */
function factSentence(e: Entity, fact: Fact, useName: boolean): Piece {
  const a = attributeSpec(e.kind, fact.attr);
  const template = a.sentences[fact.sentence] ?? a.sentences[0] ?? "{N} {V}.";
  const startsWithSubject = template.startsWith("{N}");
  const pron = PRONOUNS[e.pronoun];
  const subject: Subject = { n: startsWithSubject && !useName ? pron.subject : e.name, p: pron.possessive };
  return { text: capitaliseFirst(fillTemplate(template, subject, fact.value)), fact: { attr: fact.attr, value: fact.value } };
}

function assemble(pieces: readonly Piece[]): { text: string; facts: FactSpan[] } {
  let text = "";
  const facts: FactSpan[] = [];
  for (const p of pieces) {
    if (text.length > 0) text += " ";
    const start = text.length;
    text += p.text;
    if (p.fact !== undefined) {
      const rel = p.text.lastIndexOf(p.fact.value);
      if (rel < 0) throw new Error(`value '${p.fact.value}' missing from its sentence`);
      facts.push({ attr: p.fact.attr, sentenceStart: start, sentenceEnd: text.length, valueStart: start + rel, valueEnd: start + rel + p.fact.value.length });
    }
  }
  return { text, facts };
}

/** The entity's passages in section order (Introduction first); ordinals start at `firstOrdinal`. */
export function entityPassages(seed: number, e: Entity, firstOrdinal: number): Passage[] {
  const rng = rngFor(seed, "text", e.index);
  const spec = KIND_SPECS[e.kind];
  const out: Passage[] = [];
  const sections = [INTRO_SECTION, ...spec.sections];
  sections.forEach((section, sectionIndex) => {
    const pieces: Piece[] = [];
    let facts: Fact[];
    if (sectionIndex === 0) {
      pieces.push({ text: `${e.name} is a ${e.descriptor}.` });
      facts = e.facts.filter((f) => e.introAttrs.includes(f.attr));
    } else {
      facts = e.facts.filter((f) => f.section === section);
      rng.shuffle(facts);
    }
    const fillers = sectionIndex === 0 ? rng.range(4, 6) : rng.range(5, 8);
    const slots: Piece[] = [];
    facts.forEach((f, k) => slots.push(factSentence(e, f, (sectionIndex !== 0 && k === 0) || rng.chance(0.4))));
    for (let k = 0; k < fillers; k++) {
      const at = rng.int(slots.length + 1);
      // keep the first slot a fact sentence so every section passage names its entity early
      slots.splice(sectionIndex === 0 ? at : Math.max(1, at), 0, { text: fillerSentence(rng, section) });
    }
    pieces.push(...slots);
    const { text, facts: spans } = assemble(pieces);
    out.push({
      id: passageId(e.index, sectionIndex),
      ordinal: firstOrdinal + sectionIndex,
      entity: e.index,
      sectionIndex,
      section,
      title: e.name,
      text,
      facts: spans,
    });
  });
  return out;
}

export function passagesPerEntity(kind: EntityKind): number {
  return KIND_SPECS[kind].sections.length + 1;
}
