/**
 * Conversations over the in-memory entity pool, with their ground truth: gold passages,
 * question type (first / switch / no-switch), question form, rewrite, answer span.
 *
 * The phenomena the paper studies are built in, each with a knob (params.ts):
 * - follow-ups refer back with pronouns or ellipsis ("when?"), so q_t alone is ambiguous and
 *   the gold rewrite resolves it (`questions.followUp`);
 * - questions are often worded without the passage's words (`questions.paraphraseRate`);
 * - on the same topic the next answer often comes from the same passage (`samePassage`), so
 *   the previous answer points at it;
 * - topics switch (`switchRate`), often along a link: to an entity the previous passage
 *   names (`linkedSwitch`), which the history then already mentions.
 * When the topic continues, the history names the entity whose passages hold the next
 * answer: the shortcut a retriever can learn.
 */
import { rngFor } from "./rng.ts";
import type { Rng } from "./rng.ts";
import { questionSubject } from "./entities.ts";
import type { Entity, Passage } from "./entities.ts";
import { INTRO_SECTION, attributeSpec, fillTemplate } from "./schema.ts";
import { EVENT_ATTR, EVENT_QUESTIONS, EVENT_REWRITE } from "./attributes.ts";
import type { ConversationFlavor, Domain, DomainStyle, QuestionStyle, Split } from "./params.ts";

export type QuestionType = "first" | "switch" | "no-switch";
export type QuestionForm = "full" | "short-name" | "pronoun" | "short" | "what-about" | "anaphor" | "open";
/** Whether the question reuses the passage's words (literal) or not (paraphrase). */
export type Wording = "literal" | "paraphrase";

export interface Turn {
  readonly turnNo: number;
  readonly question: string;
  /** Self-contained question (resolves pronouns and ellipsis). */
  readonly rewrite: string;
  readonly answer: string;
  /** Internal ids of the gold passages; empty when the answer's page is not in the collection. */
  readonly gold: readonly string[];
  /** Passage that answers (even when `gold` is empty), and where the answer starts in it (free answers: where the value starts). */
  readonly answerPassage: string;
  readonly answerStart: number;
  /** The sentence of `answerPassage` that states the fact. */
  readonly rationale: string;
  readonly entity: number;
  readonly attr: string;
  readonly type: QuestionType;
  readonly form: QuestionForm;
  readonly wording: Wording;
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
  /** A pool entity by popularity: what conversations start from and switch to when no link is followed. */
  readonly pickEntity: (rng: Rng) => Entity;
}

/** A question's template: the attribute's literal question for the entity's statement, or a paraphrase. */
export function questionTemplate(rng: Rng, e: Entity, attr: string, style: QuestionStyle): { template: string; wording: Wording } {
  const spec = attributeSpec(e.kind, attr);
  const fact = e.facts.find((f) => f.attr === attr);
  if (rng.chance(style.paraphraseRate)) return { template: rng.pick(spec.paraphrase), wording: "paraphrase" };
  return { template: spec.literal[fact?.statement ?? 0] ?? spec.literal[0] ?? spec.paraphrase[0] ?? "{N}?", wording: "literal" };
}

/** The section passage stating `attr` of `e` (never the Introduction). */
export function sectionPassageOf(src: ConversationSource, e: Entity, attr: string): Passage {
  const p = src.passagesOf(e.index).find((x) => x.position > 0 && x.facts.some((f) => f.attr === attr));
  if (p === undefined) throw new Error(`no passage states ${attr} of entity ${e.index}`);
  return p;
}

interface Ask {
  readonly entity: Entity;
  /** An attribute, or EVENT_ATTR for an open follow-up answered by `passage.events[event]`. */
  readonly attr: string;
  readonly event?: number;
  readonly type: QuestionType;
  readonly form: QuestionForm;
  /** The passage that answers (OR-QuAC: the conversation's passage). */
  readonly passage: Passage;
}

