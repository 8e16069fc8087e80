/**
 * JSON text with errors a person can act on: every parse of a user's JSON (whole files, JSONL
 * lines) goes through `parseJson`, which names the file, the line and the column of the first
 * syntax error. Node 20's JSON.parse often gives no position ("Unexpected token '}', ... is not
 * valid JSON"), so on failure the text is scanned again by a small JSON grammar checker that finds
 * where it breaks (the happy path costs one JSON.parse).
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { readTextFile, wrongFormatError } from "./text.ts";

export interface JsonSyntaxError {
  /** Offset (UTF-16 code units) of the character where the text stops being JSON. */
  readonly offset: number;
  readonly problem: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** A recursive-descent check of JSON's grammar over `text` from `i`; `fail` throws the JsonSyntaxError at `i`. */
class JsonChecker {
  i = 0;
  constructor(private readonly text: string) {}

  fail(problem: string): never {
    throw { offset: this.i, problem } satisfies JsonSyntaxError;
  }
  shown(): string {
    return this.i >= this.text.length ? "the end of the text" : `'${this.text[this.i]}'`;
  }
  skip(): void {
    while (this.i < this.text.length && WS.has(this.text.charCodeAt(this.i))) this.i++;
  }
  value(depth: number): void {
    this.skip();
    if (depth > 10_000) this.fail("nested too deeply");
    const c = this.text[this.i];
    if (c === "{") return this.container(depth, "}", true);
    if (c === "[") return this.container(depth, "]", false);
    if (c === '"') return this.string();
    if (c === "t") return this.literal("true");
    if (c === "f") return this.literal("false");
    if (c === "n") return this.literal("null");
    if (this.i >= this.text.length) this.fail("the text ends where a value was expected");
    this.number();
  }
  private literal(word: string): void {
    for (const c of word) {
      if (this.text[this.i] !== c) this.fail(`expected '${word}', found ${this.shown()}`);
      this.i++;
    }
  }
  private string(): void {
    const text = this.text;
    this.i++; // opening quote
    for (;;) {
      if (this.i >= text.length) this.fail("a string is not closed");
      const c = text.charCodeAt(this.i);
      if (c === 0x22) break;
      if (c < 0x20) this.fail("a control character (e.g. a line break) inside a string; escape it");
      if (c === 0x5c) this.escape();
      else this.i++;
    }
    this.i++;
  }
  /** A backslash escape at `i`: \uXXXX or one of \" \\ \/ \b \f \n \r \t. */
  private escape(): void {
    const e = this.text[this.i + 1];
    if (e === "u") {
      if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.i + 2, this.i + 6))) this.fail("a \\u escape needs four hex digits");
      this.i += 6;
      return;
    }
    if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail(`an invalid escape '\\${e ?? ""}'`);
    this.i += 2;
  }
  private number(): void {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.i, this.i + 400));
    if (m === null || m[0] === "" || m[0] === "-") this.fail(`expected a value, found ${this.shown()}`);
    this.i += m![0].length;
  }
  /** An object's or array's members up to `close`, each a value (an object's after its name and ':'). */
  private container(depth: number, close: string, object: boolean): void {
    this.i++;
    this.skip();
    if (this.text[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      if (object) this.propertyName();
      this.value(depth + 1);
      this.skip();
      if (this.text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (this.text[this.i] === close) {
        this.i++;
        return;
      }
      this.fail(`expected ',' or '${close}', found ${this.shown()}`);
    }
  }
  private propertyName(): void {
    this.skip();
    if (this.text[this.i] !== '"') this.fail(`expected a property name in double quotes, found ${this.shown()}`);
    this.string();
    this.skip();
    if (this.text[this.i] !== ":") this.fail(`expected ':' after a property name, found ${this.shown()}`);
    this.i++;
  }
}

/** Where `text` stops being one JSON value, or undefined when it is valid. */
export function findJsonError(text: string): JsonSyntaxError | undefined {
  const c = new JsonChecker(text);
  try {
    c.value(0);
    c.skip();
    if (c.i < text.length) c.fail(`unexpected ${c.shown()} after the JSON value`);
    return undefined;
  } catch (e) {
    if (typeof e === "object" && e !== null && "offset" in e) return e as JsonSyntaxError;
    // The stack ends before the depth limit (about 4,000 levels under Node's default stack).
    if (e instanceof RangeError) return { offset: c.i, problem: "nested too deeply" };
    throw e;
  }
}

/** 1-based line and column of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

export interface JsonWhere {
  readonly file: string;
  /** Line of the text's first character in the file (JSONL: the record's line). Default 1. */
  readonly line?: number;
  /** What to do about it (default: repair the JSON). */
  readonly fix?: string;
}

/** JSON.parse, or an InputError naming the file, the line and column, and what is wrong there. */
export function parseJson(text: string, where: JsonWhere): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const found = findJsonError(text) ?? { offset: 0, problem: (err as Error).message };
    const at = lineAndColumn(text, found.offset);
    const line = (where.line ?? 1) + at.line - 1;
    throw new InputError(`malformed JSON at column ${at.column}: ${found.problem}`, { file: where.file, line, fix: where.fix ?? "repair the JSON there (a truncated download, a missing comma or quote?)" });
  }
}

/** A whole JSON file (strict UTF-8, any value); an empty, non-JSON or malformed file is an InputError naming it. */
export function readJsonText(file: string, fix?: string): { value: unknown; text: string } {
  const text = readTextFile(file);
  const first = text.trimStart()[0];
  if (first === undefined) throw new InputError("the file is empty", { file, fix: fix ?? "write the JSON into it (or name the right file)" });
  if (first !== "{" && first !== "[") throw wrongFormatError(file, Buffer.from(text.slice(0, 4096)), "a JSON file");
  return { value: parseJson(text, fix === undefined ? { file } : { file, fix }), text };
}
