/**
 * What cspipe knows about one conversational dataset, as one record: its native files and where
 * they come from, its parsers, splits, evaluation, the dense models' input and BM25's defaults.
 * The per-dataset tables are derived from the registry of these records (registry.ts): the
 * layouts, raw assembly, collection formats, preprocessors and step records of steps/data, the
 * BM25 presets, and the definitions' preprocess params, evaluation setups, titles, input forms,
 * question-type groups (tables, figures, DCSR's switch claims), the QA stage's datasets, scoring
 * and reference files, and the `diagnose` command's dataset names. Adding a dataset is a module
 * beside qrecc.ts, one line in the registry and its name in names.ts. Tables inside a step's own
 * code (evaluation's group order, DCSR's evidence readers, diagnose's type spellings) stay literal, so that a
 * descriptor's edit re-keys no evaluation: test/data/datasets.test.ts holds them to the registry.
 * The per-dataset claims of the findings (pipeline/definitions/findings.ts: hard negatives help,
 * dense beats BM25) are one per descriptor, in its `claimMetric` and `inputForm`.
 */
import type { Bm25Params } from "../../sparse/similarity.ts";
import type { CollectionFormat } from "../preprocess/collection.ts";
import type { Preprocessor } from "../preprocess/common.ts";
import type { QaScoringName } from "../../qa/scoring.ts";
import type { QuestionType } from "../schemas.ts";

/** Where a dataset's native files sit inside a raw directory (basenames; the collection by pattern on the relative path). */
export interface DatasetLayout {
  /** Turn file per file split. */
  readonly turns: Readonly<Record<string, string>>;
  /** Table splits cut out of a file split (QReCC's dev comes out of train). */
  readonly derived?: Readonly<Record<string, string>>;
  readonly collection: RegExp;
  /** Qrels file per file split; "all" serves every split. */
  readonly qrels?: Readonly<Record<string, string>>;
  /** The labels file and the split it describes. */
  readonly labels?: { readonly file: string; readonly split: string };
}

/** One placement: `from` inside the fetched entry's `files` directory -> `to` inside the raw directory. */
export interface RawPart {
  /** datasets.lock entry name (also the assemble step's input name). */
  readonly entry: string;
  /** File or directory inside the fetch output (the lock's `file`, or an unpacked path from `provides`). */
  readonly from: string;
  /** Path inside the raw directory (a name the dataset's `layout` finds). */
  readonly to: string;
  /**
   * Which raw directory it belongs to: the collection's, the turns' (qrels and labels included),
   * or the answers': turn files only end-to-end QA reads (gold answers), placed beside the turns
   * of their split in the raw directory of the QA references, so that other targets need not fetch them.
   */
  readonly part: "collection" | "turns" | "answers";
  /** Turns and answers parts: the file splits (`layout.turns`) that read it; absent = every split. */
  readonly splits?: readonly string[];
}

/** The conversational input a dense model reads: the full history X_t, or the questions Q_t only. */
export type InputForm = "history" | "questions";

/** End-to-end QA on a dataset (Table 5): how its answers are scored and where its gold answers are. */
export interface QaFacts {
  /** Its own evaluation script's rule (steps/qa/scoring.ts): QReCC's shared task, TopiOCQA's leave-one-out. */
  readonly scoring: QaScoringName;
  /**
   * The raw turn file holding the gold answers of each split QA reads, by split: the evaluation
   * split's (Table 5) and dev's (the answerability ceilings). Its names in the raw turns directory,
   * as the releases and the mini generator write it: exactly one of them must be there (TopiOCQA's
   * dev is `topiocqa_dev.json` in the original release and the mini, `topiocqa_valid.jsonl` in the
   * Hugging Face copy datasets.lock fetches). QReCC's dev is cut out of its training file.
   */
  readonly references: Readonly<Record<string, readonly string[]>>;
  /**
   * The longest answer span the extractive reader predicts, in word pieces: the paper's 30 on
   * QReCC, whose answers are sentences, and DPR's 10 on TopiOCQA's short answers; the same on
   * mini and real data (the readers' input lengths, which differ, are the QA setup's).
   */
  readonly maxAnswerTokens: number;
}

export interface DatasetDescriptor<N extends string = string> {
  /** The name in step names, `--set` paths and the tables' `dataset` column. */
  readonly name: N;
  /** How tables and findings name it ("QReCC"). */
  readonly label: string;
  /** Its native files inside a raw directory (as the releases unpack and the mini generator writes them). */
  readonly layout: DatasetLayout;
  /**
   * The datasets.lock entries its raw directories are assembled from, and where each goes. Only
   * what preprocessing reads: readers, dev collections and other formats are separate entries
   * that the stages needing them fetch themselves.
   */
  readonly rawParts: readonly RawPart[];
  /** The parser of its passage collection (collection.ts's formats). */
  readonly collectionFormat: CollectionFormat;
  /** Its turn files -> turns.parquet and qrels.parquet, checked against the passages. */
  readonly preprocessor: Preprocessor;
  /** The preprocess step's params where they differ from the step's defaults, the same for mini and real data. */
  readonly preprocessParams: Readonly<Record<string, unknown>>;
  /** The `question_type` values of its turns table for the first / switch / no-switch breakdown (preprocess/question-types.ts). */
  readonly questionTypes: { readonly first: QuestionType; readonly switch: QuestionType; readonly noSwitch: QuestionType };
  /**
   * The same three in the order its own labels list them, which the paper's tables and figures
   * follow: QReCC's authors' labels file (first, switch, no-switch), TopiOCQA's type files (1st,
   * tc, ts: first, topic-continues, topic-switch). Tables and figures by question type print this order.
   */
  readonly questionTypeOrder: readonly QuestionType[];
  /**
   * Whether its conversations move between passages, so that it has switch turns as well as
   * no-switch ones and the switch claims apply: QReCC and TopiOCQA do; OR-QuAC's dialogs keep one
   * gold block throughout (Qu et al. 2020; preprocess/orquac.ts), so every later turn is no-switch.
   */
  readonly switchTurns: boolean;
  /** The split and the metrics the paper reports on it. */
  readonly evaluation: { readonly split: string; readonly metrics: readonly string[] };
  /**
   * The metric the paper's claims on it are checked in (one of `evaluation.metrics`): the cutoff
   * its text reports gains in (abstract and Section 5.2: "9.7 in Recall@10 on QReCC and 12.4 in
   * Recall@5 on TopiOCQA"), else its retrieval table's first column (OR-QuAC: MRR, final Table 3).
   * The findings (pipeline/definitions/findings.ts) check hard negatives and dense against BM25
   * in it, and quote the paper's numbers of that column.
   */
  readonly claimMetric: string;
  /** Whether its passages carry titles (the dense models read them as a text pair). */
  readonly hasTitles: boolean;
  /** The dense models' conversational input, as the paper chose it per dataset. */
  readonly inputForm: InputForm;
  /** BM25's k1 and b: Pyserini's defaults for the dataset, as the paper used them. */
  readonly bm25: Bm25Params;
  /** End-to-end QA (Table 5), where the paper reports it (QReCC, TopiOCQA; not OR-QuAC). */
  readonly qa?: QaFacts;
}
