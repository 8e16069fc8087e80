/**
 * Analysis: collect the graph reachable from the requested steps, validate it, and return
 * either a topologically ordered graph or every failure found. Nothing runs here.
 */
import type { AnyStep } from "./step.ts";
import type { AnalysisFailure } from "./failures.ts";
import type { LockFile } from "./datasets-lock.ts";
import { argvPlaceholders } from "./executor.ts";
import { canonicalHash } from "./canonical.ts";
import { resourceProblems, stepResources } from "./resources.ts";
import { sameDef } from "./def-identity.ts";
import { inputNames, kindFits, slotOf, wiredInput, wiredInputs, wiringProblems } from "./wiring.ts";

export interface Graph {
  /** Topological order; ties broken by name so the order is stable. */
  readonly order: readonly AnyStep[];
  readonly byName: ReadonlyMap<string, AnyStep>;
  /** Validated params (defaults filled in) by step. */
  readonly params: ReadonlyMap<AnyStep, unknown>;
  /** Steps that consume each step's outputs. */
  readonly consumers: ReadonlyMap<AnyStep, readonly AnyStep[]>;
}

export type AnalysisResult = { ok: true; graph: Graph } | { ok: false; failures: AnalysisFailure[] };

const PINNED_IMAGE = /@sha256:[0-9a-f]{64}$/;

function producers(step: AnyStep): AnyStep[] {
  return wiredInputs(step).map((w) => w.ref.step);
}

/**
 * Structural identity of a step (def id and version + params + wiring), to merge duplicates built
 * twice; the defs themselves are compared by their records (def-identity.ts), so a factory's def
 * built twice with the same arguments is one def. Hashed, so identities stay 64 characters however deep the graph (nesting the
 * producers' identities verbatim grows exponentially with depth under fan-in).
 */
function identity(step: AnyStep, idOf: (producer: AnyStep) => string | undefined): string {
  const inputs: Record<string, string> = {};
  for (const { name, ref } of wiredInputs(step)) inputs[name] = `${idOf(ref.step) ?? ref.step.name}:${ref.output}`;
  return canonicalHash({ def: step.def.id, v: step.def.version, params: step.params, inputs });
}

