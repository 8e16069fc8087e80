/** Input rows (plain objects; the Parquet layer is another stage's concern). */

export interface HistoryTurn {
  readonly question: string;
  readonly answer: string | null;
}

/** One row of the normalised `turns` table. `history` holds the previous turns in order. */
export interface TurnRow {
  readonly qid: string;
  readonly conversation_id: string;
  readonly turn: number;
  readonly question: string;
  readonly rewrite: string | null;
  readonly answer: string | null;
  readonly history: readonly HistoryTurn[];
  readonly gold_passage_ids: readonly string[];
}

/** One row of the `passages` table; title is null where the dataset has none (QReCC). */
export interface PassageRow {
  readonly id: string;
  readonly title: string | null;
  readonly text: string;
}

/** A formatted model input before padding. */
export interface EncodedSequence {
  readonly ids: number[];
  readonly typeIds: number[];
  /** true when tokens were dropped to fit the maximum length */
  readonly truncated: boolean;
}
