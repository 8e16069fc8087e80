/**
 * What cspipe knows about one conversational dataset, as one record: its native files and where
 * they come from, its parsers, splits, evaluation, the dense models' input and BM25's defaults.
 * The per-dataset tables are derived from the registry of these records (registry.ts): the
 * layouts, raw assembly, collection formats, preprocessors and step records of steps/data, the
 * BM25 presets, and the definitions' preprocess params, evaluation setups, titles, input forms
 * and the DCSR table's names and groups. Adding a dataset is a module beside qrecc.ts plus one
 * line in the registry (the QA stage's and the findings' own tables still name datasets by hand).
 */
import type { Bm25Params } from "../../sparse/similarity.ts";
import type { CollectionFormat } from "../preprocess/collection.ts";
import type { Preprocessor } from "../preprocess/common.ts";
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
  /** Which raw directory it belongs to: the collection's, or the turns' (qrels and labels included). */
  readonly part: "collection" | "turns";
  /** Turns parts: the file splits (`layout.turns`) that read it; absent = every split. */
  readonly splits?: readonly string[];
}

/** The conversational input a dense model reads: the full history X_t, or the questions Q_t only. */
export type InputForm = "history" | "questions";

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
  /** The split and the metrics the paper reports on it. */
  readonly evaluation: { readonly split: string; readonly metrics: readonly string[] };
  /** Whether its passages carry titles (the dense models read them as a text pair). */
  readonly hasTitles: boolean;
  /** The dense models' conversational input, as the paper chose it per dataset. */
  readonly inputForm: InputForm;
  /** BM25's k1 and b: Pyserini's defaults for the dataset, as the paper used them. */
  readonly bm25: Bm25Params;
}