/** An open follow-up ("what happened next?"): answered by a sentence of the passage that states no fact. */
function openTurn(rng: Rng, flavor: ConversationFlavor, turnNo: number, ask: Ask): Turn {
  const e = ask.entity;
  const passage = ask.passage;
  const ev = passage.events[ask.event ?? 0];
  if (ev === undefined) throw new Error(`passage ${passage.id} has no event ${String(ask.event)}`);
  const sentence = passage.text.slice(ev.start, ev.end);
  // Free-form answers (TopiOCQA) give the gist in a few words; other modes quote the sentence.
  const answer = flavor.answerMode === "free" ? sentence.replace(/\.$/, "").split(" ").slice(-3).join(" ") : sentence;
  const section = passage.section === INTRO_SECTION ? "background" : passage.section.toLowerCase();
  return {
    turnNo, question: rng.pick(EVENT_QUESTIONS), rewrite: EVENT_REWRITE.replace("{N}", e.name).replace("{S}", section),
    answer, gold: flavor.noGoldRate > 0 && rng.chance(flavor.noGoldRate) ? [] : [passage.id],
    answerPassage: passage.id, answerStart: ev.start, rationale: sentence,
    entity: e.index, attr: EVENT_ATTR, type: ask.type, form: "open", wording: "paraphrase",
  };
}

function makeTurn(rng: Rng, src: ConversationSource, flavor: ConversationFlavor, turnNo: number, ask: Ask): Turn {
  if (ask.attr === EVENT_ATTR) return openTurn(rng, flavor, turnNo, ask);
  const e = ask.entity;
  const { template, wording } = questionTemplate(rng, e, ask.attr, flavor.questions);
  const rewrite = fillTemplate(template, questionSubject(e, "full"));
  let question: string;
  switch (ask.form) {
    case "full": question = rewrite; break;
    case "short-name": question = fillTemplate(template, questionSubject(e, "short")); break;
    case "pronoun": question = fillTemplate(template, questionSubject(e, "pronoun")); break;
    case "short": question = attributeSpec(e.kind, ask.attr).short ?? rewrite; break;
    case "what-about": question = `what about ${e.name}?`; break;
    case "anaphor": question = fillTemplate(template, anaphor(e)); break;
    case "open": throw new Error("open follow-ups are made by openTurn");
  }
  const passage = ask.passage;
  const span = passage.facts.find((f) => f.attr === ask.attr);
  if (span === undefined) throw new Error(`passage ${passage.id} lacks ${ask.attr}`);
  const [start, end] = flavor.answerMode === "sentence" ? [span.sentenceStart, span.sentenceEnd] : [span.valueStart, span.valueEnd];
  // "free" (TopiOCQA): the answerer writes the value in their own words, naming a related entity by its short name.
  const ref = flavor.answerMode === "free" ? e.facts.find((f) => f.attr === ask.attr)?.ref : undefined;
  const refShort = ref === undefined ? undefined : src.entities[ref]?.shortName;
  let gold: string[] = [passage.id];
  const intro = src.passagesOf(e.index)[0];
  if (flavor.multiGold && intro !== undefined && intro.id !== passage.id && intro.facts.some((f) => f.attr === ask.attr)) gold.push(intro.id);
  if (flavor.noGoldRate > 0 && rng.chance(flavor.noGoldRate)) gold = [];
  return {
    turnNo, question, rewrite, answer: refShort ?? passage.text.slice(start, end), gold,
    answerPassage: passage.id, answerStart: start,
    rationale: passage.text.slice(span.sentenceStart, span.sentenceEnd),
    entity: e.index, attr: ask.attr, type: ask.type, form: ask.form, wording,
  };
}

/** The passage answering `attr`: its section passage, or (TopiOCQA-like) sometimes the Introduction restating it. */
function answeringPassage(rng: Rng, src: ConversationSource, flavor: ConversationFlavor, e: Entity, attr: string): Passage {
  const section = sectionPassageOf(src, e, attr);
  const intro = src.passagesOf(e.index)[0];
  if (intro !== undefined && e.introAttrs.includes(attr) && rng.chance(flavor.introAnswerRate)) return intro;
  return section;
}

const ANAPHORS: Readonly<Record<Entity["kind"], string>> = { person: "", place: "that town", work: "that work", organisation: "that company" };

/** Refers to an entity just named in the previous answer: a pronoun for a person, "that town" for a place. */
function anaphor(e: Entity): { n: string; p: string } {
  const d = ANAPHORS[e.kind];
  return d === "" ? questionSubject(e, "pronoun") : { n: d, p: `${d}'s` };
}

