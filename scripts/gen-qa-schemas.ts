/** Writes the readers' config_schema.json files from steps/qa/config-schema.ts: `npx tsx scripts/gen-qa-schemas.ts`. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { QA_SCHEMAS, qaSchemaJson } from "../steps/qa/config-schema.ts";
import { SPAN_SCHEMA_FILE, spanSchemaJson } from "../steps/qa/fid/span-config.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
for (const file of Object.keys(QA_SCHEMAS) as (keyof typeof QA_SCHEMAS)[]) {
  writeFileSync(join(root, file), qaSchemaJson(file));
  process.stdout.write(`wrote ${file}\n`);
}
writeFileSync(join(root, SPAN_SCHEMA_FILE), spanSchemaJson());
process.stdout.write(`wrote ${SPAN_SCHEMA_FILE}\n`);
