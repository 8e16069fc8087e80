/**
 * generateWorld: the whole in-memory world for a params object (pure, deterministic), and
 * streamCollection: the full passage collection, pool first, then entities generated on the
 * fly up to `params.scale` passages without keeping them.
 */
import { rngFor, WeightedPicker } from "./rng.ts";
import { ENTITY_KINDS, fillTemplate } from "./schema.ts";
import type { EntityKind, RefPicker } from "./schema.ts";
import { entityPassages, kindOf, makeEntity, nameOf, questionSubject, shortNameOf } from "./entities.ts";
import type { Entity, MentionSource, Passage } from "./entities.ts";
import { generateSplit, questionTemplate, sectionPassageOf } from "./conversations.ts";
import type { Conversation, ConversationSource, Wording } from "./conversations.ts";
import { makeNamePools } from "./lexicon.ts";
import type { NamePools } from "./lexicon.ts";
import type { MiniParams, Split } from "./params.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";

/** Seed of the name parts shared by every mini dataset (lexicon.ts makeNamePools), whatever the dataset's seed. */
export const LEXICON_SEED = 0x6c657869;

export interface Pool {
  readonly seed: number;
  readonly namePools: NamePools;
  /** Popularity rank of each pool entity (0 = most popular). */
  readonly rankOf: readonly number[];
  /** Picks a pool entity by popularity (params.popularity), overall and per kind. */
  readonly popular: WeightedPicker<number>;
  readonly popularOfKind: Readonly<Record<EntityKind, WeightedPicker<number>>>;
  readonly kinds: readonly EntityKind[];
  readonly names: readonly string[];
  readonly byKind: Readonly<Record<EntityKind, readonly number[]>>;
}

export interface StandaloneQuestion {
  readonly split: "train" | "dev";
  readonly question: string;
  readonly answers: readonly string[];
  /** Internal id of the gold passage. */
  readonly passage: string;
  readonly entity: number;
  readonly attr: string;
  readonly wording: Wording;
}

export interface World {
  readonly params: MiniParams;
  readonly pool: Pool;
  readonly entities: readonly Entity[];
  /** The pool's passages in collection order (ordinal = index). */
  readonly passages: readonly Passage[];
  readonly passageById: ReadonlyMap<string, Passage>;
  /** The passages of each pool entity, in article order. */
  readonly passagesByEntity: readonly (readonly Passage[])[];
  readonly conversations: readonly Conversation[];
  readonly standalone: readonly StandaloneQuestion[];
}

/** Kinds and unique names of the pool; the first four entities cover the four kinds. */
export function buildPool(seed: number, params: Pick<MiniParams, "entities" | "namePools" | "popularity">): Pool {
  const size = params.entities;
  const namePools = makeNamePools((part) => rngFor(LEXICON_SEED, "name-pool", part), params.namePools);
  const kinds: EntityKind[] = [];
  const names: string[] = [];
  const seen = new Set<string>();
  const byKind: Record<EntityKind, number[]> = { person: [], place: [], work: [], organisation: [] };
  for (let i = 0; i < size; i++) {
    const kind = i < ENTITY_KINDS.length ? (ENTITY_KINDS[i] as EntityKind) : kindOf(seed, i);
    let salt = 0;
    let name = nameOf(seed, i, kind, namePools, salt);
    while (seen.has(name.toLowerCase())) {
      if (++salt > 1000) throw new InputError(`cannot find ${size} distinct names with name pools ${JSON.stringify(params.namePools)}`, { field: "namePools", fix: "use larger name pools or fewer entities" });
      name = nameOf(seed, i, kind, namePools, salt);
    }
    seen.add(name.toLowerCase());
    kinds.push(kind);
    names.push(name);
    byKind[kind].push(i);
  }
  // Popularity: Zipf weights 1/rank^s over a seeded ranking of the pool. Conversations, fact
  // values and mentions prefer popular entities, so the names asked about also fill other passages.
  const rank = Array.from({ length: size }, (_, i) => i);
  rngFor(seed, "popularity").shuffle(rank);
  const weight = new Array<number>(size);
  rank.forEach((entity, r) => (weight[entity] = 1 / Math.pow(r + 1, params.popularity)));
  const pickerOf = (ids: readonly number[]) => new WeightedPicker(ids, ids.map((i) => weight[i] as number));
  const popularOfKind = {} as Record<EntityKind, WeightedPicker<number>>;
  for (const k of ENTITY_KINDS) popularOfKind[k] = pickerOf(byKind[k]);
  const rankOf = new Array<number>(size);
  rank.forEach((entity, r) => (rankOf[entity] = r));
  return { seed, namePools, rankOf, popular: pickerOf(rank.slice().sort((a, b) => a - b)), popularOfKind, kinds, names, byKind };
}

export function refPickerFor(pool: Pool, index: number): RefPicker {
  const rng = rngFor(pool.seed, "ref", index);
  return (kind) => {
    const list = pool.byKind[kind];
    let j = pool.popularOfKind[kind].pick(rng);
    if (j === index && list.length > 1) j = list[(list.indexOf(j) + 1) % list.length] as number;
    return { index: j, name: pool.names[j] as string };
  };
}

function poolEntity(pool: Pool, i: number): Entity {
  return makeEntity(pool.seed, i, pool.kinds[i] as EntityKind, pool.names[i] as string, refPickerFor(pool, i), pool.namePools);
}

