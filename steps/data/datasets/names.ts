/**
 * The names of the registered conversational datasets, in a module that imports nothing, below
 * both of the modules that need them: the normalized tables (schemas.ts) name a row's dataset,
 * and the registry (registry.ts) sits above the parsers that write those tables, so the name
 * type cannot be derived from the registry without an import cycle (test/engine/import-cycles.test.ts).
 * The registry fails to compile unless its descriptors carry exactly these names.
 */
export type DatasetName = "qrecc" | "topiocqa" | "orquac";
