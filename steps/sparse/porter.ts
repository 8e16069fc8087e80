/**
 * The Porter (1980) stemmer as Lucene's PorterStemmer implements it (Martin Porter's reference
 * implementation, including its departures from the paper: `bli`→`ble` and `logi`→`log`).
 * Words of one or two characters are returned unchanged; any character other than a,e,i,o,u
 * (and y after a consonant) counts as a consonant, so non-ASCII letters pass through safely.
 * Verified against Lucene's PorterStemFilter in test/sparse/porter.test.ts.
 */

/** Stems one lower-case word. Pure. */
export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  const s = new PorterState(word);
  s.step1ab();
  s.step1c();
  s.step2();
  s.step3();
  s.step4();
  s.step5();
  return s.b.slice(0, s.k + 1);
}

class PorterState {
  b: string;
  /** Index of the last character of the current word. */
  k: number;
  /** End of the stem when a suffix matched (index of the stem's last character). */
  j = 0;

  constructor(word: string) {
    this.b = word;
    this.k = word.length - 1;
  }

  private cons(i: number): boolean {
    switch (this.b.charCodeAt(i)) {
      case 97: // a
      case 101: // e
      case 105: // i
      case 111: // o
      case 117: // u
        return false;
      case 121: // y
        return i === 0 ? true : !this.cons(i - 1);
      default:
        return true;
    }
  }

  /** Number of consonant-vowel sequences (the measure m) in b[0..j]. */
  private m(): number {
    let n = 0;
    let i = 0;
    const j = this.j;
    for (;;) {
      if (i > j) return n;
      if (!this.cons(i)) break;
      i++;
    }
    i++;
    for (;;) {
      for (;;) {
        if (i > j) return n;
        if (this.cons(i)) break;
        i++;
      }
      i++;
      n++;
      for (;;) {
        if (i > j) return n;
        if (!this.cons(i)) break;
        i++;
      }
      i++;
    }
  }

  private vowelInStem(): boolean {
    for (let i = 0; i <= this.j; i++) if (!this.cons(i)) return true;
    return false;
  }

  private doublec(j: number): boolean {
    if (j < 1) return false;
    if (this.b.charCodeAt(j) !== this.b.charCodeAt(j - 1)) return false;
    return this.cons(j);
  }

  /** consonant-vowel-consonant ending at i, the last consonant not w, x or y. */
  private cvc(i: number): boolean {
    if (i < 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const ch = this.b.charCodeAt(i);
    return !(ch === 119 || ch === 120 || ch === 121);
  }

  private ends(suffix: string): boolean {
    const l = suffix.length;
    const o = this.k - l + 1;
    if (o < 0) return false;
    if (this.b.slice(o, this.k + 1) !== suffix) return false;
    this.j = this.k - l;
    return true;
  }

  /** Replaces b[j+1..k] by `s`. */
  private setTo(s: string): void {
    this.b = this.b.slice(0, this.j + 1) + s + this.b.slice(this.k + 1);
    this.k = this.j + s.length;
  }

  private r(s: string): void {
    if (this.m() > 0) this.setTo(s);
  }

  /** Plurals and -ed / -ing. */
  step1ab(): void {
    if (this.b.charCodeAt(this.k) === 115 /* s */) {
      if (this.ends("sses")) this.k -= 2;
      else if (this.ends("ies")) this.setTo("i");
      else if (this.b.charCodeAt(this.k - 1) !== 115) this.k--;
    }
    if (this.ends("eed")) {
      if (this.m() > 0) this.k--;
    } else if ((this.ends("ed") || this.ends("ing")) && this.vowelInStem()) {
      this.k = this.j;
      if (this.ends("at")) this.setTo("ate");
      else if (this.ends("bl")) this.setTo("ble");
      else if (this.ends("iz")) this.setTo("ize");
      else if (this.doublec(this.k)) {
        const ch = this.b.charCodeAt(this.k);
        this.k--;
        if (ch === 108 /* l */ || ch === 115 /* s */ || ch === 122 /* z */) this.k++;
      } else if (this.m() === 1 && this.cvc(this.k)) this.setTo("e"); // j === k here
    }
  }

  /** Terminal y to i when there is another vowel in the stem. */
  step1c(): void {
    if (this.ends("y") && this.vowelInStem()) {
      this.b = this.b.slice(0, this.k) + "i" + this.b.slice(this.k + 1);
    }
  }

  /** Double suffixes to single ones (Porter's step 2). */
  step2(): void {
    if (this.k === 0) return;
    const rules = STEP2[this.b[this.k - 1] ?? ""];
    if (rules) this.applyFirst(rules);
  }

  /** -ic-, -full, -ness etc. (Porter's step 3). */
  step3(): void {
    const rules = STEP3[this.b[this.k] ?? ""];
    if (rules) this.applyFirst(rules);
  }

  private applyFirst(rules: readonly (readonly [string, string])[]): void {
    for (const [suffix, repl] of rules) {
      if (this.ends(suffix)) {
        this.r(repl);
        return;
      }
    }
  }

  /** Removes -ant, -ence etc. in context <c>vcvc<v> (Porter's step 4). */
  step4(): void {
    if (this.k === 0) return;
    const candidates = STEP4[this.b[this.k - 1] ?? ""];
    if (!candidates) return;
    let matched = false;
    for (const suffix of candidates) {
      if (this.ends(suffix)) {
        if (suffix === "ion") {
          const c = this.b.charCodeAt(this.j);
          if (!(this.j >= 0 && (c === 115 || c === 116))) return;
        }
        matched = true;
        break;
      }
    }
    if (!matched) return;
    if (this.m() > 1) this.k = this.j;
  }

  /** Removes a final -e if m > 1 (or m = 1 and not cvc), and -ll to -l if m > 1 (Porter's step 5). */
  step5(): void {
    this.j = this.k;
    if (this.b.charCodeAt(this.k) === 101 /* e */) {
      const a = this.m();
      if (a > 1 || (a === 1 && !this.cvc(this.k - 1))) this.k--;
    }
    if (this.b.charCodeAt(this.k) === 108 /* l */ && this.doublec(this.k) && this.m() > 1) this.k--;
  }
}

// Suffix tables keyed by the penultimate (step 2, step 4) or last (step 3) letter, in the
// reference implementation's order: the first suffix that matches wins, even if its m-test fails.
const STEP2: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  a: [["ational", "ate"], ["tional", "tion"]],
  c: [["enci", "ence"], ["anci", "ance"]],
  e: [["izer", "ize"]],
  l: [["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"]],
  o: [["ization", "ize"], ["ation", "ate"], ["ator", "ate"]],
  s: [["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"]],
  t: [["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"]],
  g: [["logi", "log"]],
};

const STEP3: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  e: [["icate", "ic"], ["ative", ""], ["alize", "al"]],
  i: [["iciti", "ic"]],
  l: [["ical", "ic"], ["ful", ""]],
  s: [["ness", ""]],
};

const STEP4: Readonly<Record<string, readonly string[]>> = {
  a: ["al"],
  c: ["ance", "ence"],
  e: ["er"],
  i: ["ic"],
  l: ["able", "ible"],
  n: ["ant", "ement", "ment", "ent"],
  o: ["ion", "ou"],
  s: ["ism"],
  t: ["ate", "iti"],
  u: ["ous"],
  v: ["ive"],
  z: ["ize"],
};
