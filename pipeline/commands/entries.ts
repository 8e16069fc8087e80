/**
 * Commands that read the store's entries: `explain <step>` (why a step would rerun), `ls` (cached
 * entries with sizes, times and provenance) and `pin <name> <target>` (keep a target's entries
 * through gc). Analysis failures are printed and set exit code 2.
 */
import type { Command } from "commander";
import { describeFailures, type AnalysisFailure } from "../engine/failures.ts";
import { explainStep, listEntries, pinTarget } from "../session.ts";
import type { StoreCommandContext } from "./gc.ts";
import { repeatable } from "./repeatable.ts";

/** The project, refusing a store that does not exist; lines out and err; the exit code; byte counts in words. */
type EntriesCommandIO = StoreCommandContext;

function failed(io: EntriesCommandIO, failures: readonly AnalysisFailure[]): void {
  for (const line of describeFailures(failures)) io.err(line);
  io.setExitCode(2);
}

function registerExplain(program: Command, io: EntriesCommandIO): void {
  program
    .command("explain")
    .description("why a step would rerun: the first differing component of its fingerprint")
    .argument("<step>")
    .option("--target <name>", "look the step up in this target (default: the default target, then all)", repeatable, [] as string[])
    .option("--all", "list every differing component, not just the first", false)
    .action(async (step: string, flags: { target: string[]; all: boolean }) => {
      const p = await io.project();
      const r = await explainStep(p, step, flags.target);
      if (!r.ok) return failed(io, r.failures);
      const e = r.explanation;
      io.out(`${e.step}: ${e.status}${e.key ? ` (key ${e.key.slice(0, 12)}${e.previousKey ? `, last run ${e.previousKey.slice(0, 12)}` : ""})` : ""}`);
      for (const reason of flags.all ? e.reasons : e.reasons.slice(0, 1)) io.out(`  ${reason}`);
      if (!flags.all && e.reasons.length > 1) io.out(`  (+${e.reasons.length - 1} more; --all lists them)`);
    });
}

function registerLs(program: Command, io: EntriesCommandIO): void {
  const { out, humanBytes } = io;
  program
    .command("ls")
    .description("cached entries with sizes, times and provenance")
    .option("--json", "JSON output", false)
    .action(async (flags: { json: boolean }) => {
      const p = await io.project();
      const rows = await listEntries(p);
      for (const d of (await p.store.scan()).damaged) io.err(`warning: ${d.file}: ${d.problem}; not listed ('doctor --repair' moves it aside)`);
      if (flags.json) {
        out(JSON.stringify(rows));
        return;
      }
      for (const r of rows) out(`${r.key.slice(0, 12)}  ${humanBytes(r.bytes).padStart(10)}  ${r.created}  ${r.seconds.toFixed(1).padStart(7)} s  ${r.executor.padEnd(10)} ${r.name}`);
      out(`${rows.length} entries, ${humanBytes(rows.reduce((a, r) => a + r.bytes, 0))}`);
    });
}

function registerPin(program: Command, io: EntriesCommandIO): void {
  program
    .command("pin")
    .description("keep a target's current entries through gc under a name")
    .argument("<name>")
    .argument("<target>")
    .action(async (name: string, target: string) => {
      const p = await io.project();
      const r = await pinTarget(p, name, target);
      if (!r.ok) {
        if (r.missing) {
          io.err(`error: target '${target}' is not fully cached (${r.missing.length} steps would run: ${r.missing.slice(0, 5).join(", ")}); run it first`);
          io.setExitCode(2);
        } else failed(io, r.failures);
        return;
      }
      io.out(`pinned ${name} -> ${target} (${r.pin.keys.length} entries)`);
    });
}

/** The registrars of this file, by command name; cli.ts calls each where the help lists it. */
export const entryCommands = { explain: registerExplain, ls: registerLs, pin: registerPin } as const;
