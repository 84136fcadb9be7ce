/**
 * Daemons a node agent starts (FUSE servers, helpers), in one of two scopes:
 *
 * - "own": must outlive the agent, as a FUSE daemon started through `systemd-run --scope` outlives
 *   a kubelet restart. With systemd as PID 1 it runs in a transient scope; otherwise it gets its own
 *   session (so a kill of the agent's process group misses it) and its own cgroup v2 directory (so a
 *   kill of the agent's cgroup misses it too). A shell joins the cgroup and then execs the daemon,
 *   so not one instruction of the daemon runs in the agent's cgroup.
 * - "agent": a plain child in the agent's process group and cgroup, which dies with the agent.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type DaemonSpec, HostError, type MountInfo, type ProcessInfo } from "../host.ts";
import {
  cgroupPids,
  daemonCgroupName,
  findCgroup2Mount,
  removeCgroupIfEmpty,
  sweepOrphanDaemonCgroups,
} from "./cgroup.ts";
import { posixShellPath, procInitCommPath, systemdInitName } from "./constants.ts";
import { hostErrnoOf } from "./errno.ts";
import { isProcessAlive } from "./process-state.ts";

/** Joins the cgroup given as $1, then becomes the daemon; a failed join is reported but does not stop it. */
/**
 * Joins the cgroup given as $1, reports on stdout whether that worked, then becomes the daemon with
 * stdout on /dev/null (which closes the report pipe). A failed join does not stop the daemon.
 */
const joinCgroupThenExecScript =
  'if echo $$ > "$1/cgroup.procs"; then echo joined; else echo "could not join cgroup $1"; fi; shift; exec "$@" >/dev/null';
/** The wrapper's report of a successful join. */
const cgroupJoinedReport = "joined";

interface TrackedDaemon {
  info: ProcessInfo;
  child: ChildProcess;
  /** Settles once the process has exited and been reaped. */
  exited: Promise<void>;
  /** The cgroup made for this daemon, removed when it exits. */
  cgroupDir?: string;
}

interface Launch {
  command: string;
  args: string[];
  detached: boolean;
  cgroupDir?: string;
}

interface DaemonSupervisorOptions {
  env: NodeJS.ProcessEnv;
  readMountInfo: () => Promise<MountInfo[]>;
  warn: (message: string) => void;
}

export class DaemonSupervisor {
  private readonly options: DaemonSupervisorOptions;
  private readonly tracked = new Map<number, TrackedDaemon>();
  private cgroupSequence = 0;
  private systemdInit: Promise<boolean> | undefined;

  constructor(options: DaemonSupervisorOptions) {
    this.options = options;
  }

  async start(spec: DaemonSpec): Promise<ProcessInfo> {
    const launch = spec.scope === "agent" ? this.agentLaunch(spec) : await this.ownScopeLaunch(spec);
    let child: ChildProcess;
    try {
      child = await spawnStarted(launch, this.options.env);
      if (launch.cgroupDir !== undefined) await this.awaitCgroupJoin(child, launch.cgroupDir, spec.name);
    } catch (error) {
      if (launch.cgroupDir !== undefined) await removeCgroupIfEmpty(launch.cgroupDir);
      throw error;
    }
    const pid = child.pid as number;
    const info: ProcessInfo = {
      pid,
      name: spec.name,
      command: spec.command,
      args: [...spec.args],
      scope: spec.scope,
      ...(spec.agent === undefined ? {} : { agent: spec.agent }),
    };
    // Settles only after the bookkeeping (and the cgroup's removal), so a caller that awaited the
    // exit finds nothing of the daemon left.
    const exited = new Promise<void>((resolve) => child.once("exit", () => void this.forget(pid).then(resolve)));
    const daemon: TrackedDaemon = {
      info,
      child,
      exited,
      ...(launch.cgroupDir === undefined ? {} : { cgroupDir: launch.cgroupDir }),
    };
    this.tracked.set(pid, daemon);
    child.unref();
    return info;
  }

  /** The started daemons still alive; dead ones are dropped and their cgroups removed. */
  async list(): Promise<ProcessInfo[]> {
    const alive: ProcessInfo[] = [];
    for (const [pid, daemon] of [...this.tracked]) {
      if (await isProcessAlive(pid)) alive.push({ ...daemon.info, args: [...daemon.info.args] });
      else await this.forget(pid);
    }
    return alive;
  }

  /**
   * For a daemon this supervisor started: settles when it has exited (undefined for any other pid).
   * The daemon keeps the event loop alive meanwhile, so the wait cannot be cut short by an idle loop.
   */
  exitOf(pid: number): Promise<void> | undefined {
    const daemon = this.tracked.get(pid);
    if (daemon === undefined) return undefined;
    daemon.child.ref();
    return daemon.exited;
  }

