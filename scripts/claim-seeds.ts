/**
 * How many seeds would make a claim's verdict survive a perturbation (steps/findings/seed-power.ts):
 * from two or more runs' findings.json (e.g. the default run and the run under other BLAS kernels),
 * each claim's per-seed values are pooled (means averaged, variances pooled) and two independent
 * runs of n seeds are simulated under the verdict rule of steps/findings/claims.ts. Prints, per
 * claim, the probability that they agree and that one run is conclusive for each n, and the
 * fewest n that reaches the target. Used to choose `claimSeeds` (pipeline/definitions/dense/setup.ts).
 * `--replicates M` sizes a design of M fine-tunings per θ0, averaged per θ0 (`claimReplicates`):
 * n then counts θ0s, each value's sd is divided by sqrt(M), and θ0's own variance is taken as 0
 * (measured for the switch-turn claim; where it is not, the answer is a lower bound). A claim whose
 * findings already average replicates (`units`) is pooled over its per-θ0 means as the rule sees them.
 *
 *   npx tsx scripts/claim-seeds.ts A/findings.json B/findings.json [--claims id,id] [--replicates M] [--target 0.95] [--max 20] [--trials 20000]
 *
 * Without --claims: the claims whose verdicts differ between the files. Exits 2 on bad input.
 */
import type { Claim } from "../steps/report/findings.ts";
import { readClaims } from "./compare-findings.ts";
import { pooledNoise, seedsFor, type ClaimNoise, type Noise } from "../steps/findings/seed-power.ts";

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

/** The noise of a mean over `m` replicates whose own variance is all there is (see the module comment). */
export function averaged(noise: Noise, m: number): Noise {
  const one = (c: ClaimNoise): ClaimNoise => ({ ...c, sd: c.sd / Math.sqrt(m) });
  return "steps" in noise ? { steps: noise.steps.map(one) } : one(noise);
}

export interface Options {
  readonly claims?: readonly string[];
  /** Fine-tunings per θ0 of the simulated design (1: one per seed). */
  readonly replicates?: number;
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
    const m = o.replicates ?? 1;
    const { fewest, table } = seedsFor(m === 1 ? noise : averaged(noise, m), o.target, 3, o.max, o.trials, 1);
    const design = m === 1 ? "" : ` Simulated as ${m} fine-tunings per θ0, averaged (sd / sqrt(${m}); θ0's own variance taken as 0): n counts θ0s.`;
    out.push(`## ${id}`, "", `${runs.length} runs pooled: ${text}; verdict rule ${d.direction} ${d.threshold}; verdicts ${found.map((f) => f.c!.verdict).join(" / ")}.${design}`, "");
    out.push(`| ${m === 1 ? "seeds" : "θ0s"} | P(two runs agree) | P(conclusive) |`, "|---:|---:|---:|", ...table.map((a) => `| ${a.n} | ${a.agree.toFixed(2)} | ${a.conclusive.toFixed(2)} |`), "");
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
    const replicates = numberArg(args, "--replicates", 1);
    if (!Number.isInteger(replicates)) throw new Error(`--replicates ${replicates}: not a whole number`);
    const ci = args.indexOf("--claims");
    const claims = ci >= 0 ? args.splice(ci, 2)[1]?.split(",") : undefined;
    if (args.length < 2) throw new Error("usage: claim-seeds.ts A/findings.json B/findings.json [...] [--claims id,id] [--replicates M] [--target 0.95] [--max 20] [--trials 20000]");
    const runs = args.map((file) => ({ file, claims: readClaims(file) }));
    process.stdout.write(claimSeedsReport(runs, { ...(claims === undefined ? {} : { claims }), target, max, trials, replicates }));
  } catch (e) {
    process.stderr.write(`claim-seeds: ${(e as Error).message}\n`);
    process.exitCode = 2;
  }
}
