/**
 * The bundled CSI node plugins of a real node, each a `kvol csi-driver NAME --registration-dir …`
 * process, as a driver's DaemonSet pod runs beside the kubelet: its CSI socket at
 * `<root>/plugins/<driver>/csi.sock`, its registration socket in `<root>/plugins_registry/`, where
 * the kubelet finds and registers it over real gRPC. They are started by the node agent, so they
 * share its mount namespace (their mounts are the node's), but each in a session and process group
 * of its own with its output in a file: a `kill -9` of the agent leaves them running, as pods
 * outlive a kubelet.
 *
 * Each plugin's process id is kept in `<plugins dir>/<driver>.pid`. A restarted agent that finds
 * one still running in its own mount namespace adopts it (the kubelet registers it again from its
 * socket); one running in another namespace (an agent that started afresh) is stopped and started
 * again, so a driver never runs twice on a node. A plugin this agent started that exits is started
 * again after the kubelet's container restart back-off (10 s doubling to 5 min), as a DaemonSet's
 * pod is; one that cannot run on this machine (a missing program, a backend it lacks) exits at once
 * each time, and its log says why. Stopping the agent (Ctrl-C) stops every plugin.
 *
 * Given a cgroup directory, each plugin runs in a cgroup v2 directory of its own, `<dir>/<driver>`,
 * as a DaemonSet pod's container does, and so do the FUSE daemons it starts: when the plugin exits,
 * everything left in its cgroup is killed before it is started again (a container restart), and
 * stopping kills and removes the cgroups. fuse.csi.kvol.io is given the API server, a token file
 * and the kubelet's root, so that a restarted plugin re-establishes the mounts its predecessor's
 * daemons served.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdir, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { killCgroup, removeCgroup } from "../cri/linux/container-cgroup.ts";
import { diskDriverName, fuseDriverName } from "../csi/drivers/common/constants.ts";
import { cgroupPids } from "../host/linux/cgroup.ts";
import { isProcessAlive } from "../host/linux/process-state.ts";
import {
  containerRestartBackoffInitialMs,
  containerRestartBackoffMaxMs,
  containerRestartBackoffResetMs,
} from "../kubelet/constants.ts";
import type { Clock, Timer } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { csiDriverSocketPath, pluginsRegistryDir } from "../volume/paths.ts";

/** How long a plugin gets to stop on SIGTERM before SIGKILL. */
export const csiPluginStopGracePeriodMs = 10_000;
/** How often a stopping plugin is checked. */
const stopPollIntervalMs = 100;
/** How long a killed plugin cgroup gets to empty before it is left for the next stop. */
const cgroupEmptyTimeoutMs = 10_000;
/** The shell that joins a cgroup and then becomes the plugin: not one instruction runs outside it. */
const joinCgroupThenExec = 'echo $$ > "$0/cgroup.procs" && exec "$@"';
const posixShell = "/bin/sh";

export interface NodeCsiPluginsOptions {
  /** The bundled drivers whose node plugins run here. */
  driverNames: readonly string[];
  nodeName: string;
  /** The kubelet's --root-dir. */
  rootDir: string;
  /** Pid and log files of the plugins. */
  pluginsDir: string;
  /** Each driver's state directory (shared with its controller on this machine). */
  stateDirOf: (driverName: string) => string;
  /** Where each plugin gets a cgroup of its own, `<dir>/<driver>`; without it they share the agent's. */
  cgroupDir?: string;
  /** The API server, for the plugins that re-establish mounts on restart (fuse.csi.kvol.io). */
  apiAccess?: { serverUrl: string; tokenFile: string; caFile?: string };
  /** `--max-volumes-per-node` for every plugin: its NodeGetInfo max_volumes_per_node (each driver's default when absent). */
  maxVolumesPerNode?: number;
  /** disk.csi.kvol.io's plugin attaches a loop device per disk and node (`--fenceable`), as its controller must. */
  fenceableDisks?: boolean;
  /** The command that runs kvol: program and leading arguments (this process's node, tsx and script). */
  kvolCommand: readonly string[];
  clock: Clock;
  logger: Logger;
  /** The restart back-off: the kubelet's container restart back-off unless a test shortens it. */
  restartBackoff?: { initialMs: number; maxMs: number };
}

