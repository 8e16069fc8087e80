/**
 * Hyperparameters of the dense experiments per data source, profile and dataset.
 *
 * Real data: the paper's values (lr 3e-5, 10 epochs per iteration and 40 for the last,
 * I = 2 for QReCC and OR-QuAC and 3 for TopiOCQA, batch 256 on QReCC and 128 elsewhere in
 * iteration 1, halved afterwards, n = 1 negative sampled from the top k = 100).
 * Mini: the same schedule scaled down so the whole reproduction trains on 2 CPU cores in
 * minutes: a tiny BERT (2 layers, hidden 128), fewer epochs, smaller batches and a larger
 * learning rate (a 2-layer model trained from scratch does not move at 3e-5).
 * The "smoke" profile runs every step of the graph with one epoch (CI).
 */
import type { DataSource } from "../../engine/targets.ts";
import type { DatasetName } from "../../../steps/data/schemas.ts";
import { TINY_BERT } from "../../../steps/training/contract.ts";

export type Profile = "paper" | "smoke";

export interface TrainSchedule {
  /** Number of IHN iterations I (iteration 1 = in-batch negatives only). */
  readonly iterations: number;
  readonly epochs: number;
  /** Epochs of the last iteration I. */
  readonly lastEpochs: number;
  /** Batch of iteration 1; halved for i > 1. */
  readonly batch: number;
  readonly lr: number;
  /** Hard negatives sampled per example per step, and the miner's depth. */
  readonly n: number;
  readonly k: number;
}

export type DevCollection = { readonly sample: number } | { readonly released: string };

export interface DenseSetup {
  readonly schedule: Readonly<Record<DatasetName, TrainSchedule>>;
  /**
   * Dev collection of the per-epoch Recall@5 model selection, per dataset ("nq": θ0's
   * pre-training on mini-nq): the dev turns' gold plus a seeded sample up to `sample` passages
   * (0 = the whole collection), or a released dev collection (a datasets.lock entry of
   * JSONL blocks) plus the dev gold. Real data follows the paper: OR-QuAC's released dev
   * blocks (6.9k), and samples of the paper's sizes for QReCC (7.3k) and TopiOCQA (11k),
   * whose released dev collections belong to other dev splits.
   */
  readonly devPassages: Readonly<Record<DatasetName | "nq", DevCollection>>;
  /**
   * Dev Recall@5 of the initial model before epoch 1 (logged, never selected). Off on mini:
   * θ0's numbers are in the tables already, and on 2 cores the 14 extra dev passes cost a
   * minute of the 15-minute budget.
   */
  readonly evalBeforeTraining: boolean;
  /** Index shards (separately cached encode/index steps). */
  readonly shards: number;
  /** Mini only: the WordPiece vocabulary and θ0's pre-training on the standalone questions. */
  readonly vocabSize: number;
  readonly theta0: { readonly epochs: number; readonly batch: number; readonly lr: number };
}

const MINI_SCHEDULE = { epochs: 3, lastEpochs: 5, batch: 32, lr: 2e-4, n: 1, k: 100 } as const;

const MINI: DenseSetup = {
  schedule: {
    qrecc: { ...MINI_SCHEDULE, iterations: 2 },
    topiocqa: { ...MINI_SCHEDULE, iterations: 3 },
    orquac: { ...MINI_SCHEDULE, iterations: 2 },
  },
  devPassages: { qrecc: { sample: 1000 }, topiocqa: { sample: 1000 }, orquac: { sample: 1000 }, nq: { sample: 1000 } },
  evalBeforeTraining: false,
  shards: 2,
  vocabSize: 8000,
  theta0: { epochs: 3, batch: 32, lr: 3e-4 },
};

const SMOKE: DenseSetup = {
  ...MINI,
  schedule: {
    qrecc: { ...MINI.schedule.qrecc, epochs: 1, lastEpochs: 1 },
    topiocqa: { ...MINI.schedule.topiocqa, epochs: 1, lastEpochs: 1 },
    orquac: { ...MINI.schedule.orquac, epochs: 1, lastEpochs: 1 },
  },
  devPassages: { qrecc: { sample: 300 }, topiocqa: { sample: 300 }, orquac: { sample: 300 }, nq: { sample: 300 } },
  theta0: { ...MINI.theta0, epochs: 1 },
};

const PAPER_SCHEDULE = { epochs: 10, lastEpochs: 40, lr: 3e-5, n: 1, k: 100 } as const;

const REAL: DenseSetup = {
  schedule: {
    qrecc: { ...PAPER_SCHEDULE, iterations: 2, batch: 256 },
    topiocqa: { ...PAPER_SCHEDULE, iterations: 3, batch: 128 },
    orquac: { ...PAPER_SCHEDULE, iterations: 2, batch: 128 },
  },
  devPassages: { qrecc: { sample: 7_300 }, topiocqa: { sample: 11_000 }, orquac: { released: "orquac-dev-blocks" }, nq: { sample: 20_000 } },
  evalBeforeTraining: true,
  shards: 16,
  vocabSize: 30_522,
  theta0: { epochs: 0, batch: 0, lr: 0 },
};

export const DENSE_SETUPS: Readonly<Record<DataSource, Readonly<Record<Profile, DenseSetup>>>> = {
  mini: { paper: MINI, smoke: SMOKE },
  real: { paper: REAL, smoke: { ...REAL, schedule: { qrecc: { ...REAL.schedule.qrecc, epochs: 1, lastEpochs: 1 }, topiocqa: { ...REAL.schedule.topiocqa, epochs: 1, lastEpochs: 1 }, orquac: { ...REAL.schedule.orquac, epochs: 1, lastEpochs: 1 } } } },
};

/**
 * The mini θ0 architecture: the tiny BERT without dropout. With BERT's 0.1 dropout the
 * 2-layer model trained from scratch collapsed to constant embeddings (dev R@5 0.10 at
 * initialisation -> 0.003 after 6 epochs, at lr 1e-4, 5e-4 and 1e-3); without it, one epoch
 * at 3e-4 reached 0.17 (steps/training: trainer run on the mini-nq examples).
 */
export const MINI_BERT = { ...TINY_BERT, hidden_dropout_prob: 0, attention_probs_dropout_prob: 0 } as {
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  intermediate_size: number;
  hidden_dropout_prob: number;
  attention_probs_dropout_prob: number;
};

/** Datasets whose passages carry titles (fed as a text pair). */
export const HAS_TITLES: Readonly<Record<DatasetName, boolean>> = { qrecc: false, topiocqa: true, orquac: true };

/** The conversational input form per dataset: X_t, or only questions Q_t on OR-QuAC (as the paper). */
export const INPUT_FORM = { qrecc: "history", topiocqa: "history", orquac: "questions" } as const satisfies Record<DatasetName, string>;

/** Metrics every dense evaluation computes (a superset of each table's columns and the figures' R@5). */
export const DENSE_METRICS = ["mrr", "recall@5", "recall@10", "recall@20", "recall@100"];
