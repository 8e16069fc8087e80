/**
 * Writes steps/training/dpr/config_schema.json from steps/training/config-schema.ts (the one
 * source of the trainer's config keys): `npx tsx scripts/gen-trainer-schema.ts`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TRAINER_SCHEMA_FILE, trainerSchemaJson } from "../steps/training/config-schema.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
writeFileSync(join(root, TRAINER_SCHEMA_FILE), trainerSchemaJson());
process.stdout.write(`wrote ${TRAINER_SCHEMA_FILE}\n`);