/** A self-contained question names the entity in full or by its short name. */
function namedForm(rng: Rng, style: QuestionStyle): QuestionForm {
  return rng.chance(style.shortName) ? "short-name" : "full";
}

function followUpForm(rng: Rng, e: Entity, attr: string, style: QuestionStyle): QuestionForm {
  const w = style.followUp;
  const canShort = attributeSpec(e.kind, attr).short !== undefined;
  const form = rng.weighted<QuestionForm>([["pronoun", w.pronoun], ["short", canShort ? w.short : 0], ["full", w.full]]);
  return form === "full" ? namedForm(rng, style) : form;
}

/**
 * The entity a switch moves to, along a link with probability `linkedSwitch`: the entity the
 * previous answer names (`inAnswer`), else one the previous passage mentions; otherwise any other.
 */
function switchEntity(rng: Rng, src: ConversationSource, current: Entity, prev: Turn, prevPassage: Passage, style: DomainStyle): { entity: Entity; inAnswer: boolean } {
  if (rng.chance(style.linkedSwitch)) {
    const ref = current.facts.find((f) => f.attr === prev.attr)?.ref;
    const answered = ref !== undefined && ref !== current.index ? src.entities[ref] : undefined;
    if (answered !== undefined && rng.chance(0.5)) return { entity: answered, inAnswer: true };
    const linked = prevPassage.mentions.filter((i) => i !== current.index && i < src.entities.length);
    const e = linked.length > 0 ? src.entities[rng.pick(linked)] : answered;
    if (e !== undefined) return { entity: e, inAnswer: e === answered };
  }
  for (let tries = 0; tries < 20; tries++) {
    const e = src.pickEntity(rng);
    if (e.index !== current.index) return { entity: e, inAnswer: false };
  }
  return { entity: src.entities[(current.index + 1) % src.entities.length] as Entity, inAnswer: false };
}

/** The section passages that state at least one fact. */
function factPassages(passages: readonly Passage[]): Passage[] {
  return passages.filter((p) => p.position > 0 && p.facts.length > 0);
}

/** Open follow-ups already asked, per passage and sentence. */
class AskedEvents {
  private readonly done = new Set<string>();

  /** An unasked event sentence of `p`, or undefined. */
  pick(rng: Rng, p: Passage): number | undefined {
    const free = p.events.map((_, i) => i).filter((i) => !this.done.has(`${p.id}#${i}`));
    if (free.length === 0) return undefined;
    const i = rng.pick(free);
    this.done.add(`${p.id}#${i}`);
    return i;
  }
}

function singlePassageConversation(rng: Rng, src: ConversationSource, flavor: ConversationFlavor, nTurns: number, style: DomainStyle): Turn[] {
  // A section passage with a fact to open the conversation; open follow-ups ("what happened
  // next?") continue it once its facts are asked, as QuAC's do.
  let e = src.pickEntity(rng);
  let sections = factPassages(src.passagesOf(e.index));
  for (let tries = 0; sections.length === 0 && tries < 20; tries++) {
    e = src.pickEntity(rng);
    sections = factPassages(src.passagesOf(e.index));
  }
  if (sections.length === 0) throw new Error("no section passage with a fact: check articles.sectionPassages");
  const passage = rng.pick(sections);
  const attrs = passage.facts.map((f) => f.attr);
  rng.shuffle(attrs);
  const events = new AskedEvents();
  const turns: Turn[] = [];
  for (let k = 0; k < nTurns; k++) {
    const base = { entity: e, type: k === 0 ? "first" : "no-switch", passage } as const;
    const event = k > 0 && (attrs.length === 0 || rng.chance(style.eventRate)) ? events.pick(rng, passage) : undefined;
    if (event !== undefined) {
      turns.push(makeTurn(rng, src, flavor, k + 1, { ...base, attr: EVENT_ATTR, event, form: "open" }));
      continue;
    }
    const attr = attrs.shift();
    if (attr === undefined) break;
    turns.push(makeTurn(rng, src, flavor, k + 1, { ...base, attr, form: k === 0 ? namedForm(rng, flavor.questions) : followUpForm(rng, e, attr, flavor.questions) }));
  }
  return turns;
}