interface RunningPlugin {
  driverName: string;
  pid: number;
  /** Set for a plugin this agent started (an adopted one is not its child). */
  child?: ChildProcess;
}

export class NodeCsiPlugins {
  private readonly running = new Map<string, RunningPlugin>();
  /** Restarts so far by driver, for the back-off; reset after a long enough run. */
  private readonly restarts = new Map<string, number>();
  private readonly restartTimers = new Map<string, Timer>();
  private stopping = false;

  constructor(private readonly options: NodeCsiPluginsOptions) {}

  /** Adopts or starts each plugin; does not wait for them to register. */
  async start(): Promise<void> {
    await mkdir(this.options.pluginsDir, { recursive: true, mode: 0o750 });
    for (const driverName of this.options.driverNames) {
      const left = await this.leftRunning(driverName);
      if (left !== undefined && (await inOurMountNamespace(left))) {
        this.running.set(driverName, { driverName, pid: left });
        this.options.logger.info("Adopted the CSI node plugin a previous node agent left running", {
          driver: driverName,
          pid: left,
        });
        continue;
      }
      if (left !== undefined) {
        this.options.logger.info("Stopping a CSI node plugin left running in another mount namespace", {
          driver: driverName,
          pid: left,
        });
        await this.terminate(left);
      }
      await this.launch(driverName);
    }
  }

  /** SIGTERM to every plugin (their registration sockets go, then they stop), SIGKILL after the grace period. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.restartTimers.values()) timer.cancel();
    this.restartTimers.clear();
    await Promise.all(
      [...this.running.values()].map(async (plugin) => {
        await this.terminate(plugin.pid);
        await rm(this.pidFile(plugin.driverName), { force: true });
      }),
    );
    this.running.clear();
    for (const driverName of this.options.driverNames) await this.emptyCgroup(driverName, { remove: true });
    const { cgroupDir } = this.options;
    if (cgroupDir !== undefined && !(await this.removeCgroupPatiently(cgroupDir))) {
      this.options.logger.warn("The CSI node plugins' cgroup could not be removed", { cgroup: cgroupDir });
    }
  }

  /** The cgroup of the driver's plugin, when plugins get their own. */
  cgroupOf(driverName: string): string | undefined {
    return this.options.cgroupDir === undefined ? undefined : join(this.options.cgroupDir, driverName);
  }

  /** Kills what is left in the plugin's cgroup and waits until it is empty; removes it when asked. */
  private async emptyCgroup(driverName: string, { remove = false } = {}): Promise<void> {
    const cgroup = this.cgroupOf(driverName);
    if (cgroup === undefined) return;
    if ((await cgroupPids(cgroup)).length > 0) {
      await killCgroup(cgroup);
      const { clock } = this.options;
      const deadlineMs = clock.now() + cgroupEmptyTimeoutMs;
      while ((await cgroupPids(cgroup)).length > 0 && clock.now() < deadlineMs) await clock.sleep(stopPollIntervalMs);
    }
    if (remove && !(await this.removeCgroupPatiently(cgroup))) {
      this.options.logger.warn("A CSI node plugin's cgroup still holds processes after SIGKILL", { cgroup });
    }
  }

  /**
   * Removes a cgroup, retrying while the kernel answers EBUSY: a cgroup whose last process has
   * just been reaped can stay populated for a moment after `cgroup.procs` reads empty.
   */
  private async removeCgroupPatiently(dir: string): Promise<boolean> {
    const { clock } = this.options;
    const deadlineMs = clock.now() + cgroupEmptyTimeoutMs;
    while (!(await removeCgroup(dir))) {
      if (clock.now() >= deadlineMs) return false;
      await clock.sleep(stopPollIntervalMs);
    }
    return true;
  }

