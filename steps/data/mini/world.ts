/**
 * generateWorld: the whole in-memory world for a params object (pure, deterministic), and
 * streamCollection: the full passage collection, pool first, then entities generated on the
 * fly up to `params.scale` passages without keeping them.
 */
import { rngFor } from "./rng.ts";
import { ENTITY_KINDS } from "./schema.ts";
import type { EntityKind, RefPicker } from "./schema.ts";
import { entityPassages, kindOf, makeEntity, nameOf } from "./entities.ts";
import type { Entity, Passage } from "./entities.ts";
import { generateSplit } from "./conversations.ts";
import type { Conversation } from "./conversations.ts";
import { attributeSpec, questionSubject } from "./entities.ts";
import { fillTemplate } from "./schema.ts";
import type { MiniParams, Split } from "./params.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";

export interface Pool {
  readonly seed: number;
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
}

export interface World {
  readonly params: MiniParams;
  readonly pool: Pool;
  readonly entities: readonly Entity[];
  /** The pool's passages in collection order (ordinal = index). */
  readonly passages: readonly Passage[];
  readonly passageById: ReadonlyMap<string, Passage>;
  readonly conversations: readonly Conversation[];
  readonly standalone: readonly StandaloneQuestion[];
}

/** Kinds and unique names of the pool; the first four entities cover the four kinds. */
export function buildPool(seed: number, size: number): Pool {
  const kinds: EntityKind[] = [];
  const names: string[] = [];
  const seen = new Set<string>();
  const byKind: Record<EntityKind, number[]> = { person: [], place: [], work: [], organisation: [] };
  for (let i = 0; i < size; i++) {
    const kind = i < ENTITY_KINDS.length ? (ENTITY_KINDS[i] as EntityKind) : kindOf(seed, i);
    let salt = 0;
    let name = nameOf(seed, i, kind, salt);
    while (seen.has(name.toLowerCase())) name = nameOf(seed, i, kind, ++salt);
    seen.add(name.toLowerCase());
    kinds.push(kind);
    names.push(name);
    byKind[kind].push(i);
  }
  return { seed, kinds, names, byKind };
}

export function refPickerFor(pool: Pool, index: number): RefPicker {
  const rng = rngFor(pool.seed, "ref", index);
  return (kind) => {
    const list = pool.byKind[kind];
    let j = rng.pick(list);
    if (j === index && list.length > 1) j = list[(list.indexOf(j) + 1) % list.length] as number;
    return { index: j, name: pool.names[j] as string };
  };
}

function poolEntity(pool: Pool, i: number): Entity {
  return makeEntity(pool.seed, i, pool.kinds[i] as EntityKind, pool.names[i] as string, refPickerFor(pool, i));
}

/** Entity i of the collection: a pool entity, or one generated beyond the pool (names may repeat there). */
export function collectionEntity(pool: Pool, i: number): Entity {
  if (i < pool.kinds.length) return poolEntity(pool, i);
  const kind = kindOf(pool.seed, i);
  return makeEntity(pool.seed, i, kind, nameOf(pool.seed, i, kind), refPickerFor(pool, i));
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
  const out: StandaloneQuestion[] = [];
  const used = new Set<string>();
  const rng = rngFor(params.seed, "standalone");
  for (let attempts = 0; out.length < total && attempts < total * 20; attempts++) {
    const e = rng.pick(entities);
    const fact = rng.pick(e.facts);
    const question = fillTemplate(attributeSpec(e.kind, fact.attr).question, questionSubject(e, "full"));
    if (used.has(question) || exclude.has(question)) continue;
    used.add(question);
    const passage = world.passages.find((p) => p.entity === e.index && p.sectionIndex > 0 && p.facts.some((f) => f.attr === fact.attr));
    if (passage === undefined) continue;
    out.push({ split: out.length < params.standaloneTrain ? "train" : "dev", question, answers: [fact.value], passage: passage.id, entity: e.index, attr: fact.attr });
  }
  return out;
}

/** The world for `params` (pure). Holds only the pool; use streamCollection for the full collection. */
export function generateWorld(params: MiniParams): World {
  const pool = buildPool(params.seed, params.entities);
  const entities: Entity[] = [];
  const passages: Passage[] = [];
  const byEntity: Passage[][] = [];
  for (let i = 0; i < params.entities; i++) {
    const e = poolEntity(pool, i);
    entities.push(e);
    const ps = entityPassages(params.seed, e, passages.length);
    byEntity.push(ps);
    passages.push(...ps);
  }
  if (params.scale > 0 && params.scale < passages.length) {
    throw new InputError(`scale ${params.scale} is smaller than the pool's ${passages.length} passages`, {
      field: "scale", fix: `use scale 0 (pool only), a scale >= ${passages.length}, or fewer entities`,
    });
  }
  const passageById = new Map(passages.map((p) => [p.id, p] as const));
  const src = { entities, passagesOf: (i: number) => byEntity[i] ?? [] };
  const splits: [Split, number][] = [["train", params.trainTurns], ["dev", params.devTurns], ["test", params.testTurns]];
  const conversations = splits.flatMap(([split, n]) => generateSplit(params.seed, src, params.flavor, split, n));
  const partial = { params, pool, entities, passages, passageById, conversations };
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
    for (const p of entityPassages(world.params.seed, e, n)) {
      if (n >= total) return;
      yield p;
      n++;
    }
  }
}
