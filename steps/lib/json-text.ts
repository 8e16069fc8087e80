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

/** Where `text` stops being one JSON value, or undefined when it is valid. */
export function findJsonError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const fail = (problem: string): never => {
    throw { offset: i, problem } satisfies JsonSyntaxError;
  };
  const shown = () => (i >= text.length ? "the end of the text" : `'${text[i]}'`);
  const skip = () => {
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  };
  const literal = (word: string) => {
    for (const c of word) {
      if (text[i] !== c) fail(`expected '${word}', found ${shown()}`);
      i++;
    }
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail("a string is not closed");
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail("a control character (e.g. a line break) inside a string; escape it");
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("a \\u escape needs four hex digits");
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail(`an invalid escape '\\${e ?? ""}'`);
        i += 2;
        continue;
      }
      i++;
    }
    i++;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m === null || m[0] === "" || m[0] === "-") fail(`expected a value, found ${shown()}`);
    i += m![0].length;
  };
  const value = (depth: number): void => {
    skip();
    if (depth > 10_000) fail("nested too deeply");
    const c = text[i];
    if (c === "{") return container(depth, "}", true);
    if (c === "[") return container(depth, "]", false);
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (i >= text.length) fail("the text ends where a value was expected");
    number();
  };
  const container = (depth: number, close: string, object: boolean): void => {
    i++;
    skip();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      if (object) {
        skip();
        if (text[i] !== '"') fail(`expected a property name in double quotes, found ${shown()}`);
        string();
        skip();
        if (text[i] !== ":") fail(`expected ':' after a property name, found ${shown()}`);
        i++;
      }
      value(depth + 1);
      skip();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === close) {
        i++;
        return;
      }
      fail(`expected ',' or '${close}', found ${shown()}`);
    }
  };
  try {
    value(0);
    skip();
    if (i < text.length) fail(`unexpected ${shown()} after the JSON value`);
    return undefined;
  } catch (e) {
    if (typeof e === "object" && e !== null && "offset" in e) return e as JsonSyntaxError;
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
