/**
 * The graphs of the commands on a user's own files (`bm25 index`, `bm25 search`; `diagnose` reuses
 * the index): built here like every target's, from plain records the command made by listing and
 * hashing the files. A file enters a key by its name, sha256 and size; where it lies (`path`) only
 * tells the step where to read it.
 */
import { use } from "../engine/step.ts";
import { importIndexDef, indexCollectionDef, readTopicsDef, searchTopicsDef, type FileParam } from "../../steps/files/steps.ts";

/** A user's file: what enters the key (name, sha256, size) and where it lies. */
export interface UserFile extends FileParam {
  readonly path: string;
}

/** The params record of a file (without its location). */
export const fileParam = (f: UserFile): FileParam => ({ name: f.name, sha256: f.sha256, size: f.size });

/** Where each file lies, by name (the factories' location maps). */
export const locationsOf = (files: readonly UserFile[]): ReadonlyMap<string, string> => new Map(files.map((f) => [f.name, f.path]));

/** `index-collection-files`: a BM25 index over the collection files, in file order. */
export function collectionIndex(files: readonly UserFile[], maxPostingsInMemory?: number) {
  const params = { files: files.map(fileParam), ...(maxPostingsInMemory !== undefined ? { maxPostingsInMemory } : {}) };
  return use(indexCollectionDef(locationsOf(files)), { name: "index-collection-files", params, inputs: {} });
}

export interface Bm25SearchSpec {
  /** The index's `bm25.idx` written by `bm25 index`. */
  readonly index: UserFile;
  readonly topics: UserFile;
  /** The JSONL field holding the topic text (null: the format's default). */
  readonly topicField: string | null;
  readonly search: { readonly k: number; readonly k1: number; readonly b: number; readonly tag: string };
  /** Search threads (never in a key: results do not depend on it). */
  readonly threads: number;
}

/** `bm25 search`: the index and topics brought into the store by content, then top-k per topic. */
export function bm25Search(spec: Bm25SearchSpec) {
  const index = use(importIndexDef(locationsOf([spec.index])), { name: "import-bm25-index", params: { file: fileParam(spec.index) }, inputs: {} });
  const topics = use(readTopicsDef(locationsOf([spec.topics])), { name: "read-topics-file", params: { file: fileParam(spec.topics), field: spec.topicField }, inputs: {} });
  return use(searchTopicsDef(spec.threads), { name: "search-bm25-topics", params: spec.search, inputs: { index: index.out.index, topics: topics.out.topics } });
}
