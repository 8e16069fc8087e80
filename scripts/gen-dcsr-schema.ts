/**
 * Writes steps/dcsr/python/config_schema.json from steps/dcsr/config-schema.ts (the one
 * source of the DCSR trainer's config keys): `npx tsx scripts/gen-dcsr-schema.ts`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DCSR_SCHEMA_FILE, dcsrSchemaJson } from "../steps/dcsr/config-schema.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
writeFileSync(join(root, DCSR_SCHEMA_FILE), dcsrSchemaJson());
process.stdout.write(`wrote ${DCSR_SCHEMA_FILE}\n`);
