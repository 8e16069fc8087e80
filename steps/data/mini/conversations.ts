/**
 * Conversations over the in-memory entity pool, with their ground truth: gold passages,
 * question type (first / switch / no-switch), question form, rewrite, answer span.
 *
 * The phenomena the paper studies are built in: follow-ups refer back with pronouns or
 * ellipsis ("when?", "what about X?") so q_t alone is ambiguous, the gold rewrite resolves
 * them, and when the topic continues the history (earlier questions and answers) names the
 * entity whose passages hold the next answer — the shortcut a retriever can learn.
 */
import { rngFor } from "./rng.ts";
import type { Rng } from "./rng.ts";
import { attributeSpec, questionSubject } from "./entities.ts";
import type { Entity, Passage } from "./entities.ts";
import { fillTemplate } from "./schema.ts";
import type { ConversationFlavor, Domain, Split } from "./params.ts";

export type QuestionType = "first" | "switch" | "no-switch";
export type QuestionForm = "full" | "pronoun" | "short" | "what-about";

export interface Turn {
  readonly turnNo: number;
  readonly question: string;
  /** Self-contained question (resolves pronouns and ellipsis). */
  readonly rewrite: string;
  readonly answer: string;
  /** Internal ids of the gold passages; empty when the answer's page is not in the collection. */
  readonly gold: readonly string[];
  /** Passage the answer is a span of (even when `gold` is empty), and the span's start. */
  readonly answerPassage: string;
  readonly answerStart: number;
  /** The sentence of `answerPassage` that states the fact. */
  readonly rationale: string;
  readonly entity: number;
  readonly attr: string;
  readonly type: QuestionType;
  readonly form: QuestionForm;
}

export interface Conversation {
  readonly split: Split;
  /** 1-based, unique within the split. */
  readonly convNo: number;
  readonly domain: Domain;
  readonly turns: readonly Turn[];
}

export interface ConversationSource {
  readonly entities: readonly Entity[];
  /** Passages of each pool entity, Introduction first. */
  readonly passagesOf: (entity: number) => readonly Passage[];
}

interface Target {
  readonly entity: Entity;
  readonly attr: string;
}

function sectionPassageOf(src: ConversationSource, e: Entity, attr: string): Passage {
  const p = src.passagesOf(e.index).find((x) => x.sectionIndex > 0 && x.facts.some((f) => f.attr === attr));
  if (p === undefined) throw new Error(`no passage states ${attr} of entity ${e.index}`);
  return p;
}

function makeTurn(
  rng: Rng, src: ConversationSource, flavor: ConversationFlavor, turnNo: number, t: Target,
  type: QuestionType, form: QuestionForm, fixedPassage?: Passage,
): Turn {
  const spec = attributeSpec(t.entity.kind, t.attr);
  const rewrite = fillTemplate(spec.question, questionSubject(t.entity, "full"));
  let question: string;
  switch (form) {
    case "full": question = rewrite; break;
    case "pronoun": question = fillTemplate(spec.question, questionSubject(t.entity, "pronoun")); break;
    case "short": question = spec.short ?? rewrite; break;
    case "what-about": question = `what about ${t.entity.name}?`; break;
  }
  let passage = fixedPassage ?? sectionPassageOf(src, t.entity, t.attr);
  // TopiOCQA-like flavors: a fact the Introduction restates is answered from it half the time.
  if (fixedPassage === undefined && !flavor.multiGold && t.entity.introAttrs.includes(t.attr) && rng.chance(0.5)) {
    passage = src.passagesOf(t.entity.index)[0] ?? passage;
  }
  const span = passage.facts.find((f) => f.attr === t.attr);
  if (span === undefined) throw new Error(`passage ${passage.id} lacks ${t.attr}`);
  const [start, end] = flavor.answerMode === "span" ? [span.valueStart, span.valueEnd] : [span.sentenceStart, span.sentenceEnd];
  let gold: string[] = [passage.id];
  if (flavor.multiGold && t.entity.introAttrs.includes(t.attr)) gold.push(`${t.entity.index}:0`);
  if (flavor.noGoldRate > 0 && rng.chance(flavor.noGoldRate)) gold = [];
  return {
    turnNo, question, rewrite, answer: passage.text.slice(start, end), gold,
    answerPassage: passage.id, answerStart: start,
    rationale: passage.text.slice(span.sentenceStart, span.sentenceEnd),
    entity: t.entity.index, attr: t.attr, type, form,
  };
}

