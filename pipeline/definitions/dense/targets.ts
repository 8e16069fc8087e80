/**
 * The dense tables and figures as report sections and named targets, for a profile
 * ("paper": the mini reproduction's schedule; "smoke": one epoch, for CI).
 */
import type { DataSource, Target, TargetContext } from "../../engine/targets.ts";
import type { OutputRef } from "../../engine/step.ts";
import { resultTarget } from "../results.ts";
import type { ReportSection } from "../report.ts";
import type { Profile } from "./setup.ts";
import { denseParameters } from "./parameters.ts";
import { devSelectionTable } from "./dev-selection.ts";
import { figure2b, figure2c, figure3, figure4, goldNegativesAblation, table1, table2, table3, table4, table6, theta0Table, type DenseTargetContext } from "./tables.ts";

interface DenseArtifact {
  readonly kind: "table" | "figure";
  readonly id: string;
  readonly description: string;
  /** Built on this data source only (θ0 against BM25 exists on mini, where θ0 is pre-trained). */
  readonly only?: DataSource;
  build(ctx: DenseTargetContext): OutputRef<"table"> | OutputRef<"figure">;
}

/** Registry of the dense artifacts, in report order. */
export const DENSE_ARTIFACTS: readonly DenseArtifact[] = [
  { kind: "table", id: "theta0-nq", description: "θ0 against BM25 on mini-nq: θ0 is a competent retriever before conversational training, as DPR-NQ is on NQ", only: "mini", build: theta0Table },
  { kind: "table", id: "table2", description: "Table 2 (full): BM25 and DPR^shortcut / IBN / IHN on QReCC test and TopiOCQA dev", build: table2 },
  { kind: "table", id: "table1", description: "Table 1 (early version): QReCC by question type, BM25 and DPR with CQR / BM25 / model negatives", build: table1 },
  { kind: "table", id: "table3", description: "Table 3: OR-QuAC with question-only inputs, BM25 and DPR IBN / IHN", build: table3 },
  { kind: "table", id: "table4", description: "Table 4: QReCC breakdown by question type for DPR^shortcut / IBN / IHN", build: table4 },
  { kind: "table", id: "table6", description: "Table 6: hard-negative sources on QReCC (model, BM25 on the rewrite, CQR)", build: table6 },
  { kind: "table", id: "ablation-gold-negatives", description: "Ablation: gold passages kept among mined negatives, as the released code does", build: goldNegativesAblation },
  { kind: "figure", id: "figure2b", description: "Figure 2(b): DPR vs DPR^shortcut on QReCC", build: figure2b },
  { kind: "figure", id: "figure2c", description: "Figure 2(c): R@10 by question type on QReCC", build: figure2c },
  { kind: "figure", id: "figure3", description: "Figure 3: TopiOCQA R@5 per IHN iteration by question type", build: figure3 },
  { kind: "figure", id: "figure4", description: "Figure 4: R@5 per IHN iteration on QReCC and TopiOCQA", build: figure4 },
];

const withProfile = (ctx: TargetContext, profile: Profile): DenseTargetContext => ({ ...ctx, profile });

export function denseSections(profile: Profile): ReportSection[] {
  return DENSE_ARTIFACTS.map((a) => ({ kind: a.kind, id: profile === "paper" ? a.id : `${a.id}-${profile}`, ...(a.only === undefined ? {} : { only: a.only }), build: (ctx) => a.build(withProfile(ctx, profile)) }));
}

/** One target per dense artifact (paper profile). */
export function denseTargets(): Target[] {
  const parameters = denseParameters("paper");
  return DENSE_ARTIFACTS.map((a) => resultTarget({ name: a.id, description: a.description, parameters }, (ctx) => [a.build(withProfile(ctx, "paper"))]));
}

/** `dev-selection` (dev-selection.ts): not a report section; the target the setup's knobs are chosen with. */
export function devSelectionTarget(): Target {
  return resultTarget(
    { name: "dev-selection", description: "θ0 and DPR (IBN) over the seeds, each by its own dev Recall@5, epochs and training seconds: what the dense setup is chosen on (--set a candidate); reads no test split", parameters: denseParameters("paper") },
    (ctx) => [devSelectionTable(withProfile(ctx, "paper"))],
  );
}
