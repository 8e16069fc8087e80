/**
 * A small regular-expression compiler over an alphabet of at most 32 symbols (character classes),
 * for longest-match scanners in the style of JFlex: a list of rules in priority order is compiled
 * into one DFA (Thompson NFA, then subset construction); a DFA state accepts with the first rule
 * that any of its NFA states accepts. Pure, deterministic, built once at module load.
 */

/** A regular expression over symbols 0..31; a set is a bit mask of symbols. */
export type Re =
  | { readonly kind: "set"; readonly mask: number }
  | { readonly kind: "seq"; readonly items: readonly Re[] }
  | { readonly kind: "alt"; readonly items: readonly Re[] }
  | { readonly kind: "star"; readonly item: Re };

export function set(...symbols: readonly number[]): Re {
  let mask = 0;
  for (const s of symbols) {
    if (!Number.isInteger(s) || s < 0 || s > 31) throw new Error(`symbol ${s} outside 0..31`);
    mask |= 1 << s;
  }
  return { kind: "set", mask };
}
export const seq = (...items: Re[]): Re => ({ kind: "seq", items });
export const alt = (...items: Re[]): Re => ({ kind: "alt", items });
export const star = (item: Re): Re => ({ kind: "star", item });
export const plus = (item: Re): Re => seq(item, star(item));
export const opt = (item: Re): Re => alt(item, seq());

export interface Dfa {
  /** Number of symbols (columns of `next`). */
  readonly symbols: number;
  /** next[state * symbols + symbol]: the next state; 0 is the dead state. */
  readonly next: Uint16Array;
  /** accept[state]: the index of the rule the state accepts, or -1. */
  readonly accept: Int8Array;
  /** The start state (1). */
  readonly start: number;
}

interface Nfa {
  eps: number[][];
  edgeMask: number[];
  edgeTo: number[];
  accept: number[];
}

function node(nfa: Nfa): number {
  nfa.eps.push([]);
  nfa.edgeMask.push(0);
  nfa.edgeTo.push(-1);
  nfa.accept.push(-1);
  return nfa.eps.length - 1;
}

/** Adds `re` starting at `from`; returns the node where it ends. */
function fragment(nfa: Nfa, re: Re, from: number): number {
  switch (re.kind) {
    case "set": {
      // A node has at most one symbol edge: an intermediate node keeps that invariant.
      const at = node(nfa);
      nfa.eps[from]!.push(at);
      const to = node(nfa);
      nfa.edgeMask[at] = re.mask;
      nfa.edgeTo[at] = to;
      return to;
    }
    case "seq": {
      let at = from;
      for (const item of re.items) at = fragment(nfa, item, at);
      return at;
    }
    case "alt": {
      const end = node(nfa);
      for (const item of re.items) nfa.eps[fragment(nfa, item, from)]!.push(end);
      return end;
    }
    case "star": {
      const loop = node(nfa);
      nfa.eps[from]!.push(loop);
      nfa.eps[fragment(nfa, re.item, loop)]!.push(loop);
      return loop;
    }
  }
}

/** The NFA of every rule from one start node (0); a rule's end node accepts with the first rule ending there. */
function buildNfa(rules: readonly Re[]): Nfa {
  const nfa: Nfa = { eps: [], edgeMask: [], edgeTo: [], accept: [] };
  const start = node(nfa);
  rules.forEach((re, i) => {
    const end = fragment(nfa, re, start);
    if (nfa.accept[end] === -1) nfa.accept[end] = i;
  });
  return nfa;
}

/** Epsilon closures in one NFA, with a stamp per node and round (no set allocated per closure). */
class Closures {
  private readonly stamp: Int32Array;
  private round = 0;
  constructor(private readonly nfa: Nfa) {
    this.stamp = new Int32Array(nfa.eps.length).fill(-1);
  }
  /** The sorted epsilon closure of `seeds`. */
  of(seeds: readonly number[]): number[] {
    const { stamp, nfa } = this;
    const round = ++this.round;
    const out: number[] = [];
    const stack: number[] = [];
    for (const n of seeds) {
      if (stamp[n] !== round) {
        stamp[n] = round;
        out.push(n);
        stack.push(n);
      }
    }
    while (stack.length > 0) {
      for (const t of nfa.eps[stack.pop()!]!) {
        if (stamp[t] !== round) {
          stamp[t] = round;
          out.push(t);
          stack.push(t);
        }
      }
    }
    return out.sort((x, y) => x - y);
  }
}

/** Per symbol, the NFA nodes one symbol edge leads to from the nodes of `state`. */
function moves(nfa: Nfa, state: readonly number[], symbols: number): number[][] {
  const moved: number[][] = Array.from({ length: symbols }, () => []);
  for (const n of state) {
    const mask = nfa.edgeMask[n]!;
    for (let sym = 0; sym < symbols; sym++) if ((mask >>> sym) & 1) moved[sym]!.push(nfa.edgeTo[n]!);
  }
  return moved;
}

/** Subset construction: the DFA states (sorted NFA node sets; 0 the dead one, 1 the start) and each one's row of next states. */
function subsets(nfa: Nfa, symbols: number): { states: number[][]; rows: number[][] } {
  const closures = new Closures(nfa);
  const states: number[][] = [[], closures.of([0])];
  const ids = new Map<string, number>([["", 0], [states[1]!.join(","), 1]]);
  // Many symbols lead from a state to the same NFA nodes: their closure is computed once.
  const byMoved = new Map<string, number>([["", 0]]);
  const rows: number[][] = [new Array<number>(symbols).fill(0)];
  for (let s = 1; s < states.length; s++) {
    const row: number[] = [];
    for (const targets of moves(nfa, states[s]!, symbols)) {
      const movedKey = targets.join(",");
      let id = byMoved.get(movedKey);
      if (id === undefined) {
        const target = closures.of(targets);
        const key = target.join(",");
        id = ids.get(key);
        if (id === undefined) {
          id = states.length;
          states.push(target);
          ids.set(key, id);
        }
        byMoved.set(movedKey, id);
      }
      row.push(id);
    }
    rows.push(row);
  }
  return { states, rows };
}

/** Compiles rules (highest priority first) into a DFA over `symbols` symbols. */
export function compileDfa(rules: readonly Re[], symbols: number): Dfa {
  if (rules.length > 127) throw new Error("at most 127 rules");
  const nfa = buildNfa(rules);
  const { states, rows } = subsets(nfa, symbols);
  if (states.length > 0xffff) throw new Error(`DFA too large (${states.length} states)`);
  const next = new Uint16Array(states.length * symbols);
  rows.forEach((row, s) => next.set(row, s * symbols));
  // A state accepts with the first rule (lowest index) any of its NFA nodes accepts.
  const accept = Int8Array.from(states, (nodes) => {
    let best = -1;
    for (const n of nodes) {
      const a = nfa.accept[n]!;
      if (a >= 0 && (best < 0 || a < best)) best = a;
    }
    return best;
  });
  return { symbols, next, accept, start: 1 };
}
