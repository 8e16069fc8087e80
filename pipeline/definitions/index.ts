/** Every target the CLI knows. The default is what `./cspipe` runs. */
import { TargetRegistry, type TargetContext } from "../engine/targets.ts";
import { findingsStep } from "./findings.ts";
import { demoTarget } from "./demo.ts";
import { dataTarget } from "./datasets.ts";
import { daggerSmokeTarget } from "./dagger-smoke.ts";
import { LEXICAL_TARGETS } from "./lexical.ts";
import { LEXICAL_SECTIONS, reportTarget } from "./report.ts";
import { denseSections, denseTargets, devSelectionTarget } from "./dense/targets.ts";
import { qaPretrainingTarget, qaSection, table5CeilingsTarget, table5SmokeTarget, table5Target } from "./qa/table5.ts";
import { qaCeilingsSection } from "./qa/answerability.ts";
import { qaFindingsStep } from "./qa/findings.ts";
import { dcsrSections, dcsrTargets } from "./dcsr/targets.ts";
import { tableDcsrFindings } from "./dcsr/findings.ts";
import { dcsrContext } from "./dcsr/parameters.ts";
import { use } from "../engine/step.ts";
import { mergeFindingsStep } from "../../steps/report/merge-findings.ts";
import { denseContext } from "./dense/base.ts";
import { denseParameters } from "./dense/parameters.ts";
import { resultTarget, stepOutputs } from "./results.ts";
import { miniReferenceCost } from "./reference-costs.ts";

export function buildTargets(): TargetRegistry {
  const targets = new TargetRegistry().setReferenceCost("mini", miniReferenceCost());
  targets.register(demoTarget);
  targets.register(dataTarget);
  targets.register(daggerSmokeTarget);
  for (const t of LEXICAL_TARGETS) targets.register(t);
  for (const t of denseTargets()) targets.register(t);
  targets.register(devSelectionTarget());
  // End-to-end QA: a target of its own, outside the default report (whose run already fills its time budget).
  targets.register(table5Target);
  targets.register(table5SmokeTarget);
  targets.register(table5CeilingsTarget);
  targets.register(qaPretrainingTarget);
  for (const t of dcsrTargets()) targets.register(t);
  // The whole reproduction (lexical and dense) with the report written to ./report/.
  const findings = (profile: "paper" | "smoke") => ({ findings: (ctx: TargetContext) => findingsStep(denseContext(ctx, profile)), parameters: denseParameters(profile) });
  targets.register(reportTarget([...LEXICAL_SECTIONS, ...denseSections("paper")], "report", "linking every table and figure", findings("paper")), { default: true });
  // The same graph with one training epoch everywhere: CI's end-to-end check of the wiring.
  targets.register(reportTarget([...LEXICAL_SECTIONS, ...denseSections("smoke")], "report-smoke", "of the one-epoch smoke run", findings("smoke")));
  // Everything: the default report plus Table 5 and table-dcsr, one findings section over all
  // their claims (hours on two cores; its own directory, ./report-full/).
  const allFindings = (ctx: TargetContext) => {
    const parts = [findingsStep(denseContext(ctx, "paper")), qaFindingsStep(denseContext(ctx, "paper")), tableDcsrFindings(dcsrContext(ctx, "paper"))];
    return use(mergeFindingsStep, { name: "merge-findings.report-full", params: {}, inputs: { findings: parts } }).out.findings;
  };
  targets.register(reportTarget([...LEXICAL_SECTIONS, ...denseSections("paper"), qaSection("paper"), qaCeilingsSection("paper"), ...dcsrSections("paper")], "report-full", "with Table 5 (end-to-end QA) and table-dcsr beside the default report's tables and figures", { findings: allFindings }));
  targets.register(resultTarget({ name: "findings", description: "the paper's claims checked against the dense and lexical results (findings.json, findings.md)", parameters: denseParameters("paper") }, (ctx) => stepOutputs(findingsStep(denseContext(ctx, "paper")))));
  return targets;
}
