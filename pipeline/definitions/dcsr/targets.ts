/**
 * DCSR's tables as report sections and named targets. `table-dcsr` is in the report (and,
 * at one epoch on QReCC only, in report-smoke); `ablation-dcsr` is a target of its own: its
 * eleven more trainings (three per conversational dataset, three on mini-nq from a random
 * BERT) do not fit the default report's 15-minute budget on two cores.
 */
import type { Target, TargetContext } from "../../engine/targets.ts";
import type { AnyStep } from "../../engine/step.ts";
import type { ReportSection } from "../report.ts";
import type { Profile } from "../dense/setup.ts";
import { ablationDcsr, tableDcsr, type DcsrTargetContext } from "./tables.ts";

const withProfile = (ctx: TargetContext, profile: Profile): DcsrTargetContext => ({ ...ctx, profile });

/** The DCSR sections of a report (profile "paper": the mini reproduction; "smoke": one epoch). */
export function dcsrSections(profile: Profile): ReportSection[] {
  return [{ kind: "table", id: profile === "paper" ? "table-dcsr" : `table-dcsr-${profile}`, build: (ctx) => tableDcsr(withProfile(ctx, profile)) }];
}

export function dcsrTargets(): Target[] {
  return [
    { name: "table-dcsr", description: "DCSR and DCSR x IHN beside DPR (IBN, IHN) on QReCC, TopiOCQA and OR-QuAC, all / first / switch / no-switch", steps: (ctx): readonly AnyStep[] => [tableDcsr(withProfile(ctx, "paper")).step] },
    { name: "ablation-dcsr", description: "DCSR's negative-sampling ablations (+1 / +2 BM25 random, +1 in-passage & +1 BM25 random) on the conversational datasets and mini-nq (not in the default report)", steps: (ctx): readonly AnyStep[] => [ablationDcsr(withProfile(ctx, "paper")).step] },
  ];
}