function topicConversation(rng: Rng, src: ConversationSource, flavor: ConversationFlavor, nTurns: number, style: DomainStyle): Turn[] {
  const turns: Turn[] = [];
  let e = src.pickEntity(rng);
  let asked = new Set<string>();
  const events = new AskedEvents();
  let prev: Turn | undefined;
  let prevPassage: Passage | undefined;
  const push = (ask: Ask) => {
    prev = makeTurn(rng, src, flavor, turns.length + 1, ask);
    turns.push(prev);
    asked.add(ask.attr);
    prevPassage = ask.passage;
  };
  for (let t = 1; t <= nTurns; t++) {
    const unasked = e.facts.map((f) => f.attr).filter((a) => !asked.has(a));
    if (prev === undefined || prevPassage === undefined) {
      const attr = rng.pick(unasked);
      push({ entity: e, attr, type: "first", form: namedForm(rng, flavor.questions), passage: answeringPassage(rng, src, flavor, e, attr) });
      continue;
    }
    const mustSwitch = unasked.length === 0;
    if (mustSwitch && style.switchRate === 0 && style.switchOnLink === 0) break;
    // A switch is likelier right after an answer that names another entity (the link it follows).
    const named = prev.attr === EVENT_ATTR ? undefined : e.facts.find((f) => f.attr === prev?.attr)?.ref;
    const link = named !== undefined && named !== e.index ? src.entities[named] : undefined;
    if (link !== undefined && rng.chance(style.switchOnLink)) {
      const prevAttr = prev.attr;
      const sameKind = link.kind === e.kind;
      e = link;
      asked = new Set();
      const q = flavor.questions;
      const form: QuestionForm = rng.chance(q.anaphora) ? "anaphor" : sameKind && rng.chance(q.whatAbout) ? "what-about" : namedForm(rng, q);
      const attr = form === "what-about" ? prevAttr : rng.pick(e.facts.map((f) => f.attr));
      push({ entity: e, attr, type: "switch", form, passage: answeringPassage(rng, src, flavor, e, attr) });
      continue;
    }
    if (mustSwitch || rng.chance(style.switchRate)) {
      const next = switchEntity(rng, src, e, prev, prevPassage, style);
      const prevAttr = prev.attr;
      const sameKind = next.entity.kind === e.kind;
      e = next.entity;
      asked = new Set();
      const q = flavor.questions;
      let form: QuestionForm;
      if (next.inAnswer && rng.chance(q.anaphora)) form = "anaphor";
      else if (sameKind && prevAttr !== EVENT_ATTR && rng.chance(q.whatAbout)) form = "what-about";
      else form = namedForm(rng, q);
      const attr = form === "what-about" ? prevAttr : rng.pick(e.facts.map((f) => f.attr));
      push({ entity: e, attr, type: "switch", form, passage: answeringPassage(rng, src, flavor, e, attr) });
      continue;
    }
    // Same topic: an open follow-up on the same passage, the same passage's next fact, or another fact of the entity.
    const event = rng.chance(style.eventRate) ? events.pick(rng, prevPassage) : undefined;
    if (event !== undefined) {
      push({ entity: e, attr: EVENT_ATTR, event, type: "no-switch", form: "open", passage: prevPassage });
      continue;
    }
    const inPassage = prevPassage.facts.map((f) => f.attr).filter((a) => unasked.includes(a));
    const stay = prevPassage.entity === e.index && inPassage.length > 0 && rng.chance(style.samePassage);
    const elsewhere = unasked.filter((a) => !inPassage.includes(a));
    const attr = stay ? rng.pick(inPassage) : rng.pick(elsewhere.length > 0 ? elsewhere : unasked);
    const passage = stay ? prevPassage : answeringPassage(rng, src, flavor, e, attr);
    push({ entity: e, attr, type: "no-switch", form: followUpForm(rng, e, attr, flavor.questions), passage });
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
    const n = rng.range(style.turns[0], style.turns[1]);
    const ts = flavor.singlePassage ? singlePassageConversation(rng, src, flavor, n, style) : topicConversation(rng, src, flavor, n, style);
    out.push({ split, convNo: out.length + 1, domain, turns: ts });
    turns += ts.length;
  }
  return out;
}
