/**
 * `npm run bench -- real-node`: a 1 GiB attachable volume of disk.csi.kvol.io on this machine —
 * CreateVolume (a sparse file), ControllerPublishVolume (a loop device), NodeStageVolume
 * (blkid, mkfs.ext4, fsck, mount), NodePublishVolume (bind mount), a busybox container started in
 * the Linux runtime with the volume at /data — and the teardown, each phase beside the raw
 * commands doing the same work by hand (`truncate`, `losetup`, `mkfs.ext4` + `mount`,
 * `mount --bind`, a bare process spawn) in the same round. Medians of KVOL_BENCH_REAL_NODE_ROUNDS
 * rounds (default 3). Runs inside a private mount namespace; skips with the reason when not root.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Row } from "./measure.ts";
import type { PhaseTimes } from "./real-node-phases.ts";

const phasesScript = fileURLToPath(new URL("./real-node-phases.ts", import.meta.url));
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
  const { NODE_OPTIONS: _inherited, ...env } = process.env;
  const run = spawnSync(
    "unshare",
    ["--mount", "--propagation", "private", process.execPath, "--import", "tsx", phasesScript],
    { env, encoding: "utf8", maxBuffer: maxOutputBytes },
  );
  if (run.status !== 0) throw new Error(`real-node measurements failed:\n${run.stdout}${run.stderr}`);
  const rounds = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "[]") as Array<{
    raw: PhaseTimes;
    driver: PhaseTimes;
  }>;
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
  return rows;
}
