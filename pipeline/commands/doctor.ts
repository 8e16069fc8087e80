/**
 * `doctor [--repair] [--content]`: list damaged entries, orphan staging and leases,
 * unreadable pins and run records (engine/doctor.ts), each with its path and what
 * `--repair` does; `--repair` fixes each and names it. Exit 0 when nothing is wrong (or
 * everything was repaired), 1 otherwise.
 */
import type { Command } from "commander";
import type { StoreCommandContext } from "./gc.ts";

export function registerDoctorCommand(program: Command, ctx: StoreCommandContext): void {
  const { out } = ctx;
  program
    .command("doctor")
    .description("find damaged entries, orphan staging and leases, unreadable pins and run records; --repair fixes them")
    .option("--repair", "repair every problem found (damaged entries and records are moved aside, debris removed)", false)
    .option("--content", "re-hash every output (default: sizes and file counts)", false)
    .action(async (flags: { repair: boolean; content: boolean }) => {
      const p = await ctx.project();
      const { diagnoseStore, repairStore, movedAside } = await import("../engine/doctor.ts");
      const findings = await diagnoseStore(p.store, { content: flags.content });
      if (!flags.repair) {
        for (const f of findings) out(`${f.kind.padEnd(24)} ${f.path}\n${" ".repeat(25)}${f.detail}; --repair: ${f.repair}`);
        const aside = await movedAside(p.store);
        if (aside.length > 0) out(`${aside.length} entries or files moved aside earlier are in ${p.store.root}/damaged ('gc' removes them)`);
        out(findings.length === 0 ? `no problems in ${p.store.root}` : `${findings.length} problem${findings.length === 1 ? "" : "s"}; 'doctor --repair' fixes ${findings.length === 1 ? "it" : "them"}`);
        if (findings.length > 0) ctx.setExitCode(1);
        return;
      }
      const repaired = await repairStore(p.store, findings);
      for (const r of repaired) out(`${r.ok ? "repaired" : "FAILED  "} ${r.finding.kind.padEnd(24)} ${r.finding.path}: ${r.action}`);
      const failed = repaired.filter((r) => !r.ok).length;
      const fixed = repaired.length - failed;
      out(`repaired ${fixed} problem${fixed === 1 ? "" : "s"}${failed > 0 ? `, ${failed} could not be repaired` : ""}`);
      if (failed > 0) ctx.setExitCode(1);
    });
}
