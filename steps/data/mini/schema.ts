/**
 * Filling the attribute templates of attributes.ts: {N} = subject (the name, or a pronoun in
 * follow-ups), {P} = possessive ("Dorvane's" / "its" / "her"), {V} = the value.
 */
export { ENTITY_KINDS, KIND_SPECS, KIND_WEIGHTS, attributeSpec } from "./attributes.ts";
export type { AttributeSpec, EntityKind, FactValue, KindSpec, RefPicker } from "./attributes.ts";

export const INTRO_SECTION = "Introduction";

/** Subject forms used when filling templates. */
export interface Subject {
  /** Subject position: the name, or "he"/"she"/"it". */
  readonly n: string;
  /** Possessive: "Dorvane's", or "his"/"her"/"its". */
  readonly p: string;
  /** Object form where it differs from `n` ("him", "her"); names and "it" leave it out. */
  readonly o?: string;
}

/** {N} in subject position: at the start, or right after an auxiliary ("when did {N} die?"). */
const SUBJECT_SLOT = /(^|\b(?:did|does|do|was|is|has|had|were|are) )\{N\}/g;

export function fillTemplate(template: string, s: Subject, value = ""): string {
  const named = template.replace(SUBJECT_SLOT, `$1${s.n}`).replaceAll("{N}", s.o ?? s.n);
  return fixArticles(named.replaceAll("{P}", s.p).replaceAll("{V}", value));
}

/** English article agreement before a lowercase vowel ("a epic" -> "an epic"). */
export function fixArticles(text: string): string {
  return text.replace(/\b([Aa]) ([aeiou])/g, "$1n $2");
}

export function capitaliseFirst(s: string): string {
  return s.length === 0 ? s : s.charAt(0).toUpperCase() + s.slice(1);
}
