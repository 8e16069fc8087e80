/**
 * DCSR's settings per data source and profile. Everything a DCSR training shares with DPR
 * (schedule, batch, learning rate, patience, token budgets, dev collections, shards, seeds)
 * comes from the dense setup (../dense/setup.ts), so DCSR and DPR rows of one table are
 * trained alike; only what DCSR adds is here.
 *
 * - The marker: BERT's `[unused0]` (id 1) on real data, as DCSR maps `<sent>`; the mini
 *   WordPiece vocabulary has no unused tokens, and its `[MASK]` plays the part: a token θ0
 *   never saw (θ0 is trained without masking), so its embedding is as untrained as
 *   `[unused0]`'s.
 * - M = 3000 sentences per query before the HasAns ranking (DCSR's code; the paper's text:
 *   100 x the mean sentences per passage). At most 10 markers per passage (DCSR's code).
 * - `datasets`: the conversational datasets of table-dcsr. The smoke profile builds QReCC
 *   only: one dataset exercises every DCSR step (split, label, tokenize, train, encode,
 *   search, mine, DCSR x IHN) at one epoch and one seed, which is what an end-to-end wiring check is for.
 * - `seeds`: the training seeds of every row of table-dcsr (DPR and DCSR alike, so the rows
 *   compare seed for seed; several seeds render as mean ± sd). Mini: the dense setup's three
 *   seeds, so the DPR rows reuse the report's models and every DCSR claim carries its spread
 *   (one seed's differences were inside the seed-to-seed sd). Real: the paper's one seed.
 *   `--set dcsr.seeds=1,2` (or `dcsr.topM=...`) makes another variant (parameters.ts).
 */
import type { DataSource } from "../../engine/targets.ts";
import type { DatasetName } from "../../../steps/data/schemas.ts";
import { DCSR_SPLIT_RULE, type SplitRule } from "../../../steps/dcsr/splitter.ts";
import type { Profile } from "../dense/setup.ts";

export interface DcsrSetup {
  readonly marker: string;
  readonly maxMarkers: number;
  readonly topM: number;
  readonly split: SplitRule;
  /** Sentences per training query kept from a search (what DCSR x IHN mines from). */
  readonly keepSentences: number;
  readonly datasets: readonly DatasetName[];
  readonly seeds: readonly number[];
}

const MINI: DcsrSetup = { marker: "[MASK]", maxMarkers: 10, topM: 3000, split: DCSR_SPLIT_RULE, keepSentences: 100, datasets: ["qrecc", "topiocqa", "orquac"], seeds: [1, 2, 3] };
// The paper's one seed (42), as the dense real setup.
const REAL: DcsrSetup = { ...MINI, marker: "[unused0]", seeds: [42] };

export const DCSR_SETUPS: Readonly<Record<DataSource, Readonly<Record<Profile, DcsrSetup>>>> = {
  mini: { paper: MINI, smoke: { ...MINI, datasets: ["qrecc"], seeds: [1] } },
  real: { paper: REAL, smoke: { ...REAL, datasets: ["qrecc"] } },
};