  /** `--server`, `--certificate-authority`, `--token-file` and `--kubelet-root-dir` for a plugin that re-establishes its mounts. */
  private apiArguments(driverName: string): string[] {
    const access = this.options.apiAccess;
    if (access === undefined || driverName !== fuseDriverName) return [];
    const ca = access.caFile === undefined ? [] : ["--certificate-authority", access.caFile];
    return [
      ...["--server", access.serverUrl, ...ca, "--token-file", access.tokenFile],
      ...["--kubelet-root-dir", this.options.rootDir],
    ];
  }

  /** `--max-volumes-per-node` and, for the disk driver, `--fenceable`, when the node was given them. */
  private limitArguments(driverName: string): string[] {
    const { maxVolumesPerNode, fenceableDisks } = this.options;
    return [
      ...(maxVolumesPerNode === undefined ? [] : ["--max-volumes-per-node", String(maxVolumesPerNode)]),
      ...(fenceableDisks === true && driverName === diskDriverName ? ["--fenceable"] : []),
    ];
  }

  /** The process ids of the plugins running now, by driver. */
  pids(): Map<string, number> {
    return new Map([...this.running.values()].map((plugin) => [plugin.driverName, plugin.pid]));
  }

  private pidFile(driverName: string): string {
    return join(this.options.pluginsDir, `${driverName}.pid`);
  }

  private logFile(driverName: string): string {
    return join(this.options.pluginsDir, `${driverName}.log`);
  }

