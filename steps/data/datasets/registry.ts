/**
 * The registry of dataset descriptors (descriptor.ts): the one list every per-dataset table is
 * derived from. A new dataset is a descriptor module beside qrecc.ts, one entry here and its
 * name in names.ts (`DatasetName`, below the tables' schemas: this module sits above the parsers
 * that write them); every table built with `perDataset` gets it.
 */
import type { DatasetDescriptor } from "./descriptor.ts";
import type { DatasetName } from "./names.ts";
import { orquac } from "./orquac.ts";
import { qrecc } from "./qrecc.ts";
import { topiocqa } from "./topiocqa.ts";

/** The conversational datasets, in the order targets list them. */
export const DATASET_DESCRIPTORS = [qrecc, topiocqa, orquac] as const;

export type { DatasetName };
/** Compiles only while the descriptors carry exactly names.ts's names, no more, no fewer. */
export type NamesMatch = Expect<SameNames<(typeof DATASET_DESCRIPTORS)[number]["name"], DatasetName>>;
type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<T extends true> = T;

/** The dataset names, in registry order. */
export const DATASETS: readonly DatasetName[] = DATASET_DESCRIPTORS.map((d) => d.name);

/** A table keyed by the names of `descriptors`, one value per descriptor (`pick` of it). */
export function tableOf<D extends DatasetDescriptor, T>(descriptors: readonly D[], pick: (d: D) => T): Readonly<Record<D["name"], T>> {
  return Object.fromEntries(descriptors.map((d) => [d.name, pick(d)])) as Record<D["name"], T>;
}

/** A table keyed by every registered dataset. */
export function perDataset<T>(pick: (d: DatasetDescriptor<DatasetName>) => T): Readonly<Record<DatasetName, T>> {
  return tableOf(DATASET_DESCRIPTORS, pick);
}

/** The descriptor of a registered dataset; RangeError naming the known ones otherwise. */
export function descriptorOf(name: string): DatasetDescriptor<DatasetName> {
  const d = DATASET_DESCRIPTORS.find((x) => x.name === name);
  if (d === undefined) throw new RangeError(`unknown dataset '${name}' (known: ${DATASETS.join(", ")})`);
  return d;
}
