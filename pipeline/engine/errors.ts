/**
 * Errors that steps throw when their *input* is bad (a malformed file, a missing field,
 * a digest mismatch). The engine turns them into run failures that keep the location
 * and the fix, so the CLI can print "file:line: field: message. Fix: ...".
 *
 * Library code never prints or exits; it throws one of these (or returns a failure value).
 */
export interface InputErrorLocation {
  /** Path of the offending file, as the user would recognise it. */
  readonly file?: string;
  /** 1-based line number for line-oriented formats (JSONL, TSV, TREC). */
  readonly line?: number;
  /** Field or column name, dotted for nested fields (e.g. `answer.text`). */
  readonly field?: string;
}

export class InputError extends Error {
  override readonly name = "InputError";
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly field: string | undefined;
  /** What the user should do about it, one sentence. */
  readonly fix: string | undefined;
  /** The message without the location and the fix (to restate the error at another location). */
  readonly detail: string;

  constructor(message: string, where: InputErrorLocation & { fix?: string } = {}) {
    super(formatInputError(message, where));
    this.detail = message;
    this.file = where.file;
    this.line = where.line;
    this.field = where.field;
    this.fix = where.fix;
  }
}

export function formatInputError(message: string, where: InputErrorLocation & { fix?: string }): string {
  let loc = "";
  if (where.file !== undefined) loc += where.file;
  if (where.line !== undefined) loc += `:${where.line}`;
  if (where.field !== undefined) loc += `${loc ? ": " : ""}field '${where.field}'`;
  const fix = where.fix !== undefined ? ` Fix: ${where.fix}` : "";
  return `${loc ? `${loc}: ` : ""}${message}${fix}`;
}
