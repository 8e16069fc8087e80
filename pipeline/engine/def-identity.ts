/**
 * The structural identity of a step definition, so that a factory (`trainDprDef(gpuRequired)`,
 * `fetchStepDef(entry)`) may build a fresh def on every call and the graph still merges the
 * steps two callers built from equal defs (graph.ts): no factory keeps a memo map of its defs.
 * (A def whose inputs vary with a count or a list of names needs no factory: it declares a
 * list or record input, step.ts.)
 *
 * The identity is the canonical record of everything a def holds as data: id, version, source
 * module, extra sources, input kinds, outputs, datasets, env, description and its runtime's data
 * (image, argv, pip pins, Python modules, GPU request, secrets, resources), plus the factory's
 * arguments. Functions (an in-process `run`, a `cost`) and the params schema are code, not data:
 * a factory whose arguments change only them (a closure over the argument) would look the same
 * without its arguments, so a factory builds its def with `defineStepWith(args, def)`, which
 * stamps the arguments (after defaults) into the def and so into its identity. Two factories that
 * differ in any argument never merge; one factory called twice with the same arguments always does.
 *
 * Never part of a cache key (keys.ts): merging only decides which of two equal step objects the
 * graph keeps, and equal defs compute the same bytes.
 */
import { canonicalHash, type Json } from "./canonical.ts";
import { defineStep, type InputKinds, type OutputDecls, type ParamsSchema, type StepDef } from "./step.ts";

/** Where a factory's arguments ride on its def (a symbol, so no def literal can set it by accident). */
export const DEF_ARGS: unique symbol = Symbol("cspipe.defArgs");


/**
 * `defineStep` for a def a factory makes: `args` are the factory's arguments after defaults, as
 * plain data (e.g. `{ shards }`, `{ gpuRequired }`), and join the def's identity.
 */
export function defineStepWith<S extends ParamsSchema, const I extends InputKinds, O extends OutputDecls>(args: Json, def: StepDef<S, I, O>): StepDef<S, I, O> {
  const stamped: StepDef<S, I, O> & { readonly [DEF_ARGS]: Json } = { ...defineStep(def), [DEF_ARGS]: args };
  return stamped;
}

/** The factory arguments a def was stamped with (null for a def made once, by `defineStep`). */
export function defArgs<S extends ParamsSchema, I extends InputKinds, O extends OutputDecls>(def: StepDef<S, I, O>): Json {
  return (def as { [DEF_ARGS]?: Json })[DEF_ARGS] ?? null;
}

function runtimeData<S extends ParamsSchema, I extends InputKinds, O extends OutputDecls>(def: StepDef<S, I, O>): Json {
  const rt = def.runtime;
  const resources = (rt.resources ?? null) as Json;
  if (rt.type === "in-process") return { type: rt.type, resources };
  return {
    type: rt.type,
    image: rt.image,
    argv: [...rt.argv],
    pythonModules: [...(rt.pythonModules ?? [])],
    pip: [...(rt.pip ?? [])],
    gpu: rt.gpu ? { count: rt.gpu.count, required: rt.gpu.required } : null,
    secrets: [...(rt.secrets ?? [])],
    resources,
  };
}

/** The canonical record of a def as data (see the module comment); exported for tests and `explain`-style tools. */
export function defRecord<S extends ParamsSchema, I extends InputKinds, O extends OutputDecls>(def: StepDef<S, I, O>): Json {
  return {
    id: def.id,
    version: def.version,
    source: def.source,
    extraSources: [...(def.extraSources ?? [])],
    inputs: { ...def.inputs },
    outputs: Object.fromEntries(Object.entries(def.outputs).map(([n, o]) => [n, { kind: o.kind, path: o.path, dir: o.dir }])),
    datasets: [...(def.datasets ?? [])],
    env: [...(def.env ?? [])],
    description: def.description ?? null,
    runtime: runtimeData(def),
    args: defArgs(def),
  };
}

const identities = new WeakMap<object, string>();

/** sha256 of the def's canonical record; computed once per def object. */
export function defIdentity<S extends ParamsSchema, I extends InputKinds, O extends OutputDecls>(def: StepDef<S, I, O>): string {
  let id = identities.get(def);
  if (id === undefined) identities.set(def, (id = canonicalHash(defRecord(def))));
  return id;
}

/** Whether two defs are the same definition: the same object, or equal records. */
export function sameDef<S extends ParamsSchema, I extends InputKinds, O extends OutputDecls>(a: StepDef<S, I, O>, b: StepDef<S, I, O>): boolean {
  return a === b || defIdentity(a) === defIdentity(b);
}
