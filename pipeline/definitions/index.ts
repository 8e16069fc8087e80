/** Every target the CLI knows. The default is what `npx tsx pipeline/main.ts` runs. */
import { TargetRegistry } from "../engine/targets.ts";
import { demoTarget } from "./demo.ts";
import { dataTarget } from "./datasets.ts";
import { daggerSmokeTarget } from "./dagger-smoke.ts";
import { table2Bm25Target } from "./lexical.ts";

export function buildTargets(): TargetRegistry {
  const targets = new TargetRegistry();
  targets.register(demoTarget);
  targets.register(dataTarget);
  targets.register(daggerSmokeTarget);
  targets.register(table2Bm25Target, { default: true });
  return targets;
}
