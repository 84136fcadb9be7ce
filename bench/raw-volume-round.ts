/**
 * The raw baseline of the real-node benchmarks: a 1 GiB volume and a process using it made by hand
 * with the commands kvol's drivers run (truncate, losetup, mkfs.ext4 with SafeFormatAndMount's
 * flags, mount, mount --bind, a bare spawn), and the teardown, each step timed.
 */
import { spawn, spawnSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

export const volumeBytes = 1024 ** 3;

export type PhaseTimes = Record<string, number>;

export async function timed(times: PhaseTimes, phase: string, work: () => Promise<unknown> | unknown): Promise<void> {
  const started = performance.now();
  await work();
  times[phase] = performance.now() - started;
}

export function sh(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The same work without kvol: truncate, losetup, mkfs.ext4 (SafeFormatAndMount's flags), mount, mount --bind. */
export async function rawRound(dir: string, busybox: string): Promise<PhaseTimes> {
  const times: PhaseTimes = {};
  const image = join(dir, "raw.img");
  const staging = join(dir, "raw-staging");
  const target = join(dir, "raw-target");
  sh("mkdir", ["-p", staging, target]);
  let device = "";
  await timed(times, "create", () => sh("truncate", ["-s", String(volumeBytes), image]));
  await timed(times, "attach", () => {
    device = sh("losetup", ["-f", "--show", image]).trim();
  });
  await timed(times, "stage", () => {
    sh("mkfs.ext4", ["-F", "-m0", "-q", device]);
    sh("mount", ["-t", "ext4", device, staging]);
  });
  await timed(times, "publish", () => sh("mount", ["--bind", staging, target]));
  let sleeper: ReturnType<typeof spawn> | undefined;
  await timed(
    times,
    "container start",
    () =>
      new Promise<void>((resolve, reject) => {
        sleeper = spawn(busybox, ["sleep", "3600"], { stdio: "ignore" });
        sleeper.once("spawn", resolve);
        sleeper.once("error", reject);
      }),
  );
  await timed(
    times,
    "container stop",
    () =>
      new Promise<void>((resolve) => {
        sleeper?.once("exit", () => resolve());
        sleeper?.kill("SIGKILL");
      }),
  );
  await timed(times, "unpublish", () => sh("umount", [target]));
  await timed(times, "unstage", () => sh("umount", [staging]));
  await timed(times, "detach", () => sh("losetup", ["-d", device]));
  await timed(times, "delete", () => rm(image));
  return times;
}
