/**
 * The numerics a report's numbers came from (pure): the identities its models were computed with
 * (each model's result.json records the identity its key holds), grouped. Trained models must
 * share one identity: a table whose cells mix CPU-trained and GPU-trained models, or two CPUs'
 * kernels, would compare numbers that are not comparable bit for bit, so the report refuses it.
 * Exported models (weights copied, epochs 0) may differ from the trained ones: they are listed.
 */
import { canonicalJson, type Json } from "../../pipeline/engine/canonical.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { describeNumerics } from "../../pipeline/engine/numerics-words.ts";

export interface NumericsGroup {
  readonly description: string;
  readonly identity: Json;
  /** Step names of the models computed with it. */
  readonly models: readonly string[];
}

/** `provenance/numerics.json`. */
export interface NumericsRecord {
  readonly schema: "cspipe.numerics/1";
  readonly trained: readonly NumericsGroup[];
  readonly exported: readonly NumericsGroup[];
}

function group(models: readonly { readonly name: string; readonly identity: Json }[]): NumericsGroup[] {
  const by = new Map<string, { identity: Json; models: string[] }>();
  for (const m of models) {
    const k = canonicalJson(m.identity);
    const g = by.get(k) ?? { identity: m.identity, models: [] };
    g.models.push(m.name);
    by.set(k, g);
  }
  return [...by.values()].map((g) => ({ description: describeNumerics(g.identity), identity: g.identity, models: [...g.models].sort() })).sort((a, b) => b.models.length - a.models.length || (a.description < b.description ? -1 : 1));
}

/** The record of `models`; throws when trained models were computed with more than one identity. */
export function numericsRecord(models: readonly { readonly name: string; readonly identity: Json; readonly trained: boolean }[]): NumericsRecord {
  const trained = group(models.filter((m) => m.trained));
  if (trained.length > 1) {
    const listed = trained.map((g) => `${g.description} (${g.models.length} model${g.models.length === 1 ? "" : "s"}, e.g. ${g.models[0]})`).join("; and ");
    throw new InputError(`the report would compare models trained with ${trained.length} different numerics: ${listed}`, {
      field: "numerics",
      fix: "train every model of the report with the same numerics: one machine kind, one executor, the default pinned kernels (unset CSPIPE_NUMERICS), GPUs for all or none",
    });
  }
  return { schema: "cspipe.numerics/1", trained, exported: group(models.filter((m) => !m.trained)) };
}

/** The report's sentence about it (empty when no model recorded its numerics). */
export function numericsSentence(r: NumericsRecord): string {
  const t = r.trained[0];
  const e = r.exported.filter((g) => canonicalJson(g.identity) !== canonicalJson(t?.identity ?? null));
  const parts = [
    ...(t !== undefined ? [`Every trained model (${t.models.length}) was computed with: ${t.description}.`] : []),
    ...e.map((g) => `Exported without training (${g.models.join(", ")}): ${g.description}.`),
  ];
  return parts.join(" ");
}
