/** Well-formedness of generated SVG, for the report's tests. */
import assert from "node:assert/strict";

/** Minimal well-formedness check: balanced tags, quoted attributes, escaped text. */
export function assertWellFormed(svg: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(svg); m !== null; m = tag.exec(svg)) {
    const text = svg.slice(last, m.index);
    assert.doesNotMatch(text, /[<>]|&(?!(amp|lt|gt|quot|#39);)/, `unescaped text before ${m[0]}`);
    last = tag.lastIndex;
    const [, close, name, , selfClose] = m;
    if (close === "/") assert.equal(stack.pop(), name, `mismatched </${name}>`);
    else if (selfClose !== "/") stack.push(name!);
  }
  assert.equal(svg.slice(last).trim(), "");
  assert.deepEqual(stack, []);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
}