function followUpForm(rng: Rng, e: Entity, attr: string): QuestionForm {
  const r = rng.next();
  if (r < 0.12 && attributeSpec(e.kind, attr).short !== undefined) return "short";
  if (r < 0.8) return "pronoun";
  return "full";
}

function singlePassageConversation(rng: Rng, src: ConversationSource, flavor: ConversationFlavor, maxTurns: number): Turn[] {
  const e = rng.pick(src.entities);
  const sections = src.passagesOf(e.index).filter((p) => p.sectionIndex > 0);
  const passage = rng.pick(sections);
  const attrs = passage.facts.map((f) => f.attr);
  rng.shuffle(attrs);
  return attrs.slice(0, Math.max(1, maxTurns)).map((attr, k) =>
    makeTurn(rng, src, flavor, k + 1, { entity: e, attr }, k === 0 ? "first" : "no-switch", k === 0 ? "full" : followUpForm(rng, e, attr), passage));
}

function pickSwitchEntity(rng: Rng, src: ConversationSource, current: Entity, prevAttr: string): Entity {
  const prevFact = current.facts.find((f) => f.attr === prevAttr);
  const related = prevFact?.ref;
  if (related !== undefined && related !== current.index && related < src.entities.length && rng.chance(0.5)) {
    const e = src.entities[related];
    if (e !== undefined) return e;
  }
  for (let tries = 0; tries < 20; tries++) {
    const e = rng.pick(src.entities);
    if (e.index !== current.index) return e;
  }
  return src.entities[(current.index + 1) % src.entities.length] as Entity;
}

function multiEntityConversation(rng: Rng, src: ConversationSource, flavor: ConversationFlavor, nTurns: number, switchRate: number): Turn[] {
  const turns: Turn[] = [];
  let e = rng.pick(src.entities);
  let asked = new Set<string>();
  let prevAttr = "";
  for (let t = 1; t <= nTurns; t++) {
    const unasked = e.facts.map((f) => f.attr).filter((a) => !asked.has(a));
    if (t === 1) {
      const attr = rng.pick(unasked);
      turns.push(makeTurn(rng, src, flavor, t, { entity: e, attr }, "first", "full"));
      asked.add(attr);
      prevAttr = attr;
      continue;
    }
    const mustSwitch = unasked.length === 0;
    if (mustSwitch && switchRate === 0) break;
    if (mustSwitch || rng.chance(switchRate)) {
      const next = pickSwitchEntity(rng, src, e, prevAttr);
      const sameKind = next.kind === e.kind;
      let attr: string;
      let form: QuestionForm;
      if (sameKind && rng.chance(0.4)) {
        attr = prevAttr;
        form = "what-about";
      } else {
        attr = rng.pick(next.facts.map((f) => f.attr));
        form = "full";
      }
      e = next;
      asked = new Set([attr]);
      turns.push(makeTurn(rng, src, flavor, t, { entity: e, attr }, "switch", form));
      prevAttr = attr;
      continue;
    }
    const prevSection = e.facts.find((f) => f.attr === prevAttr)?.section;
    const sameSection = unasked.filter((a) => e.facts.find((f) => f.attr === a)?.section === prevSection);
    const attr = sameSection.length > 0 && rng.chance(0.5) ? rng.pick(sameSection) : rng.pick(unasked);
    turns.push(makeTurn(rng, src, flavor, t, { entity: e, attr }, "no-switch", followUpForm(rng, e, attr)));
    asked.add(attr);
    prevAttr = attr;
  }
  return turns;
}

/** Conversations of one split, generated until `targetTurns` turns exist. */
export function generateSplit(seed: number, src: ConversationSource, flavor: ConversationFlavor, split: Split, targetTurns: number): Conversation[] {
  const out: Conversation[] = [];
  let turns = 0;
  for (let k = 0; turns < targetTurns; k++) {
    const rng = rngFor(seed, "conversation", split, k);
    const domain = rng.weighted(flavor.domains[split]);
    const style = flavor.styles[domain];
    if (style === undefined) throw new Error(`no conversation style for domain ${domain}`);
    const n = rng.range(style.minTurns, style.maxTurns);
    const ts = flavor.singlePassage
      ? singlePassageConversation(rng, src, flavor, n)
      : multiEntityConversation(rng, src, flavor, n, style.switchRate);
    out.push({ split, convNo: out.length + 1, domain, turns: ts });
    turns += ts.length;
  }
  return out;
}
