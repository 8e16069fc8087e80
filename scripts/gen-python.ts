/**
 * Writes the Python modules generated from TypeScript sources (steps/pytrain/generated.ts: the
 * programs' config schemas and the model configurations): `npx tsx scripts/gen-python.ts`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { GENERATED_PYTHON } from "../steps/pytrain/generated.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
for (const [file, text] of Object.entries(GENERATED_PYTHON)) {
  writeFileSync(join(root, file), text());
  process.stdout.write(`wrote ${file}\n`);
}