  /** The cgroup v2 directory a started daemon runs in, if one was made for it. */
  cgroupOf(pid: number): string | undefined {
    return this.tracked.get(pid)?.cgroupDir;
  }

  /** Removes empty daemon cgroups of agents that have exited. */
  async sweepOrphanCgroups(): Promise<string[]> {
    const cgroup2Mount = findCgroup2Mount(await this.options.readMountInfo());
    if (cgroup2Mount === undefined) return [];
    return sweepOrphanDaemonCgroups(cgroup2Mount, isProcessAlive);
  }

  private agentLaunch(spec: DaemonSpec): Launch {
    return { command: spec.command, args: [...spec.args], detached: false };
  }

  private async ownScopeLaunch(spec: DaemonSpec): Promise<Launch> {
    if (await this.hasSystemdInit()) {
      const scopeArgs = ["--scope", "--quiet", `--description=kvol daemon ${spec.name}`, "--"];
      return { command: "systemd-run", args: [...scopeArgs, spec.command, ...spec.args], detached: true };
    }
    const cgroupDir = await this.makeDaemonCgroup(spec.name);
    if (cgroupDir === undefined) return { command: spec.command, args: [...spec.args], detached: true };
    const shellArgs = ["-c", joinCgroupThenExecScript, "sh", cgroupDir, spec.command, ...spec.args];
    return { command: posixShellPath, args: shellArgs, detached: true, cgroupDir };
  }

  /** A fresh cgroup v2 directory, or undefined (with a warning) where none can be made. */
  private async makeDaemonCgroup(daemonName: string): Promise<string | undefined> {
    const cgroup2Mount = findCgroup2Mount(await this.options.readMountInfo());
    if (cgroup2Mount === undefined) {
      this.options.warn(`no cgroup2 hierarchy is mounted; daemon ${daemonName} gets its own session only`);
      return undefined;
    }
    if (this.cgroupSequence === 0) await this.sweepOrphanCgroups();
    this.cgroupSequence += 1;
    const dir = join(cgroup2Mount, daemonCgroupName(process.pid, this.cgroupSequence));
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      this.options.warn(`cannot create cgroup ${dir} for daemon ${daemonName}, it gets its own session only: ${error}`);
      return undefined;
    }
  }

  /**
   * Waits for the wrapper's report, so the daemon is in its cgroup before startDaemon returns: a
   * kill of the agent's cgroup right afterwards must already miss it.
   */
  private async awaitCgroupJoin(child: ChildProcess, cgroupDir: string, daemonName: string): Promise<void> {
    const report = await firstLineOf(child);
    if (report !== cgroupJoinedReport) {
      this.options.warn(`daemon ${daemonName} runs outside its cgroup ${cgroupDir}: ${report || "no report"}`);
    }
  }

  private hasSystemdInit(): Promise<boolean> {
    this.systemdInit ??= readFile(procInitCommPath, "utf8").then(
      (comm) => comm.trim() === systemdInitName,
      (error: unknown) => {
        this.options.warn(`cannot read ${procInitCommPath}, assuming no systemd: ${error}`);
        return false;
      },
    );
    return this.systemdInit;
  }

  private async forget(pid: number): Promise<void> {
    const daemon = this.tracked.get(pid);
    if (daemon === undefined) return;
    this.tracked.delete(pid);
    if (daemon.cgroupDir === undefined) return;
    try {
      if ((await cgroupPids(daemon.cgroupDir)).length === 0) await removeCgroupIfEmpty(daemon.cgroupDir);
    } catch (error) {
      this.options.warn(`cannot remove cgroup ${daemon.cgroupDir} of exited daemon ${daemon.info.name}: ${error}`);
    }
  }
}

/** Spawns and resolves once the process exists (or rejects with the exec error). */
function spawnStarted(launch: Launch, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // Only the cgroup wrapper writes to stdout (its join report); every daemon's own output is dropped.
    const stdout = launch.cgroupDir === undefined ? "ignore" : "pipe";
    const child = spawn(launch.command, launch.args, {
      env,
      detached: launch.detached,
      stdio: ["ignore", stdout, "ignore"],
    });
    child.once("spawn", () => resolve(child));
    child.once("error", (error: NodeJS.ErrnoException) => {
      reject(new HostError(hostErrnoOf(error.code) ?? "EINVAL", "exec", launch.command, error.message));
    });
  });
}

/** The first line the child writes to stdout ("" if it closes stdout or exits first); stdout is closed after. */
function firstLineOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    const finish = () => {
      child.stdout?.destroy();
      resolve(text.split("\n")[0] ?? "");
    };
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes("\n")) finish();
    });
    child.stdout?.once("close", finish);
  });
}
