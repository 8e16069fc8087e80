/**
 * DCSR's tables as named targets (and as report sections for whoever lists them). Neither is
 * in the default `report`: that run already takes longer than its 15-minute budget on two
 * cores, and table-dcsr adds seven DCSR trainings with their sentence indexes (more with
 * seeds); ablation-dcsr adds eleven more (three per conversational dataset, three on mini-nq
 * from a random BERT). `table-dcsr-smoke` is the one-epoch, QReCC-only wiring check. Each of
 * the two writes its findings beside the table (findings.ts: `check-findings-table-dcsr`,
 * `check-findings-ablation-dcsr`).
 */
import type { Target, TargetContext } from "../../engine/targets.ts";
import { resultTarget, stepOutputs } from "../results.ts";
import type { ReportSection } from "../report.ts";
import type { Profile } from "../dense/setup.ts";
import { ablationDcsr, tableDcsr, type DcsrTargetContext } from "./tables.ts";
import { dcsrContext, dcsrParameters } from "./parameters.ts";
import { ablationDcsrFindings, tableDcsrFindings } from "./findings.ts";

const withProfile = (ctx: TargetContext, profile: Profile): DcsrTargetContext => ({ ...ctx, profile });

/** table-dcsr as a report section (profile "paper": the mini reproduction; "smoke": one epoch). */
export function dcsrSections(profile: Profile): ReportSection[] {
  return [{ kind: "table", id: profile === "paper" ? "table-dcsr" : `table-dcsr-${profile}`, build: (ctx) => tableDcsr(withProfile(ctx, profile)) }];
}

/** Each target takes `--set` overrides of the dense setup and of the DCSR setup (`dcsr.*`) of its profile (parameters.ts). */
export function dcsrTargets(): Target[] {
  const [paper, smoke] = [dcsrParameters("paper"), dcsrParameters("smoke")];
  return [
    resultTarget({ name: "table-dcsr", description: "DCSR and DCSR x IHN beside DPR (IBN, IHN) on QReCC, TopiOCQA and OR-QuAC, all / first / switch / no-switch (not in the default report)", parameters: paper }, (ctx) => [tableDcsr(withProfile(ctx, "paper")), ...stepOutputs(tableDcsrFindings(dcsrContext(ctx, "paper")))]),
    resultTarget({ name: "table-dcsr-smoke", description: "table-dcsr at one epoch on QReCC only: every DCSR step end to end (wiring check, numbers meaningless)", parameters: smoke }, (ctx) => [tableDcsr(withProfile(ctx, "smoke"))]),
    resultTarget({ name: "ablation-dcsr", description: "DCSR's negative-sampling ablations (+1 / +2 BM25 random, +1 in-passage & +1 BM25 random) on the conversational datasets and mini-nq (not in the default report)", parameters: paper }, (ctx) => [ablationDcsr(withProfile(ctx, "paper")), ...stepOutputs(ablationDcsrFindings(dcsrContext(ctx, "paper")))]),
  ];
}
