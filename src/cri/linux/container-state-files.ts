/**
 * What the Linux runtime keeps on disk about its sandboxes and containers, so that it, not the
 * agent's memory, is the truth (as containerd's metadata is for a kubelet): a restarted agent reads
 * these files back and finds every container, running or exited.
 *
 *   <state>/sandboxes/<id>.json   a pod sandbox: its config and cgroup
 *   <state>/<id>/container.json   a container: its config, and the exact command that runs it
 *   <state>/<id>/state.json       written by the container's monitor (container-shim.ts): running
 *                                 since, or exited with its code
 *   <state>/<id>/rootfs, upper/, work/   its root filesystem's mount point and writable layer
 *
 * Files are written to a temporary name and renamed, so a reader never sees half of one.
 */
import { mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ContainerConfig, PodSandboxConfig } from "../runtime-service.ts";

const sandboxesDirName = "sandboxes";
const containerFileName = "container.json";
const stateFileName = "state.json";

export interface SandboxFile {
  id: string;
  config: PodSandboxConfig;
  cgroupDir: string;
  createdAtMs: number;
}

/** A container as created: everything needed to start it, exec into it and report on it. */
export interface ContainerFile {
  id: string;
  podSandboxId: string;
  config: ContainerConfig;
  /** The image's name in the store. */
  image: string;
  createdAtMs: number;
  /** Absolute path of the log file. */
  logPath: string;
  cgroupDir: string;
  /** The container's environment (the image's, then the config's). */
  env: Record<string, string>;
  /** The program the monitor spawns: the setup that becomes the container (container-setup-script.ts). */
  spawn: { command: string; args: string[] };
}

/** The monitor's report. */
export type ShimState =
  | { phase: "running"; shimPid: number; startedAtMs: number }
  | {
      phase: "exited";
      shimPid: number;
      /** 0 when the command never started. */
      startedAtMs: number;
      finishedAtMs: number;
      exitCode: number;
      /** `Completed`, `Error` or `StartError`. */
      reason: string;
      message: string;
    };

async function writeAtomically(path: string, value: unknown): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

async function readJson<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

function sandboxFilePath(stateDir: string, id: string): string {
  return join(stateDir, sandboxesDirName, `${id}.json`);
}

/** Attempts at writing a sandbox file while the removal of another sandbox may remove the directory. */
const sandboxWriteAttempts = 3;

export async function writeSandboxFile(stateDir: string, sandbox: SandboxFile): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await mkdir(join(stateDir, sandboxesDirName), { recursive: true, mode: 0o700 });
    try {
      await writeAtomically(sandboxFilePath(stateDir, sandbox.id), sandbox);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= sandboxWriteAttempts) throw error;
    }
  }
}

/** Removes the sandbox's file, and the sandboxes' directory with the last one, so a node without pods leaves nothing. */
export async function removeSandboxFile(stateDir: string, id: string): Promise<void> {
  await rm(sandboxFilePath(stateDir, id), { force: true });
  try {
    await rmdir(join(stateDir, sandboxesDirName));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOENT") throw error;
  }
}

export function writeContainerFile(containerDir: string, container: ContainerFile): Promise<void> {
  return writeAtomically(join(containerDir, containerFileName), container);
}

export function readContainerFile(containerDir: string): Promise<ContainerFile | undefined> {
  return readJson<ContainerFile>(join(containerDir, containerFileName));
}

export function writeShimState(containerDir: string, state: ShimState): Promise<void> {
  return writeAtomically(join(containerDir, stateFileName), state);
}

export function readShimState(containerDir: string): Promise<ShimState | undefined> {
  return readJson<ShimState>(join(containerDir, stateFileName));
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Every sandbox file under `stateDir`. */
export async function readSandboxFiles(stateDir: string): Promise<SandboxFile[]> {
  const sandboxes: SandboxFile[] = [];
  for (const name of await entries(join(stateDir, sandboxesDirName))) {
    if (!name.endsWith(".json")) continue;
    const sandbox = await readJson<SandboxFile>(join(stateDir, sandboxesDirName, name));
    if (sandbox !== undefined) sandboxes.push(sandbox);
  }
  return sandboxes;
}

/** The container directories under `stateDir` (every entry but the sandboxes' directory). */
export async function containerDirs(stateDir: string): Promise<string[]> {
  return (await entries(stateDir)).filter((name) => name !== sandboxesDirName).map((name) => join(stateDir, name));
}
