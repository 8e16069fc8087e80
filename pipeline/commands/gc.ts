/**
 * `gc [--keep-runs N] [--grace D] [--scratch] [--dry-run]`: remove entries that no pin,
 * recent run, running run or recently interrupted run needs (engine/gc.ts), naming each
 * removed entry and what was kept and why. Exit 1 when scratch was kept because a run is
 * active (with --scratch).
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import type { Project } from "../session.ts";

export interface StoreCommandContext {
  readonly project: () => Promise<Project>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly setExitCode: (code: number) => void;
  readonly humanBytes: (n: number) => string;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "0", "90s", "12h", "7d" (a bare number is days) -> milliseconds. */
export function parseDuration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError("a duration such as 0, 90s, 30m, 12h or 7d");
  return Number(m[1]) * (m[2] ? UNITS[m[2]]! : UNITS.d!);
}

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (v.trim() === "" || !Number.isInteger(n) || n < 0) throw new InvalidArgumentError("must be an integer >= 0");
  return n;
}

/** "1 dir", "2 dirs". */
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function registerGcCommand(program: Command, ctx: StoreCommandContext): void {
  const { out, err } = ctx;
  program
    .command("gc")
    .description("remove entries no pin, recent run, running run or recently interrupted run needs; report bytes freed")
    .option("--keep-runs <n>", "finished runs of each target whose entries are kept (0: none; pins and running runs are kept anyway)", nonNegativeInt, 5)
    .addOption(new Option("--grace <duration>", "how long an interrupted run's finished entries are kept (e.g. 0, 12h, 7d)").argParser(parseDuration).default(7 * UNITS.d!, "7d"))
    .option("--dry-run", "only report", false)
    .option("--scratch", "also remove steps' persistent scratch (abandoned partial downloads); refused while a run is active", false)
    .action(async (flags: { keepRuns: number; grace: number; dryRun: boolean; scratch: boolean }) => {
      const p = await ctx.project();
      const { collectGarbage } = await import("../session.ts");
      const r = await collectGarbage(p, { keepRuns: flags.keepRuns, graceMs: flags.grace, dryRun: flags.dryRun, scratch: flags.scratch });
      for (const e of r.removed) out(`${flags.dryRun ? "would remove" : "removed"} ${e.key.slice(0, 12)} ${e.manifest.step.name}`);
      for (const d of r.removedDamaged) out(`${flags.dryRun ? "would remove" : "removed"} ${d} (moved aside earlier as damaged)`);
      const s = r.scratch;
      const scratch = s.removed ? `, ${plural(s.dirs, "scratch dir")}` : "";
      out(`${flags.dryRun ? "would free" : "freed"} ${ctx.humanBytes(r.bytes)} (${plural(r.removed.length, "entry", "entries")}, ${plural(r.staging, "staging dir")}${scratch}); kept ${plural(r.kept, "key")}`);
      const by = r.keptBy;
      out(`  kept for (a key may have several reasons): ${by.pins} pinned, ${by.recentRuns} in the last ${plural(flags.keepRuns, "run")} of each target, ${by.runningRuns} in running runs, ${by.interruptedRuns} in interrupted runs, ${by.leases} leased`);
      for (const i of r.interrupted) out(`  interrupted run of ${i.time}: ${i.keys} keys kept until ${i.keptUntil} (--grace; ${i.file})`);
      if (r.restored > 0) out(`  ${r.restored} entries put back: a run claimed them while gc was deciding`);
      for (const d of r.damaged) err(`warning: ${d.file}: ${d.problem}; entry kept ('doctor --repair' moves it aside)`);
      if (s.busy.length > 0) {
        const who = s.busy.map((h) => `pid ${h.pid} on ${h.host}`).join(", ");
        err(`error: scratch kept (${ctx.humanBytes(s.bytes)} in ${plural(s.dirs, "dir")}): a run is active on this store (${who}); rerun gc --scratch when it has finished`);
        ctx.setExitCode(1);
      } else if (!s.removed && s.bytes > 0) {
        out(`scratch: ${ctx.humanBytes(s.bytes)} in ${plural(s.dirs, "dir")} kept (partial downloads resume from there); gc --scratch removes them`);
      }
    });

}
