/**
 * `show <step-or-key>`: an entry of the store in words (step name, id, key, when and where it
 * ran, outputs, params, log), then its provenance chain: every entry it was computed from,
 * by step name, with its key and a one-line summary, back to the data. `--json` prints the
 * manifest, the fingerprint and the chain as JSON.
 *
 * The chain is read from the store, not from a target's definitions, so it works for any
 * entry: an input's digest (recorded in the fingerprint) leads to the entry that produced those
 * bytes; when several entries did (identical bytes from different keys: early cutoff), the one
 * the newest run used is shown and the others are counted.
 */
import type { Command } from "commander";
import { describeNumerics } from "../engine/numerics-words.ts";
import { join } from "node:path";
import type { Entry, Store } from "../engine/store.ts";
import { showEntry, type Project } from "../session.ts";
import { didYouMean } from "../engine/nearest.ts";
import { chainLines, paramsLine, type ChainNode } from "../../steps/report/provenance.ts";

function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

/** The chain of `root` through the store: each input digest resolved to the entry that produced it. */
export async function storeChain(store: Store, root: Entry): Promise<{ nodes: Map<string, ChainNode>; alternatives: Map<string, number> }> {
  const all = await store.entries();
  const byDigest = new Map<string, Entry[]>();
  for (const e of all) for (const o of Object.values(e.manifest.outputs)) byDigest.set(`${o.kind}\u0000${o.digest}`, [...(byDigest.get(`${o.kind}\u0000${o.digest}`) ?? []), e]);
  const recent = new Map<string, number>();
  (await store.runs()).forEach((r, i) => {
    for (const s of Object.values(r.steps)) recent.set(s.key, i);
  });
  const nodes = new Map<string, ChainNode>();
  const alternatives = new Map<string, number>();
  const queue: Entry[] = [root];
  while (queue.length > 0) {
    const e = queue.shift()!;
    if (nodes.has(e.key)) continue;
    const fp = await store.fingerprint(e);
    const inputs: Record<string, string | undefined> = {};
    for (const [input, { kind, digest }] of Object.entries(fp.inputs)) {
      const candidates = [...(byDigest.get(`${kind}\u0000${digest}`) ?? [])].sort((a, b) => (recent.get(b.key) ?? -1) - (recent.get(a.key) ?? -1) || (a.key < b.key ? -1 : 1));
      const chosen = candidates[0];
      inputs[input] = chosen?.key;
      if (chosen !== undefined) {
        if (candidates.length > 1) alternatives.set(chosen.key, candidates.length - 1);
        queue.push(chosen);
      }
    }
    const m = e.manifest;
    nodes.set(e.key, { name: m.step.name, stepId: m.step.id, key: e.key, inputs, summary: `${paramsLine(fp.params, 90) || "(no params)"} · ${m.timings.seconds.toFixed(1)} s ${m.executor}` });
  }
  return { nodes, alternatives };
}

/** The chain as lines: `input ← name  step-id  key12  summary`, indented by depth. */
export function chainText(root: string, nodes: ReadonlyMap<string, ChainNode>, alternatives: ReadonlyMap<string, number>): string[] {
  return chainLines(root, nodes).map((l) => {
    const n = l.node;
    const alt = alternatives.get(n.key);
    const head = `${"  ".repeat(l.depth)}${l.via === null ? "" : `${l.via} ← `}${n.name}  ${n.stepId}  ${n.key.slice(0, 12)}`;
    return l.repeat ? `${head}  (see above)` : `${head}  ${n.summary}${alt ? ` (+${alt} other entr${alt === 1 ? "y" : "ies"} with these bytes)` : ""}`;
  });
}

export async function describeEntry(store: Store, e: Entry): Promise<string[]> {
  const m = e.manifest;
  const fp = await store.fingerprint(e);
  const lines = [
    `${m.step.name}  (${m.step.id} v${m.step.version})`,
    `  key       ${e.key}`,
    `  ran       ${m.timings.finished}, ${m.timings.seconds.toFixed(1)} s on ${m.host.hostname} (${m.executor})`,
    `  params    ${paramsLine(fp.params, 200) || "(none)"}`,
    ...((fp.numerics ?? null) !== null ? [`  numerics  ${describeNumerics(fp.numerics)}`] : []),
    ...Object.entries(m.outputs)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, o], i) => `  ${i === 0 ? "outputs " : "        "}  ${name} (${o.kind}, ${bytes(o.size)}${o.dir ? `, ${o.files} files` : ""}): ${join(e.dir, "outputs", o.path)}`),
    `  log       ${join(e.dir, m.log)}`,
  ];
  const { nodes, alternatives } = await storeChain(store, e);
  lines.push("", `chain (${nodes.size} entries, by the input each one feeds):`, ...chainText(e.key, nodes, alternatives).map((l) => `  ${l}`));
  return lines;
}

/**
 * The entries `show <query>` prints: by key prefix or step name, else the result steps of the
 * target of that name (its sinks and exports); a message saying what is missing otherwise.
 */
export async function showEntryOrTarget(p: Project, query: string): Promise<Entry[] | string> {
  const entries = await showEntry(p, query);
  if (entries.length > 0) return entries;
  if (p.targets.get(query) === undefined) {
    const names = [...new Set((await p.store.entries()).map((e) => e.manifest.step.name))];
    return `no cached entry matches '${query}'${didYouMean(query, [...p.targets.names(), ...names])} ('ls' lists the cached entries, 'targets' the targets)`;
  }
  const s = p.sinks([query]);
  const steps = [...new Set([...(s.sinksOf.get(query) ?? []), ...s.exports.map((e) => e.ref.step.name)])];
  const found: Entry[] = [];
  for (const step of steps) for (const e of await showEntry(p, step)) if (!found.some((f) => f.key === e.key)) found.push(e);
  return found.length > 0 ? found : `target '${query}' has no result in this store yet (${steps.join(", ")}): run it with 'cspipe run ${query}'`;
}

export interface ShowCommandIO {
  readonly project: () => Promise<Project>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly setExitCode: (code: number) => void;
}

export function registerShowCommand(program: Command, io: ShowCommandIO): void {
  program
    .command("show")
    .description("an entry by key prefix, step name or target name (its result steps): what ran, its outputs, and its chain back to the data by step name")
    .argument("<step-key-or-target>")
    .option("--json", "manifest, fingerprint and chain as JSON", false)
    .action(async (query: string, flags: { json: boolean }) => {
      const p = await io.project();
      const entries = await showEntryOrTarget(p, query);
      if (typeof entries === "string") {
        io.err(`error: ${entries}`);
        io.setExitCode(2);
        return;
      }
      for (const e of entries) {
        if (flags.json) {
          const { nodes } = await storeChain(p.store, e);
          io.out(JSON.stringify({ dir: e.dir, manifest: e.manifest, fingerprint: await p.store.fingerprint(e), chain: [...nodes.values()] }, null, 2));
        } else for (const l of await describeEntry(p.store, e)) io.out(l);
      }
    });
}
