/**
 * JSON errors with their place: Node 20's JSON.parse often reports no position ("Unexpected token
 * '}', ... is not valid JSON"), so `findJsonError` scans for it; `parseJson` turns it into an
 * InputError with the file, line and column.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { findJsonError, lineAndColumn, parseJson } from "../../steps/lib/json-text.ts";
import { InputError } from "../../pipeline/engine/errors.ts";

test("findJsonError: the offset and the problem of the first syntax error, none for valid JSON", () => {
  const cases: [string, number, string][] = [
    ['{"a":}', 5, "expected a value, found '}'"],
    ['{"a":1,}', 7, "expected a property name in double quotes, found '}'"],
    ["[1,2", 4, "expected ',' or ']', found the end of the text"],
    ['{"a" 1}', 5, "expected ':' after a property name, found '1'"],
    ["", 0, "the text ends where a value was expected"],
    ['{"a":tru}', 8, "expected 'true', found '}'"],
    ["[1]x", 3, "unexpected 'x' after the JSON value"],
    ['["a\nb"]', 3, "a control character (e.g. a line break) inside a string; escape it"],
    ['["\\x"]', 2, "an invalid escape '\\x'"],
    ['{"a": "open', 11, "a string is not closed"],
    ["[01]", 2, "expected ',' or ']', found '1'"],
  ];
  for (const [text, offset, problem] of cases) {
    assert.throws(() => JSON.parse(text), SyntaxError, text);
    assert.deepEqual(findJsonError(text), { offset, problem }, JSON.stringify(text));
  }
  for (const ok of ['{"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"]}', " [ ] ", '"s"', "0"]) assert.equal(findJsonError(ok), undefined, ok);
});

test("parseJson: an InputError naming the file, the line (offset by the record's first line) and the column", () => {
  const text = '{\n  "1_1": {"d1": 1}\n  "1_2": {"d2": 1}\n}\n';
  assert.deepEqual(lineAndColumn(text, text.indexOf('"1_2"')), { line: 3, column: 3 });
  assert.throws(
    () => parseJson(text, { file: "qrels.json" }),
    (e: unknown) => e instanceof InputError && e.message === "qrels.json:3: malformed JSON at column 3: expected ',' or '}', found '\"' Fix: repair the JSON there (a truncated download, a missing comma or quote?)",
  );
  assert.throws(() => parseJson('{"id": "p1", "contents": }', { file: "c.jsonl", line: 7, fix: "one object a line" }), (e: unknown) => e instanceof InputError && e.line === 7 && e.message === "c.jsonl:7: malformed JSON at column 26: expected a value, found '}' Fix: one object a line");
  assert.deepEqual(parseJson('{"a": [1]}', { file: "x" }), { a: [1] });
});

test("malformed JSON nested deeper than the stack allows is 'nested too deeply', an InputError, not a RangeError", () => {
  const text = `${"[".repeat(200_000)}x`;
  assert.throws(() => JSON.parse(text), SyntaxError);
  const found = findJsonError(text)!;
  assert.equal(found.problem, "nested too deeply");
  assert.ok(found.offset > 1000 && found.offset <= 10_001, String(found.offset));
  assert.throws(() => parseJson(text, { file: "deep.json" }), (e: unknown) => e instanceof InputError && /^deep\.json:1: malformed JSON at column \d+: nested too deeply /.test(e.message));
});