/** Entity i of the collection: a pool entity, or one generated beyond the pool (names may repeat there). */
export function collectionEntity(pool: Pool, i: number): Entity {
  if (i < pool.kinds.length) return poolEntity(pool, i);
  const kind = kindOf(pool.seed, i);
  return makeEntity(pool.seed, i, kind, nameOf(pool.seed, i, kind, pool.namePools), refPickerFor(pool, i), pool.namePools);
}

/** Other pool entities an article's filler sentences may name (seeded per entity, independent of generation order). */
function mentionSourceFor(pool: Pool, index: number): MentionSource {
  const rng = rngFor(pool.seed, "mention", index);
  return {
    pick: (kind) => { const j = pool.popularOfKind[kind].pick(rng); return { index: j, name: pool.names[j] as string }; },
    shortName: (j) => shortNameOf(pool.kinds[j] as EntityKind, pool.names[j] as string),
  };
}

/** Article length factor: 1 + popularLength * (1 - ln(rank + 1) / ln(n)), so the most popular topics have the longest articles. */
export function lengthFactorOf(pool: Pool, index: number, popularLength: number): number {
  const rank = pool.rankOf[index];
  const n = pool.rankOf.length;
  if (rank === undefined || n < 2 || popularLength === 0) return 1;
  return 1 + popularLength * (1 - Math.log(rank + 1) / Math.log(n));
}

function passagesOf(world: { params: MiniParams; pool: Pool }, e: Entity, firstOrdinal: number): Passage[] {
  const { articles } = world.params;
  return entityPassages(world.params.seed, e, firstOrdinal, articles, mentionSourceFor(world.pool, e.index), world.pool.namePools, lengthFactorOf(world.pool, e.index, articles.popularLength));
}

function standaloneQuestions(world: Omit<World, "standalone">): StandaloneQuestion[] {
  const { params, entities } = world;
  const total = params.standaloneTrain + params.standaloneDev;
  if (total === 0) return [];
  const exclude = new Set<string>();
  for (const c of world.conversations) {
    if (c.split === "train") continue;
    for (const t of c.turns) { exclude.add(t.question); exclude.add(t.rewrite); }
  }
  const src: ConversationSource = { entities, passagesOf: (i: number) => world.passagesByEntity[i] ?? [], pickEntity: (r) => entities[world.pool.popular.pick(r)] as Entity };
  const out: StandaloneQuestion[] = [];
  const used = new Set<string>();
  const rng = rngFor(params.seed, "standalone");
  for (let attempts = 0; out.length < total && attempts < total * 20; attempts++) {
    const e = src.pickEntity(rng);
    const fact = rng.pick(e.facts);
    const { template, wording } = questionTemplate(rng, e, fact.attr, params.flavor.questions);
    const question = fillTemplate(template, questionSubject(e, "full"));
    if (used.has(question) || exclude.has(question)) continue;
    used.add(question);
    const passage = sectionPassageOf(src, e, fact.attr);
    out.push({ split: out.length < params.standaloneTrain ? "train" : "dev", question, answers: [fact.value], passage: passage.id, entity: e.index, attr: fact.attr, wording });
  }
  return out;
}

/** The world for `params` (pure). Holds only the pool; use streamCollection for the full collection. */
export function generateWorld(params: MiniParams): World {
  const pool = buildPool(params.seed, params);
  const entities: Entity[] = [];
  const passages: Passage[] = [];
  const byEntity: Passage[][] = [];
  for (let i = 0; i < params.entities; i++) {
    const e = poolEntity(pool, i);
    entities.push(e);
    const ps = passagesOf({ params, pool }, e, passages.length);
    byEntity.push(ps);
    passages.push(...ps);
  }
  if (params.scale > 0 && params.scale < passages.length) {
    throw new InputError(`scale ${params.scale} is smaller than the pool's ${passages.length} passages`, {
      field: "scale", fix: `use scale 0 (pool only), a scale >= ${passages.length}, or fewer entities`,
    });
  }
  const passageById = new Map(passages.map((p) => [p.id, p] as const));
  const src: ConversationSource = { entities, passagesOf: (i: number) => byEntity[i] ?? [], pickEntity: (rng) => entities[pool.popular.pick(rng)] as Entity };
  const splits: [Split, number][] = [["train", params.trainTurns], ["dev", params.devTurns], ["test", params.testTurns]];
  const conversations = splits.flatMap(([split, n]) => generateSplit(params.seed, src, params.flavor, split, n));
  const partial = { params, pool, entities, passages, passageById, passagesByEntity: byEntity, conversations };
  return { ...partial, standalone: standaloneQuestions(partial) };
}

/** Number of passages the collection will have. */
export function collectionSize(world: World): number {
  return world.params.scale > 0 ? world.params.scale : world.passages.length;
}

/**
 * The collection in order: the pool's passages, then entities beyond the pool until
 * `collectionSize(world)` passages (the last entity may be cut). Memory stays O(pool).
 */
export function* streamCollection(world: World): Generator<Passage> {
  const total = collectionSize(world);
  let n = 0;
  for (const p of world.passages) {
    if (n >= total) return;
    yield p;
    n++;
  }
  for (let i = world.entities.length; n < total; i++) {
    const e = collectionEntity(world.pool, i);
    for (const p of passagesOf(world, e, n)) {
      if (n >= total) return;
      yield p;
      n++;
    }
  }
}
