import { test } from "node:test";
import assert from "node:assert/strict";
import { Command } from "commander";
import { repeatable } from "../../pipeline/commands/repeatable.ts";

function parse(argv: string[]): { run?: string[]; set: string[] } {
  const c = new Command().exitOverride().configureOutput({ writeErr: () => {} })
    .requiredOption("--run <file>", "required, no default", repeatable)
    .option("--set <p=v>", "with a default", repeatable, [] as string[]);
  return c.parse(argv, { from: "user" }).opts();
}

test("repeatable appends each occurrence, from an absent or an empty start", () => {
  assert.deepEqual(repeatable("b", ["a"]), ["a", "b"]);
  assert.deepEqual(repeatable("a", undefined), ["a"]);
  assert.deepEqual(parse(["--run", "x", "--set", "a=1", "--run", "y", "--set", "b=2"]), { run: ["x", "y"], set: ["a=1", "b=2"] });
  assert.deepEqual(parse(["--run", "x"]), { run: ["x"], set: [] });
});

test("a required repeatable option without a default is still reported missing", () => {
  assert.throws(() => parse(["--set", "a=1"]), /required option '--run <file>' not specified/);
});
