/**
 * How many seeds would make a claim's verdict survive a perturbation (steps/findings/seed-power.ts):
 * from two or more runs' findings.json (e.g. the default run and the run under other BLAS kernels),
 * each claim's per-seed values are pooled (means averaged, variances pooled) and two independent
 * runs of n seeds are simulated under the verdict rule of steps/findings/claims.ts. Prints, per
 * claim, the probability that they agree and that one run is conclusive for each n, and the
 * fewest n that reaches the target. Used to choose `claimSeeds` (pipeline/definitions/dense/setup.ts).
 *
 *   npx tsx scripts/claim-seeds.ts A/findings.json B/findings.json [--claims id,id] [--target 0.95] [--max 20] [--trials 20000]
 *
 * Without --claims: the claims whose verdicts differ between the files. Exits 2 on bad input.
 */
import type { Claim } from "../steps/report/findings.ts";
import { readClaims } from "./compare-findings.ts";
import { pooledNoise, seedsFor, type Noise } from "../steps/findings/seed-power.ts";

interface Run {
  readonly file: string;
  readonly claims: ReadonlyMap<string, Claim>;
}

function decisionOf(c: Claim, file: string): NonNullable<Claim["decision"]> {
  if (c.decision === undefined) throw new Error(`${file}: claim ${c.id} has no "decision" (written before the findings recorded their rule in numbers). Fix: rerun its check-findings step (./cspipe run <target> with the same store)`);
  return c.decision;
}

function perSeedOf(c: Claim, file: string): readonly number[] {
  if (c.perSeed === undefined) throw new Error(`${file}: claim ${c.id} has no "perSeed". Fix: pass a findings.json written by a check-findings step`);
  return c.perSeed;
}

function stepsOf(c: Claim, file: string): readonly (readonly number[])[] {
  if (c.steps === undefined) throw new Error(`${file}: claim ${c.id} is a rise without "steps" (written before the findings recorded each step's gains). Fix: rerun its check-findings step (./cspipe run <target> with the same store)`);
  return c.steps;
}

/** A claim's noise pooled over the runs: its statistic, or each step of a rise. */
function noiseOf(found: readonly { r: Run; c: Claim }[], d: NonNullable<Claim["decision"]>): { noise: Noise; text: string } {
  const pooled = (runs: readonly (readonly number[])[]) => pooledNoise(runs, d.threshold, d.direction);
  const show = (x: { mean: number; sd: number }) => `mean ${x.mean.toPrecision(4)}, sd ${x.sd.toPrecision(3)}`;
  if (d.rule !== "rise") {
    const noise = pooled(found.map((f) => perSeedOf(f.c, f.r.file)));
    return { noise, text: show(noise) };
  }
  const perRun = found.map((f) => stepsOf(f.c, f.r.file));
  const count = perRun[0]!.length;
  if (perRun.some((s) => s.length !== count)) throw new Error(`claim ${found[0]!.c.id}: the runs have rises of different lengths. Fix: compare runs of one setup`);
  const steps = Array.from({ length: count }, (_, i) => pooled(perRun.map((s) => s[i]!)));
  return { noise: { steps }, text: `each step simulated on its own (every step must hold), ${steps.map((s, i) => `step ${i + 1} -> ${i + 2}: ${show(s)}`).join("; ")}` };
}

export interface Options {
  readonly claims?: readonly string[];
  readonly target: number;
  readonly max: number;
  readonly trials: number;
}

/** The Markdown report for `runs`; claims that differ in verdict unless `claims` names them. */
export function claimSeedsReport(runs: readonly Run[], o: Options): string {
  const ids = o.claims ?? [...runs[0]!.claims.keys()].filter((id) => new Set(runs.map((r) => r.claims.get(id)?.verdict)).size > 1);
  if (ids.length === 0) return "No claim's verdict differs between the runs (name claims with --claims to size them anyway).\n";
  const out: string[] = [];
  for (const id of ids) {
    const found = runs.map((r) => ({ r, c: r.claims.get(id) }));
    const missing = found.find((f) => f.c === undefined);
    if (missing !== undefined) throw new Error(`${missing.r.file}: no claim ${id}. Fix: name a claim both files have`);
    const first = found[0]!;
    const d = decisionOf(first.c!, first.r.file);
    const { noise, text } = noiseOf(found.map((f) => ({ r: f.r, c: f.c! })), d);
    const { fewest, table } = seedsFor(noise, o.target, 3, o.max, o.trials, 1);
    out.push(`## ${id}`, "", `${runs.length} runs pooled: ${text}; verdict rule ${d.direction} ${d.threshold}; verdicts ${found.map((f) => f.c!.verdict).join(" / ")}.`, "");
    out.push("| seeds | P(two runs agree) | P(conclusive) |", "|---:|---:|---:|", ...table.map((a) => `| ${a.n} | ${a.agree.toFixed(2)} | ${a.conclusive.toFixed(2)} |`), "");
    out.push(fewest === null ? `No n up to ${o.max} reaches ${o.target}.` : `Fewest seeds with P(agree) >= ${o.target}: **${fewest}**.`, "");
  }
  return out.join("\n");
}

function numberArg(args: string[], flag: string, fallback: number): number {
  const i = args.indexOf(flag);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${flag} ${args[i + 1] ?? ""}: not a positive number`);
  args.splice(i, 2);
  return v;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  try {
    const target = numberArg(args, "--target", 0.95);
    const max = numberArg(args, "--max", 20);
    const trials = numberArg(args, "--trials", 20000);
    const ci = args.indexOf("--claims");
    const claims = ci >= 0 ? args.splice(ci, 2)[1]?.split(",") : undefined;
    if (args.length < 2) throw new Error("usage: claim-seeds.ts A/findings.json B/findings.json [...] [--claims id,id] [--target 0.95] [--max 20] [--trials 20000]");
    const runs = args.map((file) => ({ file, claims: readClaims(file) }));
    process.stdout.write(claimSeedsReport(runs, { ...(claims === undefined ? {} : { claims }), target, max, trials }));
  } catch (e) {
    process.stderr.write(`claim-seeds: ${(e as Error).message}\n`);
    process.exitCode = 2;
  }
}
