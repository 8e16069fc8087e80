/**
 * The Python modules generated from TypeScript sources, so that each config key and model field
 * is defined once: the programs' config schemas (checked by pytrain/config.py) and the model
 * configuration dataclasses (model-configs.ts). They are Python modules, not data files, so a
 * program imports them and they are in its import closure, hence in its steps' keys, like any
 * other module. `npx tsx scripts/gen-python.ts` writes them; test/training/generated-python.test.ts
 * fails while one is stale.
 */
import { INIT_KINDS, TRAINER_FIELDS } from "../training/config-schema.ts";
import { DCSR_TRAINER_FIELDS } from "../dcsr/config-schema.ts";
import { FID_FIELDS, QA_INIT_KINDS, READER_FIELDS } from "../qa/config-schema.ts";
import { SPAN_FIELDS, SPAN_INIT_KINDS } from "../qa/fid/span-config.ts";
import { BERT, T5, TINY_BERT, type ModelConfigSpec } from "./model-configs.ts";

/** A Python literal of a JSON value (dicts and lists of lists one item a line, lists of scalars on one). */
export function pyLiteral(v: unknown, indent = ""): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number" || typeof v === "string") return JSON.stringify(v);
  const inner = `${indent}    `;
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== "object")) return `[${v.map((x) => pyLiteral(x)).join(", ")}]`;
  if (Array.isArray(v)) return `[\n${v.map((x) => `${inner}${pyLiteral(x, inner)},\n`).join("")}${indent}]`;
  const entries = Object.entries(v as Record<string, unknown>);
  return entries.length === 0 ? "{}" : `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${pyLiteral(x, inner)},\n`).join("")}${indent}}`;
}

const header = (source: string, what: string): string => `"""${what}: generated from ${source} by scripts/gen-python.ts; do not edit."""\n`;

interface Schema {
  readonly fields: Readonly<Record<string, unknown>>;
  readonly init_kinds: unknown;
}

/**
 * A program's schema module. With `base` (the module of a schema it shares keys with, as its
 * TypeScript source does), each field defined exactly as the base defines it is taken from there
 * by name, so a key shared by two programs is written once here too.
 */
function schemaModule(source: string, schema: Schema, base?: { module: string; schema: Schema }): string {
  const same = (k: string) => base !== undefined && k in base.schema.fields && JSON.stringify(base.schema.fields[k]) === JSON.stringify(schema.fields[k]);
  const shared = Object.keys(schema.fields).filter(same);
  const own = Object.fromEntries(Object.entries(schema.fields).filter(([k]) => !same(k)));
  const head = header(source, "The program's config keys (checked by pytrain/config.py)");
  if (base === undefined || shared.length === 0) return `${head}\nSCHEMA = ${pyLiteral(schema)}\n`;
  const initKinds = JSON.stringify(base.schema.init_kinds) === JSON.stringify(schema.init_kinds) ? "_BASE[\"init_kinds\"]" : pyLiteral(schema.init_kinds, "    ");
  return [
    head,
    `from ${base.module} import SCHEMA as _BASE`,
    "",
    `_SHARED = ${pyLiteral(shared)}`,
    `_OWN = ${pyLiteral(own)}`,
    "",
    `SCHEMA = {"fields": {k: _BASE["fields"][k] if k in _SHARED else _OWN[k] for k in ${pyLiteral(Object.keys(schema.fields))}}, "init_kinds": ${initKinds}}`,
    "",
  ].join("\n");
}

const DPR_SCHEMA = { fields: TRAINER_FIELDS, init_kinds: INIT_KINDS };
const READER_SCHEMA = { fields: READER_FIELDS, init_kinds: QA_INIT_KINDS.reader };
const FID_SCHEMA = { fields: FID_FIELDS, init_kinds: QA_INIT_KINDS.fid };

const PY_TYPES = { int: "int", float: "float", bool: "bool" } as const;

function pyDefault(f: ModelConfigSpec["fields"][string]): string {
  if (f.kind === "float" && Number.isInteger(f.default)) return `${f.default}.0`;
  return pyLiteral(f.default);
}

function dataclassSource(spec: ModelConfigSpec): string {
  const lines = [`@dataclasses.dataclass`, `class ${spec.name}(HfConfig):`, `    """${spec.doc}"""`, ""];
  for (const [k, f] of Object.entries(spec.fields)) lines.push(`    ${k}: ${PY_TYPES[f.kind]} = ${pyDefault(f)}  # ${f.doc}`);
  lines.push("", `    REQUIRES = ${pyLiteral(spec.requires, "    ")}`, `    MULTIPLE_OF = ${pyLiteral(spec.multipleOf, "    ")}`);
  lines.push(`    DEFAULT_FROM = ${pyLiteral(spec.defaultFrom, "    ")}`, `    HF = ${pyLiteral(spec.hf, "    ")}`);
  return lines.join("\n") + "\n";
}

function modelConfigsModule(): string {
  return [
    header("steps/pytrain/model-configs.ts", "The model configurations the programs build"),
    "import dataclasses",
    "",
    "from pytrain.hf_config import HfConfig",
    "",
    "",
    dataclassSource(BERT),
    "",
    dataclassSource(T5),
    "",
    `# The mini benchmark's θ0 default (the vocabulary size comes from the tokens).`,
    `TINY_BERT = ${pyLiteral(TINY_BERT)}`,
    "",
  ].join("\n");
}

/** Project-relative path -> the module's text. */
export const GENERATED_PYTHON: Readonly<Record<string, () => string>> = {
  "steps/pytrain/model_configs.py": modelConfigsModule,
  "steps/training/dpr/config_schema.py": () => schemaModule("steps/training/config-schema.ts", DPR_SCHEMA),
  "steps/dcsr/python/config_schema.py": () => schemaModule("steps/dcsr/config-schema.ts", { fields: DCSR_TRAINER_FIELDS, init_kinds: INIT_KINDS }, { module: "training.dpr.config_schema", schema: DPR_SCHEMA }),
  "steps/qa/dpr_reader/config_schema.py": () => schemaModule("steps/qa/config-schema.ts", READER_SCHEMA, { module: "training.dpr.config_schema", schema: DPR_SCHEMA }),
  "steps/qa/fid/config_schema.py": () => schemaModule("steps/qa/config-schema.ts", FID_SCHEMA, { module: "qa.dpr_reader.config_schema", schema: READER_SCHEMA }),
  "steps/qa/fid/span_config_schema.py": () => schemaModule("steps/qa/fid/span-config.ts", { fields: SPAN_FIELDS, init_kinds: SPAN_INIT_KINDS }, { module: "qa.fid.config_schema", schema: FID_SCHEMA }),
};
