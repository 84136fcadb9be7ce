/**
 * `npm run bench -- real-node`: a 1 GiB attachable volume of disk.csi.kvol.io on this machine —
 * CreateVolume (a sparse file), ControllerPublishVolume (a loop device), NodeStageVolume
 * (blkid, mkfs.ext4, fsck, mount), NodePublishVolume (bind mount), a busybox container started in
 * the Linux runtime with the volume at /data — and the teardown, each phase beside the raw
 * commands doing the same work by hand (`truncate`, `losetup`, `mkfs.ext4` + `mount`,
 * `mount --bind`, a bare process spawn) in the same round. Medians of KVOL_BENCH_REAL_NODE_ROUNDS
 * rounds (default 3). Then the whole path through the control plane (real-node-cluster.ts): a 1Gi
 * claim and a busybox pod on `kvol up --host linux --nodes 1`, each phase read from the API and the
 * node's mount table, beside the raw step doing the same work. Runs inside a private mount
 * namespace; skips with the reason when not root.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setupMilestones, teardownMilestones } from "./cluster-phases.ts";
import type { Row } from "./measure.ts";
import type { PhaseTimes } from "./real-node-phases.ts";

const phasesScript = fileURLToPath(new URL("./real-node-phases.ts", import.meta.url));
const clusterScript = fileURLToPath(new URL("./real-node-cluster.ts", import.meta.url));
const maxOutputBytes = 16 * 1024 * 1024;
const setupPhases = ["create", "attach", "stage", "publish", "container start"];
const teardownPhases = ["container stop", "unpublish", "unstage", "detach", "delete"];
const rawNames: Record<string, string> = {
  create: "truncate -s 1G",
  attach: "losetup -f",
  stage: "mkfs.ext4 + mount",
  publish: "mount --bind",
  "container start": "spawn busybox",
  "container stop": "kill busybox",
  unpublish: "umount bind",
  unstage: "umount",
  detach: "losetup -d",
  delete: "rm",
};
const driverNames: Record<string, string> = {
  create: "CreateVolume",
  attach: "ControllerPublishVolume",
  stage: "NodeStageVolume (format+mount)",
  publish: "NodePublishVolume",
  "container start": "RunPodSandbox+Create+StartContainer",
  "container stop": "StopContainer+RemovePodSandbox",
  unpublish: "NodeUnpublishVolume",
  unstage: "NodeUnstageVolume",
  detach: "ControllerUnpublishVolume",
  delete: "DeleteVolume",
};

function whyNot(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (loop devices, mounts, containers)";
  if (!existsSync("/dev/loop-control")) return "/dev/loop-control is missing (no loop driver)";
  return undefined;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function total(times: PhaseTimes, phases: readonly string[]): number {
  return phases.reduce((sum, phase) => sum + (times[phase] ?? 0), 0);
}

export async function realNodeBenchmarks(): Promise<Row[]> {
  const reason = whyNot();
  if (reason !== undefined) {
    console.log(`skipping real-node: ${reason}`);
    return [];
  }
  const rounds = runInPrivateMounts(phasesScript) as Array<{ raw: PhaseTimes; driver: PhaseTimes }>;
  const row = (group: string, measure: string, value: number, baselineName: string, baseline: number): Row => ({
    group,
    measure,
    value,
    unit: "ms",
    baselineName,
    baseline,
    better: "lower",
  });
  const rows: Row[] = [];
  for (const [group, phases] of [
    ["real-node setup", setupPhases],
    ["real-node teardown", teardownPhases],
  ] as const) {
    for (const phase of phases) {
      rows.push(
        row(
          group,
          driverNames[phase] ?? phase,
          median(rounds.map((r) => r.driver[phase] ?? Number.NaN)),
          rawNames[phase] ?? phase,
          median(rounds.map((r) => r.raw[phase] ?? Number.NaN)),
        ),
      );
    }
    rows.push(
      row(
        group,
        "total",
        median(rounds.map((r) => total(r.driver, phases))),
        "raw commands",
        median(rounds.map((r) => total(r.raw, phases))),
      ),
    );
  }
  return [...rows, ...clusterRows(runInPrivateMounts(clusterScript) as ClusterRound[])];
}

/** Runs a measuring script in a mount namespace of its own and returns the JSON of its last line. */
function runInPrivateMounts(script: string): unknown {
  const { NODE_OPTIONS: _inherited, ...env } = process.env;
  const run = spawnSync(
    "unshare",
    ["--mount", "--propagation", "private", process.execPath, "--import", "tsx", script],
    { env, encoding: "utf8", maxBuffer: maxOutputBytes },
  );
  if (run.status !== 0) throw new Error(`real-node measurements failed:\n${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "[]");
}

interface ClusterRound {
  raw: PhaseTimes;
  setup: PhaseTimes;
  teardown: PhaseTimes;
}

/** The raw step doing the same work as a phase of the whole path, where there is one. */
const clusterRawPhase: Record<string, string> = {
  provision: "create",
  attach: "attach",
  "format+mount-device": "stage",
  publish: "publish",
  "container start": "container start",
  "container stop": "container stop",
  unpublish: "unpublish",
  "unmount device": "unstage",
  detach: "detach",
  "delete volume": "delete",
};

/** The pod and claim through the control plane, phase by phase, beside the raw step and in total. */
function clusterRows(rounds: readonly ClusterRound[]): Row[] {
  const rows: Row[] = [];
  for (const [group, key, milestones] of [
    ["real-node cluster setup", "setup", setupMilestones],
    ["real-node cluster teardown", "teardown", teardownMilestones],
  ] as const) {
    for (const [phase] of milestones.slice(1)) {
      const raw = clusterRawPhase[phase];
      rows.push({
        group,
        measure: phase,
        value: median(rounds.map((r) => r[key][phase] ?? Number.NaN)),
        unit: "ms",
        baselineName: raw === undefined ? "no raw step" : (rawNames[raw] ?? raw),
        baseline: raw === undefined ? Number.NaN : median(rounds.map((r) => r.raw[raw] ?? Number.NaN)),
        better: "lower",
      });
    }
    const rawPhases = key === "setup" ? setupPhases : teardownPhases;
    rows.push({
      group,
      measure: "total",
      value: median(rounds.map((r) => Object.values(r[key]).reduce((sum, ms) => sum + ms, 0))),
      unit: "ms",
      baselineName: "raw commands",
      baseline: median(rounds.map((r) => total(r.raw, rawPhases))),
      better: "lower",
    });
  }
  return rows;
}
