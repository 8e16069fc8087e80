/**
 * A step's wiring as elements, one per output wired, so that list, record and optional slots
 * (step.ts) cost the rest of the engine nothing: keys, plans, leases, schedules and executors
 * see elements, each with a name, a kind and one ref, as they saw plain slots before.
 *
 * Element names: a plain or optional slot's element is the slot's name (`queries`); a list's are
 * `<slot>[<index>]` (`shards[0]`, `shards[1]`), a record's `<slot>[<name>]` (`metrics[dpr]`).
 * Elements come slot by slot (slots sorted by name), a list's in its order, a record's sorted by
 * name. An absent optional slot and an empty list or record have no element.
 *
 * `slotValues` turns per-element values (paths, keys) back into the slots' shapes for a body.
 * Pure: no I/O.
 */
import { ANY_KIND, type AnyStep, type InputKinds, type InputSlot, type OutputRef, type SlotShaped } from "./step.ts";

export interface WiredInput {
  /** The element's name (see the module comment). */
  readonly name: string;
  readonly slot: string;
  /** The kind the slot accepts (`*`: any). */
  readonly kind: string;
  readonly ref: OutputRef;
}

type Shape = "one" | "optional" | "list" | "record";

const isRef = (v: unknown): v is OutputRef => typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as OutputRef).output === "string" && typeof (v as OutputRef).step === "object";
const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === "object" && v !== null && !Array.isArray(v) && !isRef(v);
const byName = <T>([a]: readonly [string, T], [b]: readonly [string, T]) => (a < b ? -1 : a > b ? 1 : 0);

type Suffixed = readonly (readonly [string, unknown])[];

/**
 * Per shape: the elements of a wired value (`[name suffix, value]`, no suffix for the slot's own),
 * whether a value has the shape (and what it should be), and the slot's value for a body from the
 * value of its own element or its suffixed ones.
 */
const SHAPES: Readonly<Record<Shape, { elements(v: unknown): (readonly [string | undefined, unknown])[]; expects: string; fits(v: unknown): boolean; value(own: unknown, suffixed: Suffixed): unknown }>> = {
  one: { elements: (v) => [[undefined, v]], expects: "one output", fits: isRef, value: (own) => own },
  optional: { elements: (v) => (v === undefined ? [] : [[undefined, v]]), expects: "one output or none", fits: (v) => v === undefined || isRef(v), value: (own) => own },
  list: {
    elements: (v) => (Array.isArray(v) ? v.map((r, i) => [String(i), r] as const) : []),
    expects: "an array of outputs",
    fits: Array.isArray,
    value: (_, suffixed) => [...suffixed].sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v),
  },
  record: { elements: (v) => (isRecord(v) ? Object.entries(v).sort(byName) : []), expects: "a record of outputs", fits: isRecord, value: (_, suffixed) => Object.fromEntries([...suffixed].sort(byName)) },
};

/** A slot's shape and kind. */
export function slotOf(slot: InputSlot): { shape: Shape; kind: string } {
  if (typeof slot === "string") return { shape: "one", kind: slot };
  if ("list" in slot) return { shape: "list", kind: slot.list };
  if ("record" in slot) return { shape: "record", kind: slot.record };
  return { shape: "optional", kind: slot.optional };
}

/** Whether an output of `actual` kind may feed a slot of `kind`. */
export const kindFits = (kind: string, actual: string): boolean => kind === ANY_KIND || kind === actual;

const element = (slot: string, suffix: string | undefined) => (suffix === undefined ? slot : `${slot}[${suffix}]`);

const memo = new WeakMap<AnyStep, readonly WiredInput[]>();

/** The elements of `step`'s wiring, in order (module comment); values that are not refs are left out (analysis reports them). */
export function wiredInputs(step: AnyStep): readonly WiredInput[] {
  let out = memo.get(step);
  if (out !== undefined) return out;
  const wired = step.inputs as Readonly<Record<string, unknown>>;
  out = Object.entries(step.def.inputs)
    .sort(byName)
    .flatMap(([slot, decl]) => {
      const { shape, kind } = slotOf(decl);
      return SHAPES[shape].elements(wired[slot]).flatMap(([suffix, ref]) => (isRef(ref) ? [{ name: element(slot, suffix), slot, kind, ref }] : []));
    });
  memo.set(step, out);
  return out;
}

/** The element names of `step`'s wiring, in order. */
export const inputNames = (step: AnyStep): string[] => wiredInputs(step).map((w) => w.name);

const byElement = new WeakMap<AnyStep, ReadonlyMap<string, WiredInput>>();

/**
 * The element called `name`, or undefined. By a map per step: callers ask for every element of a
 * step in turn, and a step may have hundreds (the default report's provenance page reads 430).
 */
export function wiredInput(step: AnyStep, name: string): WiredInput | undefined {
  let m = byElement.get(step);
  if (m === undefined) {
    m = new Map(wiredInputs(step).map((w) => [w.name, w]));
    byElement.set(step, m);
  }
  return m.get(name);
}

/** What is wrong with the shape of each slot's wiring (`[slot, problem]`): a missing slot, a value of the wrong shape, an element that is not an output. */
export function wiringProblems(step: AnyStep): (readonly [string, string])[] {
  const wired = step.inputs as Readonly<Record<string, unknown>>;
  const out: (readonly [string, string])[] = [];
  for (const [slot, decl] of Object.entries(step.def.inputs).sort(byName)) {
    if (slot.includes("[")) out.push([slot, "an input name may not contain '['"]);
    const { shape } = slotOf(decl);
    const v = wired[slot];
    if (v === undefined && shape !== "optional") out.push([slot, "missing"]);
    else if (!SHAPES[shape].fits(v)) out.push([slot, `expects ${SHAPES[shape].expects}`]);
    else for (const [suffix, r] of SHAPES[shape].elements(v)) if (!isRef(r)) out.push([element(slot, suffix), "is not an output"]);
  }
  return out;
}

/** Per-element values (`byElement`, named as wiredInputs names them) in the shapes of `inputs`' slots, for a step's body. */
export function slotValues<V>(inputs: InputKinds, byElement: Readonly<Record<string, V>>): { readonly [slot: string]: SlotShaped<InputSlot, V> } {
  const out: Record<string, SlotShaped<InputSlot, V>> = {};
  const entries = Object.entries(byElement);
  for (const [slot, decl] of Object.entries(inputs)) {
    const prefix = `${slot}[`;
    const suffixed = entries.filter(([n]) => n.startsWith(prefix) && n.endsWith("]")).map(([n, v]) => [n.slice(prefix.length, -1), v] as const);
    const v = SHAPES[slotOf(decl).shape].value(byElement[slot], suffixed) as SlotShaped<InputSlot, V>;
    if (v !== undefined) out[slot] = v;
  }
  return out;
}
