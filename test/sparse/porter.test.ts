// Porter stemmer pairs, each checked against Lucene 8.7's PorterStemFilter with
//   java -cp <lucene jars> test/peers/lucene/LuceneBm25.java analyze porter <words.b64>
// (the last test re-checks them, plus ~100 words of English text, when Java and Lucene are installed).
import { test } from "node:test";
import assert from "node:assert/strict";
import { porterStem } from "../../steps/sparse/porter.ts";
import { luceneAnalyze, peerOrSkip } from "../peers/lucene/peer.ts";

const PAIRS: readonly (readonly [string, string])[] = [
  ["caresses", "caress"],
  ["ponies", "poni"],
  ["ties", "ti"],
  ["caress", "caress"],
  ["cats", "cat"],
  ["feed", "feed"],
  ["agreed", "agre"],
  ["plastered", "plaster"],
  ["bled", "bled"],
  ["motoring", "motor"],
  ["sing", "sing"],
  ["conflated", "conflat"],
  ["troubled", "troubl"],
  ["sized", "size"],
  ["hopping", "hop"],
  ["tanned", "tan"],
  ["falling", "fall"],
  ["hissing", "hiss"],
  ["fizzed", "fizz"],
  ["failing", "fail"],
  ["filing", "file"],
  ["happy", "happi"],
  ["sky", "sky"],
  ["relational", "relat"],
  ["conditional", "condit"],
  ["rational", "ration"],
  ["valenci", "valenc"],
  ["hesitanci", "hesit"],
  ["digitizer", "digit"],
  ["conformabli", "conform"],
  ["radicalli", "radic"],
  ["differentli", "differ"],
  ["vileli", "vile"],
  ["analogousli", "analog"],
  ["vietnamization", "vietnam"],
  ["predication", "predic"],
  ["operator", "oper"],
  ["feudalism", "feudal"],
  ["decisiveness", "decis"],
  ["hopefulness", "hope"],
  ["callousness", "callous"],
  ["formaliti", "formal"],
  ["sensitiviti", "sensit"],
  ["sensibiliti", "sensibl"],
  ["triplicate", "triplic"],
  ["formative", "form"],
  ["formalize", "formal"],
  ["electriciti", "electr"],
  ["electrical", "electr"],
  ["hopeful", "hope"],
  ["goodness", "good"],
  ["revival", "reviv"],
  ["allowance", "allow"],
  ["inference", "infer"],
  ["airliner", "airlin"],
  ["gyroscopic", "gyroscop"],
  ["adjustable", "adjust"],
  ["defensible", "defens"],
  ["irritant", "irrit"],
  ["replacement", "replac"],
  ["adjustment", "adjust"],
  ["dependent", "depend"],
  ["adoption", "adopt"],
  ["homologou", "homolog"],
  ["communism", "commun"],
  ["activate", "activ"],
  ["angulariti", "angular"],
  ["homologous", "homolog"],
  ["effective", "effect"],
  ["bowdlerize", "bowdler"],
  ["probate", "probat"],
  ["rate", "rate"],
  ["cease", "ceas"],
  ["controll", "control"],
  ["roll", "roll"],
  ["sensibly", "sensibl"],
  ["archaeology", "archaeolog"],
  ["generalizations", "gener"],
  ["oscillators", "oscil"],
  ["is", "is"],
  ["as", "as"],
  ["by", "by"],
  ["yes", "ye"],
  ["dying", "dy"],
  ["lying", "ly"],
  ["ies", "i"],
  ["conversational", "convers"],
  ["retrieval", "retriev"],
  ["retriever", "retriev"],
  ["shortcut", "shortcut"],
  ["dependency", "depend"],
  ["questions", "question"],
  ["passages", "passag"],
  ["encoding", "encod"],
  ["naïve", "naïv"],
  ["x1y", "x1y"],
  ["abc123ing", "abc123"],
];

test(`Porter stems match Lucene's on ${PAIRS.length} known pairs`, () => {
  const wrong = PAIRS.filter(([w, s]) => porterStem(w) !== s).map(([w, s]) => `${w}: ${porterStem(w)} != ${s}`);
  assert.deepEqual(wrong, []);
});

test("reference departures from the 1980 paper are kept (bli -> ble, logi -> log)", () => {
  assert.equal(porterStem("sensibly"), "sensibl");
  assert.equal(porterStem("archaeology"), "archaeolog");
});

test("words of one or two letters are left alone", () => {
  for (const w of ["a", "is", "as", "ys", "ss"]) assert.equal(porterStem(w), w);
});

test("Porter stems equal Lucene's PorterStemFilter (live peer)", (t) => {
  const classpath = peerOrSkip(t);
  if (classpath === null) return;
  const text =
    "conversational question answering systems retrieve relevant passages from large collections using dense " +
    "representations learned by contrastive training with hard negatives mined iteratively from previous models " +
    "which reduces shortcut dependency on the dialogue history and improves generalization across switching topics " +
    "effectiveness evaluations demonstrated consistently improving rankings nationalities organizational " +
    "abilities responsibilities troubleshooting misunderstandings reproducibility";
  const words = [...new Set([...PAIRS.map(([w]) => w), ...text.split(" ")])];
  const lucene = luceneAnalyze(classpath, "porter", words);
  const wrong = words.flatMap((w, i) => (porterStem(w) === lucene[i]![0] ? [] : [`${w}: ${porterStem(w)} != ${lucene[i]![0]}`]));
  assert.deepEqual(wrong, []);
});