export function analyze(roots: readonly AnyStep[], lock: LockFile): AnalysisResult {
  const failures: AnalysisFailure[] = [];
  const post = reachable(roots, failures);
  const { byName, canonical, unique } = mergeDuplicates(post, failures);
  const params = new Map<AnyStep, unknown>();
  for (const s of unique) {
    failures.push(...wiringFailures(s));
    const parsed = parseParams(s.def, s.params);
    if (parsed.success) params.set(s, parsed.data);
    else failures.push({ reason: "invalid-params", step: s.name, issues: parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(params)"}: ${i.message}`) });
    failures.push(...runtimeFailures(s, lock));
  }
  if (failures.length > 0) return { ok: false, failures };
  const { order, consumers } = stableOrder(unique, canonical);
  return { ok: true, graph: { order, byName, params, consumers } };
}

/** The steps reachable from `roots` over their inputs, in DFS post-order (roots by name); each cycle met is a failure. */
function reachable(roots: readonly AnyStep[], failures: AnalysisFailure[]): AnyStep[] {
  const colour = new Map<AnyStep, "grey" | "black">();
  const post: AnyStep[] = [];
  const stack: AnyStep[] = [];
  const visit = (s: AnyStep): void => {
    const c = colour.get(s);
    if (c === "black") return;
    if (c === "grey") {
      const i = stack.indexOf(s);
      failures.push({ reason: "cycle", steps: [...stack.slice(i), s].map((x) => x.name) });
      return;
    }
    colour.set(s, "grey");
    stack.push(s);
    for (const p of producers(s)) visit(p);
    stack.pop();
    colour.set(s, "black");
    post.push(s);
  };
  for (const r of [...roots].sort((a, b) => a.name.localeCompare(b.name))) visit(r);
  return post;
}

/**
 * Merge structurally identical steps built twice under one name (equal def records, params and
 * wiring, even from two def objects); reject different ones. Identities are hashed only for names
 * met twice (and their producers'): a graph without duplicates, the usual case, hashes none.
 */
function mergeDuplicates(post: readonly AnyStep[], failures: AnalysisFailure[]): { byName: Map<string, AnyStep>; canonical: Map<AnyStep, AnyStep>; unique: AnyStep[] } {
  const byName = new Map<string, AnyStep>();
  const canonical = new Map<AnyStep, AnyStep>();
  // A producer's identity enters a step's only when it comes first in `post` (always, but in a cycle).
  const ids = new Map<AnyStep, string>();
  const position = new Map(post.map((s, i) => [s, i]));
  const idOf = (s: AnyStep): string => {
    let id = ids.get(s);
    if (id === undefined) {
      const at = position.get(s)!;
      id = identity(s, (p) => ((position.get(p) ?? Infinity) < at ? idOf(p) : undefined));
      ids.set(s, id);
    }
    return id;
  };
  for (const s of post) {
    const prev = byName.get(s.name);
    if (!prev) {
      byName.set(s.name, s);
      canonical.set(s, s);
    } else if (sameDef(prev.def, s.def) && idOf(prev) === idOf(s)) {
      canonical.set(s, prev);
    } else {
      failures.push({ reason: "duplicate-step-name", step: s.name });
    }
  }
  return { byName, canonical, unique: post.filter((s) => canonical.get(s) === s) };
}

/** Wiring (the compiler checks kinds; this catches casts and JS callers): missing or miswired inputs, unknown outputs, kinds that do not fit. */
function wiringFailures(s: AnyStep): AnalysisFailure[] {
  const failures: AnalysisFailure[] = [];
  for (const [input, problem] of wiringProblems(s)) failures.push(problem === "missing" ? { reason: "missing-input", step: s.name, input } : { reason: "wrong-wiring", step: s.name, input, detail: problem });
  for (const { name: input, kind, ref } of wiredInputs(s)) {
    const decl = ref.step.def.outputs[ref.output];
    if (!decl) failures.push({ reason: "unknown-output", step: s.name, input, producer: ref.step.name, output: ref.output });
    else if (!kindFits(kind, decl.kind)) failures.push({ reason: "kind-mismatch", step: s.name, input, expected: kind, actual: decl.kind });
  }
  return failures;
}

/** What a step needs to run: locked datasets, valid resources, and for a program a pinned image and an argv that names its own plain inputs and outputs. */
function runtimeFailures(s: AnyStep, lock: LockFile): AnalysisFailure[] {
  const failures: AnalysisFailure[] = [];
  const def = s.def;
  for (const d of def.datasets ?? []) if (!lock.entries[d]) failures.push({ reason: "dataset-not-locked", step: s.name, dataset: d });
  for (const detail of resourceProblems(stepResources(s))) failures.push({ reason: "invalid-resources", step: s.name, detail });
  if (def.runtime.type !== "container") return failures;
  if (!PINNED_IMAGE.test(def.runtime.image)) failures.push({ reason: "image-not-pinned", step: s.name, image: def.runtime.image });
  const used = argvPlaceholders(def.runtime.argv);
  for (const i of used.inputs) if (!(i in def.inputs)) failures.push({ reason: "invalid-source", step: s.name, detail: `argv uses {in:${i}} but the step has no input '${i}'` });
  for (const i of used.inputs) {
    const shape = i in def.inputs ? slotOf(def.inputs[i]!).shape : "one";
    if (shape !== "one") failures.push({ reason: "invalid-source", step: s.name, detail: `argv uses {in:${i}}, ${shape === "optional" ? "an" : "a"} ${shape} input: a program's argv names plain inputs only` });
  }
  for (const o of used.outputs) if (!(o in def.outputs)) failures.push({ reason: "invalid-source", step: s.name, detail: `argv uses {out:${o}} but the step has no output '${o}'` });
  return failures;
}

/** Post-order DFS is already topological; make it stable by name with Kahn's algorithm. */
function stableOrder(unique: readonly AnyStep[], canonical: ReadonlyMap<AnyStep, AnyStep>): { order: AnyStep[]; consumers: Map<AnyStep, AnyStep[]> } {
  const consumers = new Map<AnyStep, AnyStep[]>();
  const indegree = new Map<AnyStep, number>();
  for (const s of unique) {
    const deps = new Set(producers(s).map((p) => canonical.get(p)!));
    indegree.set(s, deps.size);
    for (const d of deps) consumers.set(d, [...(consumers.get(d) ?? []), s]);
  }
  const ready = unique.filter((s) => indegree.get(s) === 0).sort((a, b) => a.name.localeCompare(b.name));
  const order: AnyStep[] = [];
  while (ready.length > 0) {
    const s = ready.shift()!;
    order.push(s);
    for (const c of consumers.get(s) ?? []) {
      const n = indegree.get(c)! - 1;
      indegree.set(c, n);
      if (n === 0) {
        ready.push(c);
        ready.sort((a, b) => a.name.localeCompare(b.name));
      }
    }
  }
  return { order, consumers };
}

/** Resolve the producer of a step's input element (wiring.ts names them) to the graph's canonical instance. */
export function producerOf(graph: Graph, step: AnyStep, input: string): AnyStep {
  const w = wiredInput(step, input);
  if (!w) throw new Error(`${step.name}: input ${input} not wired`);
  return graph.byName.get(w.ref.step.name) ?? w.ref.step;
}

/**
 * For each step of the graph, how many distinct producers it waits on, and for each producer the
 * steps it feeds: a settling step makes a consumer ready in constant time (testing all of a
 * consumer's inputs at each producer's settling was cubic in a step's fan-in: the default
 * report's provenance page has 430 inputs).
 */
export function producerCounts(graph: Graph): { waitingOn: Map<AnyStep, number>; feeds: Map<AnyStep, AnyStep[]> } {
  const waitingOn = new Map<AnyStep, number>();
  const feeds = new Map<AnyStep, AnyStep[]>();
  for (const c of graph.order) {
    const producers = new Set(inputNames(c).map((i) => producerOf(graph, c, i)));
    waitingOn.set(c, producers.size);
    for (const p of producers) {
      const list = feeds.get(p);
      if (list === undefined) feeds.set(p, [c]);
      else list.push(c);
    }
  }
  return { waitingOn, feeds };
}

type ParamsResult = ReturnType<AnyStep["def"]["params"]["safeParse"]>;

/** Parse results by params object, then by schema (parseParams). */
const parsed = new WeakMap<object, Map<AnyStep["def"]["params"], ParamsResult>>();

/**
 * A step's params parsed by its def's schema (defaults filled in), as analyze() validates them.
 * Without zod's JIT: zod compiles a parser for an object schema on its first parse (`new
 * Function`), which pays off over many parses, but a command parses each schema a few times
 * (~50 ms CPU of a no-op rerun of the default target went to compiling); the result is the same.
 * Remembered per params object and schema (a step's params are an immutable value): the report
 * parses the params of every step it documents for its provenance page while the graph is built,
 * and analyze() parsed the same 430 objects again. (Here, not in step.ts: step.ts is in every
 * step's source closure, so an edit there re-keys all.)
 */
export function parseParams(def: AnyStep["def"], params: unknown): ParamsResult {
  if (typeof params !== "object" || params === null) return def.params.safeParse(params, { jitless: true });
  let bySchema = parsed.get(params);
  if (bySchema === undefined) parsed.set(params, (bySchema = new Map()));
  let result = bySchema.get(def.params);
  if (result === undefined) bySchema.set(def.params, (result = def.params.safeParse(params, { jitless: true })));
  return result;
}
