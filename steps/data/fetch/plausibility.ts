/**
 * Before `lock --update --data-dir` pins a file placed by hand, it must look like the
 * release: a file that is obviously something else (an HTML error page saved under the
 * release's name, a truncated download, another dataset's file) is refused instead of
 * pinned. Two checks, both cheap (the head of the file, except small JSON files that the
 * real parsers read whole):
 * - size: when the lock already records a size, a new size outside [size / 2, size * 2] is
 *   refused (a re-release of a few percent passes; the publisher's change is still reported);
 * - format: a probe per entry (by name, else by the file's extension and unpack kind):
 *   archive magic numbers, JSON that parses into the release's shape (QReCC turns, qrels and
 *   labels through cspipe's own parsers), JSONL records with the release's fields, the
 *   TopiOCQA segments header, a BERT vocab.txt, checkpoint files.
 * A refusal is an InputError naming the file, what was expected and the fix.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { LockEntry } from "../../../pipeline/engine/datasets-lock.ts";
import { parseQreccQrels, parseQreccTurns, parseQuestionTypeLabels } from "../formats/qrecc.ts";
import { loadRecords, readJsonFile } from "../formats/records.ts";

function head(path: string, bytes = 65_536): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

type Probe = (path: string) => string | null;

const magic = (bytes: number[], what: string): Probe => (path) => {
  const h = head(path, bytes.length);
  return bytes.every((b, i) => h[i] === b) ? null : `not a ${what} (the file starts with ${JSON.stringify(h.toString("latin1").slice(0, 16))})`;
};

/** Parses a whole JSON file with a real parser; a thrown error is the reason. */
const parses = (parse: (path: string) => unknown): Probe => (path) => {
  try {
    parse(path);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
};

/** The first JSONL record is an object with these fields. */
const jsonlWith = (fields: readonly string[]): Probe => (path) => {
  const first = head(path).toString("utf8").split("\n")[0] ?? "";
  let v: unknown;
  try {
    v = JSON.parse(first);
  } catch {
    return `line 1 is not a JSON record (${JSON.stringify(first.slice(0, 40))})`;
  }
  const missing = fields.filter((f) => v === null || typeof v !== "object" || !(f in (v as object)));
  return missing.length === 0 ? null : `line 1 lacks ${missing.join(", ")}`;
};

/** A JSON array whose first record has these fields (read from the head of a large file). */
const jsonArrayWith = (fields: readonly string[]): Probe => (path) => {
  const text = head(path).toString("utf8").trimStart();
  if (!text.startsWith("[")) return `not a JSON array (starts with ${JSON.stringify(text.slice(0, 16))})`;
  const missing = fields.filter((f) => !text.includes(`"${f}"`));
  return missing.length === 0 ? null : `the first records lack ${missing.join(", ")}`;
};

const jsonObjectWith = (fields: readonly string[]): Probe => (path) => {
  let v: unknown;
  try {
    v = readJsonFile(path).value;
  } catch (e) {
    return (e as Error).message;
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "not a JSON object";
  const missing = fields.filter((f) => !(f in (v as object)));
  return missing.length === 0 ? null : `lacks ${missing.join(", ")}`;
};

const bertVocab: Probe = (path) => {
  const lines = head(path, 1 << 20).toString("utf8").split("\n");
  if (lines[0] !== "[PAD]") return `line 1 is ${JSON.stringify(lines[0]?.slice(0, 20))}, not [PAD]`;
  return lines.length < 1000 ? `only ${lines.length} lines` : null;
};

const tsvHeader = (header: string): Probe => (path) => {
  const first = head(path, 256).toString("utf8").split("\n")[0]?.replace(/\r$/, "");
  return first === header ? null : `the header is ${JSON.stringify(first)}, not ${JSON.stringify(header)}`;
};

const ZIP = magic([0x50, 0x4b, 0x03, 0x04], "zip archive");
const GZIP = magic([0x1f, 0x8b], "gzip file");
/** PyTorch checkpoints: the zip container (torch >= 1.6) or a legacy pickle (protocol 2+). */
const TORCH: Probe = (path) => (ZIP(path) === null || head(path, 1)[0] === 0x80 ? null : "not a PyTorch checkpoint (neither a zip container nor a pickle)");

/** Probes by entry name (regular expressions over datasets.lock names), first match wins. */
const BY_ENTRY: readonly [RegExp, Probe][] = [
  [/^qrecc-scai-turns-/, parses((p) => parseQreccTurns(loadRecords(p), "check"))],
  [/^qrecc-cs-shortcut-(train|dev|test)$/, parses((p) => parseQreccTurns(loadRecords(p), "check"))],
  [/^qrecc-qrels/, parses((p) => parseQreccQrels(readJsonFile(p).value, p))],
  [/^qrecc-question-types$/, parses((p) => parseQuestionTypeLabels(readJsonFile(p).value, p))],
  [/^orquac-(train|dev|test)$/, jsonlWith(["qid", "question"])],
  [/^topiocqa-all-history-/, jsonArrayWith(["question", "positive_ctxs"])],
  [/^topiocqa-turns-/, jsonlWith(["Conversation_no", "Turn_no", "Question"])],
  [/^topiocqa-wiki-segments$/, tsvHeader("id\ttext\ttitle")],
  [/-vocab$/, bertVocab],
  [/-config$/, jsonObjectWith([])],
  [/-tokenizer$/, jsonObjectWith(["model"])],
];

const BY_UNPACK: Partial<Record<LockEntry["unpack"], Probe>> = { zip: ZIP, gz: GZIP, "tar.gz": GZIP };

function probeFor(name: string, entry: LockEntry): Probe | null {
  for (const [re, probe] of BY_ENTRY) if (re.test(name)) return probe;
  const byUnpack = BY_UNPACK[entry.unpack];
  if (byUnpack) return byUnpack;
  if (entry.file.endsWith(".bin")) return TORCH;
  return null;
}

/** Throws an InputError when `path` is obviously not the release of lock entry `name`. */
export function checkPlausibleRelease(name: string, entry: LockEntry, path: string, lockFile = "datasets.lock"): void {
  const size = statSync(path).size;
  const fix = `place the release's own file (${entry.urls[0]}) under the name '${entry.file}'`;
  if (size === 0) throw new InputError(`'${entry.file}' is empty; not pinned`, { file: path, fix });
  if (entry.size !== null && (size < entry.size / 2 || size > entry.size * 2)) {
    throw new InputError(`'${entry.file}' has ${size} bytes, far from the ${entry.size} bytes ${lockFile} records for '${name}'; not pinned`, { file: path, field: `entries.${name}.size`, fix });
  }
  const probe = probeFor(name, entry);
  const problem = probe === null ? null : probe(path);
  if (problem !== null) throw new InputError(`'${entry.file}' does not look like the release of '${name}': ${problem}; not pinned`, { file: path, field: `entries.${name}`, fix });
}
