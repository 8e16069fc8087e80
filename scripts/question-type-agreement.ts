/**
 * Measures how well each computed question-type rule agrees with a released labels file,
 * from a QReCC-format qrels file and the labels file alone (no turn files needed):
 *
 *   npx tsx scripts/question-type-agreement.ts <qrels.txt> <test_question_types.json>
 *
 * Prints, per rule, the agreement per class (turns both put in the class / turns the labels
 * put there) and the overall agreement. The numbers in steps/data/preprocess/question-types.ts
 * were measured with it on the authors' released QReCC test files.
 */
import { parseQuestionTypeLabels } from "../steps/data/formats/qrecc.ts";
import { parseJsonQrels } from "../steps/data/formats/qrels.ts";
import { readJsonFile } from "../steps/data/formats/records.ts";
import { compareWithLabels, goldOverlapTypes, turnsFromQrels, TYPE_RULE_NAMES } from "../steps/data/preprocess/question-types.ts";
import { QRECC_TYPE_DOMAINS } from "../steps/data/preprocess/qrecc.ts";

const [qrelsFile, labelsFile] = process.argv.slice(2);
if (qrelsFile === undefined || labelsFile === undefined) {
  process.stderr.write("usage: npx tsx scripts/question-type-agreement.ts <qrels.txt> <test_question_types.json>\n");
  process.exit(2);
}
const labels = parseQuestionTypeLabels(readJsonFile(labelsFile).value, labelsFile);
const rows = turnsFromQrels(parseJsonQrels(readJsonFile(qrelsFile).value, qrelsFile).gold, labels);
for (const rule of TYPE_RULE_NAMES) {
  const a = compareWithLabels(rows, goldOverlapTypes(rows, { domains: QRECC_TYPE_DOMAINS, rule }), labels);
  const per = Object.entries(a.perClass).map(([c, x]) => `${c} ${x.both}/${x.labelled} (${x.agreement === null ? "-" : (100 * x.agreement).toFixed(1)}%)`);
  process.stdout.write(`${rule}: ${per.join(", ")}; overall ${a.agree}/${a.total} (${(100 * a.agreement).toFixed(1)}%)\n`);
}
