/**
 * The vocabulary mismatch of the mini world is built into its templates (attributes.ts):
 * a paraphrased question shares no content term with any sentence that can state its fact,
 * a literal one shares at least one with its statement. "Content term" is what the pipeline's
 * own Lucene-exact analyzer keeps (stop words dropped, Porter stems), so the property is
 * exactly what BM25 sees. Slots ({N}, {P}, {V}) are removed before analysis.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { analyze } from "../../../steps/sparse/analyzer.ts";
import { ENTITY_KINDS, EVENT_QUESTIONS, KIND_SPECS } from "../../../steps/data/mini/attributes.ts";

const terms = (template: string): Set<string> => new Set(analyze(template.replace(/\{[NPV]\}/g, " ")));
const shared = (a: Set<string>, b: Set<string>): string[] => [...a].filter((t) => b.has(t));

for (const kind of ENTITY_KINDS) {
  test(`${kind}: paraphrases share no term with any statement; literal questions share one with theirs`, () => {
    for (const a of KIND_SPECS[kind].attributes) {
      assert.ok(a.statements.length >= 2, `${a.key}: several ways to state it`);
      assert.equal(a.literal.length, a.statements.length, `${a.key}: one literal question per statement`);
      assert.ok(a.paraphrase.length >= 2, `${a.key}: several paraphrases`);
      const statementTerms = a.statements.map(terms);
      for (const q of a.paraphrase) {
        for (const [i, st] of statementTerms.entries()) {
          assert.deepEqual(shared(terms(q), st), [], `${a.key}: paraphrase "${q}" shares terms with statement ${i} "${a.statements[i]}"`);
        }
      }
      a.literal.forEach((q, i) => {
        assert.ok(shared(terms(q), statementTerms[i] ?? new Set()).length > 0, `${a.key}: literal "${q}" shares no term with "${a.statements[i]}"`);
      });
      for (const t of [...a.statements]) assert.ok(t.includes("{N}") && t.includes("{V}"), `${a.key}: statement "${t}" names subject and value`);
      for (const t of [...a.literal, ...a.paraphrase]) assert.ok(t.includes("{N}") || t.includes("{P}"), `${a.key}: question "${t}" refers to its subject`);
    }
  });
}

test("open follow-ups name nothing: no slot, no name, the same words for every entity", () => {
  for (const q of EVENT_QUESTIONS) {
    assert.ok(!/\{[NPV]\}/.test(q) && q === q.toLowerCase(), q);
    assert.ok(terms(q).size <= 4, `${q}: a few generic terms`);
  }
});
