/**
 * What the cluster offers (pure): `sinfo -h -a -N -o '%N|%P|%c|%m|%G|%l'` parsed into
 * partitions of nodes, the partitions a run's jobs go to, and whether a step's request fits
 * one of them (the planning check of `run`/`plan --executor slurm`).
 */
import type { SlurmRequest } from "./request.ts";
import { formatSlurmTime } from "./request.ts";

export const SINFO_ARGS = ["-h", "-a", "-N", "-o", "%N|%P|%c|%m|%G|%l"] as const;

export interface ClusterNode {
  readonly name: string;
  readonly cpus: number;
  readonly memMiB: number;
  readonly gpus: number;
}

export interface Partition {
  readonly name: string;
  readonly isDefault: boolean;
  /** Minutes; Infinity when unlimited. */
  readonly maxMinutes: number;
  readonly nodes: readonly ClusterNode[];
}

/** Slurm's time formats (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S; "infinite"/"UNLIMITED") in minutes. */
export function parseSlurmMinutes(text: string): number | undefined {
  const t = text.trim();
  if (/^(infinite|unlimited)$/i.test(t)) return Infinity;
  const m = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(t);
  if (!m) return undefined;
  const [days, a, b, c] = [m[1], m[2], m[3], m[4]].map((x) => (x === undefined ? undefined : Number(x)));
  if (days !== undefined) return days * 1440 + (a ?? 0) * 60 + (b ?? 0) + Math.ceil((c ?? 0) / 60);
  if (c !== undefined) return a! * 60 + b! + Math.ceil(c / 60); // H:M:S
  if (b !== undefined) return a! + Math.ceil(b / 60); // M:S
  return a!; // minutes
}

/** GPUs in a gres string: "gpu:2", "gpu:a100:4(S:0-1)", "gpu:2,nic:1", "(null)". */
export function gpusInGres(gres: string): number {
  let n = 0;
  for (const part of gres.split(/,(?![^(]*\))/)) {
    const m = /^gpu(?::[^:(]+)?:(\d+)/.exec(part.trim());
    if (m) n += Number(m[1]);
  }
  return n;
}

/** Partitions from sinfo's lines; a line that does not parse is an error naming it. */
export function parseSinfo(text: string): Partition[] {
  const parts = new Map<string, { isDefault: boolean; maxMinutes: number; nodes: ClusterNode[] }>();
  for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
    const f = line.split("|");
    const [name, partition, cpus, mem, gres, limit] = f;
    const maxMinutes = limit === undefined ? undefined : parseSlurmMinutes(limit);
    if (f.length !== 6 || !name || !partition || maxMinutes === undefined || !/^\d+$/.test(cpus ?? "") || !/^\d+/.test(mem ?? "")) {
      throw new Error(`cannot read sinfo's line '${line}' (expected node|partition|cpus|memory|gres|timelimit)`);
    }
    const isDefault = partition.endsWith("*");
    const pname = isDefault ? partition.slice(0, -1) : partition;
    const p = parts.get(pname) ?? { isDefault, maxMinutes, nodes: [] };
    p.nodes.push({ name, cpus: Number(cpus), memMiB: Number.parseInt(mem!, 10), gpus: gpusInGres(gres ?? "") });
    parts.set(pname, p);
  }
  return [...parts.entries()].map(([name, p]) => ({ name, ...p })).sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The partitions jobs go to: the configured ones (a comma list), else the default. */
export function targetPartitions(all: readonly Partition[], configured: string | undefined): { ok: true; partitions: Partition[] } | { ok: false; detail: string; fix: string } {
  const names = all.map((p) => p.name).join(", ") || "none";
  if (configured === undefined) {
    const d = all.filter((p) => p.isDefault);
    if (d.length > 0) return { ok: true, partitions: d };
    return { ok: false, detail: `the cluster has no default partition (partitions: ${names})`, fix: "name one with --slurm-partition or \"partition\" in cspipe.slurm.json" };
  }
  const wanted = configured.split(",").map((s) => s.trim());
  const missing = wanted.filter((w) => !all.some((p) => p.name === w));
  if (missing.length > 0) return { ok: false, detail: `no partition ${missing.join(", ")} in this cluster (sinfo lists ${names})`, fix: "pick one of those with --slurm-partition or \"partition\" in cspipe.slurm.json" };
  return { ok: true, partitions: all.filter((p) => wanted.includes(p.name)) };
}

/** GPUs of the partitions' best node (what "all GPUs" means for one job), and in total. */
export function gpuCapacity(partitions: readonly Partition[]): { perNode: number; total: number } {
  let perNode = 0;
  const seen = new Set<string>();
  let total = 0;
  for (const p of partitions) {
    for (const n of p.nodes) {
      perNode = Math.max(perNode, n.gpus);
      if (!seen.has(n.name)) total += n.gpus;
      seen.add(n.name);
    }
  }
  return { perNode, total };
}

/** GPUs one job of `req` asks for in these partitions ("all": the best node's count). */
export function gpusPerJob(req: SlurmRequest, partitions: readonly Partition[]): number {
  return req.gpus === "all" ? gpuCapacity(partitions).perNode : req.gpus;
}

function fitsPartition(req: SlurmRequest, gpus: number, p: Partition): boolean {
  return req.timeMinutes <= p.maxMinutes && p.nodes.some((n) => n.cpus >= req.cpus && n.memMiB >= req.memMiB && n.gpus >= gpus);
}

function offer(p: Partition): string {
  const max = (f: (n: ClusterNode) => number) => Math.max(0, ...p.nodes.map(f));
  const time = p.maxMinutes === Infinity ? "no time limit" : `time limit ${formatSlurmTime(p.maxMinutes)}`;
  return `partition ${p.name} offers at most ${max((n) => n.cpus)} CPUs, ${max((n) => n.memMiB)} MB and ${max((n) => n.gpus)} GPUs on one node, ${time}`;
}

/** Why `req` fits none of `partitions` (undefined: it fits one), with the fix; `all` names other partitions that would take it. */
export function requestProblem(stepId: string, req: SlurmRequest, partitions: readonly Partition[], all: readonly Partition[]): { detail: string; fix: string } | undefined {
  const gpus = gpusPerJob(req, partitions);
  if (partitions.some((p) => fitsPartition(req, gpus, p))) return undefined;
  const asks = `it asks for ${req.cpus} CPUs, ${req.memMiB} MB${gpus > 0 ? `, ${gpus} GPUs` : ""} and ${formatSlurmTime(req.timeMinutes)} on one node`;
  const elsewhere = all.filter((p) => !partitions.includes(p) && fitsPartition(req, gpus, p)).map((p) => p.name);
  const lower = `lower the request in cspipe.slurm.json ("resources": {"${stepId}": {"cpus": ..., "memoryGiB": ..., "expectedMinutes": ...}}) or in the step's declaration`;
  return {
    detail: `${asks}; ${partitions.map(offer).join("; ")}`,
    fix: elsewhere.length > 0 ? `run in partition ${elsewhere.join(" or ")} (--slurm-partition ${elsewhere[0]}), or ${lower}` : lower,
  };
}
