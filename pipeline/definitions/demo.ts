/** The `demo` target: two seeded samples, summarised, in one Markdown table. */
import { use } from "../engine/step.ts";
import type { Target } from "../engine/targets.ts";
import { generateNumbers, renderDemoReport, summariseNumbers } from "../../steps/demo/steps.ts";

export const demoTarget: Target = {
  name: "demo",
  description: "engine demo: two seeded samples summarised in a Markdown table (no dataset needed)",
  steps() {
    const a = use(generateNumbers, { name: "generate-numbers.a", params: { count: 1000, seed: 1 }, inputs: {} });
    const b = use(generateNumbers, { name: "generate-numbers.b", params: { count: 1000, seed: 2 }, inputs: {} });
    const sa = use(summariseNumbers, { name: "summarise-numbers.a", inputs: { numbers: a.out.numbers } });
    const sb = use(summariseNumbers, { name: "summarise-numbers.b", inputs: { numbers: b.out.numbers } });
    return [use(renderDemoReport, { inputs: { a: sa.out.summary, b: sb.out.summary } })];
  },
};
