/** Every target the CLI knows. The default is what `npx tsx pipeline/main.ts` runs. */
import { TargetRegistry } from "../engine/targets.ts";
import { demoTarget } from "./demo.ts";
import { dataTarget } from "./datasets.ts";
import { daggerSmokeTarget } from "./dagger-smoke.ts";

export function buildTargets(): TargetRegistry {
  const targets = new TargetRegistry();
  targets.register(demoTarget, { default: true });
  targets.register(dataTarget);
  targets.register(daggerSmokeTarget);
  return targets;
}
