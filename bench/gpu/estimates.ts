/**
 * The planning estimates of docs/scale.md that bench/gpu prints beside its measurements
 * (FLOP arithmetic at an assumed 125 TFLOP/s sustained on an A100; see docs/scale.md for the
 * derivation). Keep the two in step.
 */
export const QRECC = { passages: 54_000_000, shardRows: 54_000_000 / 16, testQueries: 16_451 } as const;

export const ESTIMATES = {
  /** fp16 BERT-base at 384 tokens: 125 TFLOP/s / 71 GFLOP per passage. */
  encodePassagesPerS: 1760,
  /** DPR's measured encoding: 21M passages in 8.8 h on 8 GPUs. */
  dprPassagesPerS: 83,
  /** Seconds per optimisation step; the gradient cache adds one forward pass (+1/3). */
  trainStepSeconds: {
    "iteration 1 (IBN)": { plain: 0.57, cached: 0.76 },
    "iteration 2 (+1 hard negative)": { plain: 0.5, cached: 0.67 },
  } as Readonly<Record<string, { plain: number; cached: number }>>,
  /** A QReCC shard (3.4M x 768) x 16,451 queries: 85 TFLOP at 185 GFLOP/s x 8 (16 cores). */
  shardSearchMinutesCpu16: 1,
  /** The same at ~50 TFLOP/s float32 on a GPU. */
  shardSearchSecondsGpu: 1.7,
} as const;