  /** The pid in the driver's pid file when that process is alive and is this driver's plugin. */
  private async leftRunning(driverName: string): Promise<number | undefined> {
    let pid: number;
    try {
      pid = Number((await readFile(this.pidFile(driverName), "utf8")).trim());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    if (!(await isProcessAlive(pid))) return undefined;
    const socket = csiDriverSocketPath(this.options.rootDir, driverName);
    // A recycled pid belongs to some other program: its command line does not name this socket.
    return (await commandLineOf(pid)).includes(`unix://${socket}`) ? pid : undefined;
  }

  private async launch(driverName: string): Promise<void> {
    const { kvolCommand, rootDir, nodeName, logger } = this.options;
    const [program, ...leading] = kvolCommand;
    if (program === undefined) throw new Error("kvolCommand is empty");
    const args = [
      ...leading,
      "csi-driver",
      driverName,
      "--endpoint",
      `unix://${csiDriverSocketPath(rootDir, driverName)}`,
      "--node-id",
      nodeName,
      "--state-dir",
      this.options.stateDirOf(driverName),
      "--registration-dir",
      pluginsRegistryDir(rootDir),
      ...this.apiArguments(driverName),
      ...this.limitArguments(driverName),
    ];
    const cgroup = this.cgroupOf(driverName);
    if (cgroup !== undefined) await mkdir(cgroup, { recursive: true });
    const [command, commandArgs] =
      cgroup === undefined ? [program, args] : [posixShell, ["-c", joinCgroupThenExec, cgroup, program, ...args]];
    const log = openSync(this.logFile(driverName), "a");
    let child: ChildProcess;
    try {
      // detached: a session and process group of its own, so the agent's death (or its terminal's
      // Ctrl-C) does not reach it; output to a file, so no pipe breaks when the agent is gone.
      child = spawn(command, commandArgs, { detached: true, stdio: ["ignore", log, log] });
    } finally {
      closeSync(log);
    }
    child.unref();
    const startedAtMs = this.options.clock.now();
    const pid = child.pid;
    if (pid === undefined) throw new Error(`could not start the CSI node plugin ${driverName}`);
    this.running.set(driverName, { driverName, pid, child });
    child.once("exit", (code, signal) => {
      if (this.stopping) return;
      this.running.delete(driverName);
      void rm(this.pidFile(driverName), { force: true }).catch((error: unknown) =>
        logger.warn("Could not remove a CSI node plugin's pid file", { driver: driverName, error }),
      );
      // The plugin's container is gone: whatever it left in its cgroup (FUSE daemons) goes with it.
      const emptied = this.emptyCgroup(driverName).catch((error: unknown) =>
        logger.warn("Could not empty a CSI node plugin's cgroup", { driver: driverName, error }),
      );
      const delayMs = this.restartDelayMs(driverName, this.options.clock.now() - startedAtMs);
      logger.warn("CSI node plugin exited; starting it again after the back-off (its log says why)", {
        driver: driverName,
        status: code ?? signal,
        backoffMs: delayMs,
        log: this.logFile(driverName),
      });
      this.restartTimers.set(
        driverName,
        this.options.clock.setTimer(delayMs, () => {
          this.restartTimers.delete(driverName);
          if (this.stopping) return;
          emptied
            .then(() => (this.stopping ? undefined : this.launch(driverName)))
            .catch((error: unknown) =>
              logger.error("Could not start CSI node plugin again", { driver: driverName, error }),
            );
        }),
      );
    });
    // After the exit listener: a plugin that cannot run may be gone before the pid file is written.
    await writeFile(this.pidFile(driverName), `${pid}\n`);
    logger.info("Started CSI node plugin", { driver: driverName, pid, log: this.logFile(driverName) });
  }

  /** Doubling from the initial delay per restart, at most the maximum; a long run starts over. */
  private restartDelayMs(driverName: string, ranMs: number): number {
    const initialMs = this.options.restartBackoff?.initialMs ?? containerRestartBackoffInitialMs;
    const maxMs = this.options.restartBackoff?.maxMs ?? containerRestartBackoffMaxMs;
    const previous = ranMs >= containerRestartBackoffResetMs ? 0 : (this.restarts.get(driverName) ?? 0);
    this.restarts.set(driverName, previous + 1);
    return Math.min(initialMs * 2 ** Math.min(previous, 30), maxMs);
  }

  /** SIGTERM, then SIGKILL once the grace period is over; resolves when the process is gone. */
  private async terminate(pid: number): Promise<void> {
    const { clock } = this.options;
    signal(pid, "SIGTERM");
    const deadlineMs = clock.now() + csiPluginStopGracePeriodMs;
    while (await isProcessAlive(pid)) {
      if (clock.now() >= deadlineMs) {
        signal(pid, "SIGKILL");
        if (!(await isProcessAlive(pid))) break;
      }
      await clock.sleep(stopPollIntervalMs);
    }
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

async function commandLineOf(pid: number): Promise<string> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").join(" ");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

/** Whether `pid` shares this process's mount namespace (so its mounts are this node's). */
async function inOurMountNamespace(pid: number): Promise<boolean> {
  const [ours, theirs] = await Promise.all([readlink("/proc/self/ns/mnt"), readlink(`/proc/${pid}/ns/mnt`)]);
  return ours === theirs;
}

/**
 * A CSI node plugin still running from an earlier agent of this node, whose mount namespace the
 * node's mounts live in: a restarted agent enters it (`nsenter -t PID -m`) rather than making a new
 * one, so the mounts its predecessor and the plugins made stay visible to it.
 */
export async function nodeNamespaceHolder(pluginsDir: string): Promise<number | undefined> {
  let names: string[];
  try {
    names = await readdir(pluginsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  for (const name of names.filter((entry) => entry.endsWith(".pid")).sort()) {
    const pid = Number((await readFile(join(pluginsDir, name), "utf8")).trim());
    if (!(await isProcessAlive(pid))) continue;
    if ((await commandLineOf(pid)).includes(" csi-driver ")) return pid;
  }
  return undefined;
}
