/**
 * Another x86-64 CPU on this machine: qemu-user's emulation of a Haswell (AVX2 and FMA, no
 * AVX-512), for tests that run a program on it through the engine (CSPIPE_PYTHON names an
 * interpreter that runs there). Where the host has AVX-512, this is a CPU whose kernels a
 * library that dispatches by the CPU (OpenBLAS, ATen, MLAS) would choose differently.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PYTHON } from "../training/python.ts";

const QEMU = "/usr/bin/qemu-x86_64";
/** A Haswell without the features qemu's TCG does not emulate (it would warn about each). */
const HASWELL = "Haswell,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm";

/** Why the emulated CPU is unavailable (a skip reason), or false. In CI its absence is an error. */
export const noEmulatedCpu: string | false = existsSync(QEMU) ? false : `no ${QEMU} (apt-get install -y qemu-user)`;
if (noEmulatedCpu !== false && process.env.CI !== undefined) {
  throw new Error(`${noEmulatedCpu}: CI must run the cross-CPU tests (scripts/setup.sh installs qemu-user)`);
}

/** Writes an interpreter wrapper into `dir` that runs PYTHON on the emulated Haswell; returns its path. */
export function pythonOnHaswell(dir: string): string {
  const wrapper = join(dir, "python-on-haswell");
  writeFileSync(wrapper, `#!/bin/sh\nexec ${QEMU} -cpu ${HASWELL} ${PYTHON} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}
