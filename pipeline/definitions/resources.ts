/**
 * The real-data profile's resources: what each heavy step of the paper-scale graph asks of the
 * machine that runs it (a Slurm job's --cpus-per-task, --mem, --time = expected minutes x the time
 * factor; GPUs are the steps' own `gpu.count`). On the mini benchmark the steps keep their own
 * declarations (minutes and a few GiB). Never part of a key, except that `cpus` is a program's
 * thread count, which its numerics identity records (pipeline/executors/numerics/pins.ts): the
 * values below are the ones the real trainings will first run with.
 *
 * Sizes and times from docs/scale.md (QReCC: 54M passages, 16 shards of 3.4M, BERT-base 768-d
 * float32 = 10.4 GB per index shard; A100 estimates, H100 measurements of 2026-11-24):
 *  - train-dpr: QReCC's last IHN iteration (40 epochs of 190 steps) 1.1-1.4 h on an A100; one
 *    80 GB GPU holds the paper's batch. Host memory holds the examples and the token ids it reads.
 *  - encode-passages-torch: a QReCC shard (3.4M passages of 384 tokens) at ~1,760 passages/s (A100
 *    estimate) 32 min; 14 min at the H100's measured 4,160/s. Memory-mapped output.
 *  - encode-queries-gpu: at most ~65k queries: minutes.
 *  - build-flat-ip-index / search-dense-shard: one shard's 10.4 GB float32 index in memory (plus
 *    ~200 MB of training-query embeddings); a search of the 16,451 test queries is 85 TFLOP, the
 *    ~65k mining queries 340 TFLOP: 8-31 min on 2 cores, roughly 8x less on 16.
 *  - merge-dense-hits: the running top 100 per query and one shard's lists.
 *  - tokenize-passages: 54M passages to 83 GB of int32 ids plus 21 GB of type ids (bounded memory).
 *  - build-bm25-index / search-bm25: the bounded-memory build (1.2 GiB at 10M passages, segments
 *    merged on disk); a search holds the index and its bitsets in memory (estimates for 54M).
 *  - train-dcsr, train-dpr-reader, train-fid: BERT-base / t5-base on one GPU (estimates: not in
 *    docs/scale.md; docs/scale-dcsr.md for DCSR's indexes).
 */
import type { StepResources } from "../engine/step.ts";
import type { DataSource } from "../engine/targets.ts";

export const REAL_RESOURCES = {
  "train-dpr": { cpus: 4, memoryGiB: 64, expectedMinutes: 90 },
  "encode-passages-torch": { cpus: 4, memoryGiB: 32, expectedMinutes: 35 },
  "encode-queries-torch": { cpus: 4, memoryGiB: 16, expectedMinutes: 10 },
  "build-flat-ip-index": { cpus: 1, memoryGiB: 24, expectedMinutes: 20 },
  "search-dense-shard": { cpus: 8, memoryGiB: 16, expectedMinutes: 15 },
  "merge-dense-hits": { cpus: 1, memoryGiB: 8, expectedMinutes: 10 },
  "tokenize-passages": { cpus: 1, memoryGiB: 16, expectedMinutes: 180 },
  "build-bm25-index": { cpus: 1, memoryGiB: 16, expectedMinutes: 180 },
  "search-bm25": { cpus: 8, memoryGiB: 48, expectedMinutes: 60 },
  "train-dcsr": { cpus: 4, memoryGiB: 64, expectedMinutes: 120 },
  "train-dpr-reader": { cpus: 4, memoryGiB: 64, expectedMinutes: 240 },
  "train-fid": { cpus: 4, memoryGiB: 64, expectedMinutes: 240 },
} as const satisfies Record<string, StepResources>;

export type ProfiledStep = keyof typeof REAL_RESOURCES;

/** `use()` options for `stepId` on `data`: the real profile's resources, nothing on mini (the step's own). */
export function profiled(data: DataSource, stepId: ProfiledStep): { resources?: StepResources } {
  return data === "real" ? { resources: REAL_RESOURCES[stepId] } : {};
}
