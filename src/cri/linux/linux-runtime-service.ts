/**
 * A CRI runtime made of plain Linux processes: each container is a process tree in its own PID,
 * mount and UTS namespaces and its own cgroup v2, pivot_rooted into its image's root filesystem
 * (container-setup-script.ts), with its volumes bound in. stdout and stderr go to the container's
 * log file in CRI format. Container processes are started in a session of their own, so a signal
 * to the agent's process group does not reach them.
 *
 * Kept on disk under `stateDir`: `<id>/rootfs` (the mount point, mounted only inside the
 * container's namespace), `<id>/upper` and `<id>/work` (its writable layer).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { readMountInfo } from "../../host/linux/mount-info-reader.ts";
import { isPathWithin } from "../../host/mount/mount-points.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Rng } from "../../runtime/rng.ts";
import { type Image, ImageNotFoundError, type ImageStore } from "../images/image-store.ts";
import {
  type ContainerConfig,
  type ContainerExitHandler,
  type ContainerStatus,
  type ExecRequest,
  type ExecSession,
  type ExecSyncResponse,
  type PodSandboxConfig,
  RuntimeError,
  type RuntimeService,
} from "../runtime-service.ts";
import { cgroupPids, killCgroup, makeCgroup, namespaceInitPid, removeCgroup } from "./container-cgroup.ts";
import { containerArgv, containerEnv } from "./container-command.ts";
import { ContainerLogWriter } from "./container-log-writer.ts";
import { containerSetupCommand, readyLine, type SetupTools } from "./container-setup-script.ts";
import { shellQuote } from "./shell-quote.ts";

/** Exit code and reason of a container whose setup failed before its command ran (runc's). */
const startErrorExitCode = 128;
/** Output of ExecSync kept per stream; the rest is dropped. */
export const maxExecOutputBytes = 1024 * 1024;
/** After SIGKILL, how long to wait for the processes to be gone before giving up. */
const killWaitMs = 10_000;
/** Polls of an emptied cgroup before it can be removed (its processes are being reaped). */
const cgroupRemoveAttempts = 50;
const cgroupRemovePollMs = 20;

export interface LinuxRuntimeServiceOptions {
  clock: Clock;
  rng: Rng;
  images: ImageStore;
  /** Where containers' writable layers live. */
  stateDir: string;
  /** The cgroup v2 directory under which pods get theirs (`<cgroup2>/kvol/<node>`). */
  cgroupRoot: string;
  tools: SetupTools & { nsenter: string };
}

interface Sandbox {
  id: string;
  config: PodSandboxConfig;
  cgroupDir: string;
  containers: Set<string>;
}

interface ContainerRecord {
  status: ContainerStatus;
  sandbox: Sandbox;
  config: ContainerConfig;
  image: Image;
  dir: string;
  cgroupDir: string;
  env: Record<string, string>;
  argv: string[];
  child?: ChildProcess;
  exited?: Promise<void>;
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal === null ? 0 : constants.signals[signal]);
}

function readAll(stream: Readable, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      if (size >= limitBytes) return;
      chunks.push(chunk.subarray(0, limitBytes - size));
      size += chunk.length;
    });
    stream.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * The setup's report on fd 3: settles at the "ready" line (unshare, which waits for the container,
 * keeps the pipe open, so its end never comes while the container runs) or when the pipe closes.
 * The pipe stays read to its end: unshare's own stderr is on it.
 */
function readSetupReport(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      if (text.length < maxExecOutputBytes) text += chunk.toString("utf8");
      if (text.split("\n").includes(readyLine)) resolve(text);
    });
    stream.on("close", () => resolve(text));
  });
}

export class LinuxRuntimeService implements RuntimeService {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly containers = new Map<string, ContainerRecord>();
  private readonly exitHandlers = new Set<ContainerExitHandler>();

  constructor(private readonly options: LinuxRuntimeServiceOptions) {}

  onContainerExit(handler: ContainerExitHandler): () => void {
    this.exitHandlers.add(handler);
    return () => this.exitHandlers.delete(handler);
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    const id = this.newId();
    const cgroupDir = join(this.options.cgroupRoot, `pod${config.metadata.uid}`);
    await makeCgroup(cgroupDir);
    await mkdir(config.logDirectory, { recursive: true, mode: 0o755 });
    this.sandboxes.set(id, { id, config, cgroupDir, containers: new Set() });
    return id;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    const sandbox = this.sandbox(podSandboxId);
    await Promise.all([...sandbox.containers].map((id) => this.stopContainer(id, 0)));
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    const sandbox = this.sandboxes.get(podSandboxId);
    if (sandbox === undefined) return;
    for (const id of [...sandbox.containers]) await this.removeContainer(id);
    await this.removeCgroupWhenEmpty(sandbox.cgroupDir);
    await rm(sandbox.config.logDirectory, { recursive: true, force: true });
    this.sandboxes.delete(podSandboxId);
  }

  async createContainer(podSandboxId: string, config: ContainerConfig): Promise<string> {
    const sandbox = this.sandbox(podSandboxId);
    let image: Image;
    try {
      image = await this.options.images.resolve(config.image);
    } catch (error) {
      if (error instanceof ImageNotFoundError) throw new RuntimeError("NotFound", error.message);
      throw error;
    }
    const argv = containerArgv(image.config, config.command, config.args);
    if (argv.length === 0) throw new RuntimeError("InvalidArgument", "no command specified");
    const id = this.newId();
    const dir = join(this.options.stateDir, id);
    for (const sub of ["rootfs", "upper", "work"]) await mkdir(join(dir, sub), { recursive: true });
    const logPath = join(sandbox.config.logDirectory, config.logPath);
    await mkdir(dirname(logPath), { recursive: true });
    const status: ContainerStatus = {
      id,
      podSandboxId,
      name: config.metadata.name,
      attempt: config.metadata.attempt,
      state: "CONTAINER_CREATED",
      image: image.name,
      createdAtMs: this.options.clock.now(),
      startedAtMs: 0,
      finishedAtMs: 0,
      exitCode: 0,
      reason: "",
      message: "",
      logPath,
    };
    const env = containerEnv(image.config, config.envs, sandbox.config.hostname);
    const record: ContainerRecord = {
      status,
      sandbox,
      config,
      image,
      dir,
      cgroupDir: join(sandbox.cgroupDir, id),
      env,
      argv,
    };
    this.containers.set(id, record);
    sandbox.containers.add(id);
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    const record = this.container(containerId);
    if (record.status.state !== "CONTAINER_CREATED") {
      throw new RuntimeError("FailedPrecondition", `container ${containerId} is ${record.status.state}, not created`);
    }
    await makeCgroup(record.cgroupDir);
    const { command, args } = containerSetupCommand(
      this.options.tools,
      {
        cgroupDir: record.cgroupDir,
        hostname: record.sandbox.config.hostname,
        imageRootfs: record.image.rootfs,
        containerDir: record.dir,
        mounts: record.config.mounts,
        devices: record.config.devices,
        workingDir: record.config.workingDir || record.image.config.workingDir || "/",
      },
      record.argv,
    );
    const child = spawn(command, args, {
      env: record.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    record.child = child;
    const log = new ContainerLogWriter(record.status.logPath, this.options.clock);
    log.attach("stdout", child.stdout as Readable);
    log.attach("stderr", child.stderr as Readable);
    const setupReport = readSetupReport(child.stdio[3] as Readable);
    const isReady = (report: string) => report.split("\n").includes(readyLine);
    record.exited = new Promise((resolve) => {
      child.on("close", (code, signal) => {
        void Promise.all([log.closed, setupReport]).then(([, report]) => {
          if (isReady(report)) {
            this.markRunning(record);
            this.markExited(record, exitCodeOf(code, signal));
          } else {
            this.markStartFailed(record, report);
          }
          resolve();
        });
      });
      child.on("error", (error) => {
        record.status.message = error.message;
      });
    });
    if (isReady(await setupReport)) {
      this.markRunning(record);
      return;
    }
    await record.exited;
    throw new RuntimeError(
      "Unknown",
      `failed to start container "${record.config.metadata.name}": ${record.status.message}`,
    );
  }

  async stopContainer(containerId: string, timeoutMs: number): Promise<void> {
    const record = this.container(containerId);
    if (record.status.state !== "CONTAINER_RUNNING" || record.exited === undefined) return;
    if (timeoutMs > 0) {
      const init = await namespaceInitPid(record.cgroupDir);
      if (init !== undefined) signal(init, "SIGTERM");
      if ((await this.exitsWithin(record, timeoutMs)) && (await this.cgroupEmptiesWithin(record, killWaitMs))) return;
    }
    // SIGKILL to PID 1 of the namespace takes every process of it along, and unshare, its parent,
    // reaps it; only then the cgroup's stragglers (none, unless something left the namespace).
    const init = await namespaceInitPid(record.cgroupDir);
    if (init !== undefined) signal(init, "SIGKILL");
    if (init === undefined || !(await this.exitsWithin(record, killWaitMs))) await killCgroup(record.cgroupDir);
    if (!(await this.exitsWithin(record, killWaitMs)) || !(await this.cgroupEmptiesWithin(record, killWaitMs))) {
      throw new RuntimeError(
        "DeadlineExceeded",
        `container ${containerId} did not exit ${killWaitMs} ms after SIGKILL`,
      );
    }
  }

  async removeContainer(containerId: string): Promise<void> {
    const record = this.containers.get(containerId);
    if (record === undefined) return;
    await this.stopContainer(containerId, 0);
    await this.removeCgroupWhenEmpty(record.cgroupDir);
    // The rootfs is mounted only inside the container's namespace; never delete through a mount.
    const mounted = (await readMountInfo()).filter((mount) => isPathWithin(mount.mountPoint, record.dir));
    if (mounted.length > 0) {
      throw new RuntimeError(
        "FailedPrecondition",
        `container ${containerId}: ${mounted[0]?.mountPoint} is still mounted; not removing ${record.dir}`,
      );
    }
    await rm(record.dir, { recursive: true, force: true });
    record.sandbox.containers.delete(containerId);
    this.containers.delete(containerId);
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    return { ...this.container(containerId).status };
  }

  async listContainers(podSandboxId?: string): Promise<ContainerStatus[]> {
    return [...this.containers.values()]
      .filter((record) => podSandboxId === undefined || record.status.podSandboxId === podSandboxId)
      .map((record) => ({ ...record.status }));
  }

  async execSync(containerId: string, cmd: readonly string[], timeoutMs: number): Promise<ExecSyncResponse> {
    const record = this.container(containerId);
    const init = record.status.state === "CONTAINER_RUNNING" ? await namespaceInitPid(record.cgroupDir) : undefined;
    if (init === undefined) throw new RuntimeError("FailedPrecondition", `container ${containerId} is not running`);
    if (cmd.length === 0) throw new RuntimeError("InvalidArgument", "exec command is empty");
    const child = spawn("/bin/sh", ["-c", this.joinThenEnter(record, init), "kvol-exec", ...cmd], {
      env: record.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = readAll(child.stdout, maxExecOutputBytes);
    const stderr = readAll(child.stderr, maxExecOutputBytes);
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? this.options.clock.setTimer(timeoutMs, () => {
            timedOut = true;
            // The whole process group: nsenter and the command it forked inside the container.
            signal(-(child.pid as number), "SIGKILL");
          })
        : undefined;
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code, sig) => resolve(exitCodeOf(code, sig)));
    });
    timer?.cancel();
    if (timedOut) {
      throw new RuntimeError("DeadlineExceeded", `command ${JSON.stringify(cmd)} timed out after ${timeoutMs} ms`);
    }
    return { stdout: await stdout, stderr: await stderr, exitCode };
  }

  async exec(containerId: string, request: ExecRequest): Promise<ExecSession> {
    const record = this.container(containerId);
    const init = record.status.state === "CONTAINER_RUNNING" ? await namespaceInitPid(record.cgroupDir) : undefined;
    if (init === undefined) throw new RuntimeError("FailedPrecondition", `container ${containerId} is not running`);
    if (request.cmd.length === 0) throw new RuntimeError("InvalidArgument", "exec command is empty");
    const script = this.joinThenEnter(record, init, request.tty ? request.cmd : undefined);
    const child = spawn("/bin/sh", ["-c", script, "kvol-exec", ...request.cmd], {
      env: request.tty ? { TERM: "xterm", ...record.env } : record.env,
      detached: true,
      stdio: [request.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code, sig) => resolve(exitCodeOf(code, sig)));
    });
    return {
      ...(child.stdin === null ? {} : { stdin: child.stdin }),
      stdout: child.stdout as Readable,
      stderr: child.stderr as Readable,
      exited,
      kill: () => {
        if (child.exitCode === null && child.signalCode === null) signal(-(child.pid as number), "SIGKILL");
      },
    };
  }

  /**
   * The shell program that joins the container's cgroup, then enters its namespaces and root
   * (`nsenter --root --wd`) and execs its arguments; on a terminal (util-linux `script`) for a tty.
   */
  private joinThenEnter(record: ContainerRecord, init: number, ttyCommand?: readonly string[]): string {
    const enter = `${shellQuote(this.options.tools.nsenter)} --target ${init} --mount --uts --pid --net --root --wd --`;
    const direct = `exec ${enter} "$@"`;
    const run =
      ttyCommand === undefined
        ? direct
        : `command -v script >/dev/null && exec script --quiet --return --command ${shellQuote(`${enter} ${ttyCommand.map(shellQuote).join(" ")}`)} /dev/null\n${direct}`;
    return [`echo $$ > ${shellQuote(`${record.cgroupDir}/cgroup.procs`)} || exit 126`, run].join("\n");
  }

  private markRunning(record: ContainerRecord): void {
    if (record.status.state !== "CONTAINER_CREATED") return;
    record.status.state = "CONTAINER_RUNNING";
    record.status.startedAtMs = this.options.clock.now();
  }

  /** The setup failed before the command ran: runc's StartError, exit code 128. */
  private markStartFailed(record: ContainerRecord, report: string): void {
    record.status.reason = "StartError";
    record.status.message = report.trim() || "container setup exited before the command started";
    this.markExited(record, startErrorExitCode);
  }

  private markExited(record: ContainerRecord, exitCode: number): void {
    const status = record.status;
    status.state = "CONTAINER_EXITED";
    status.finishedAtMs = this.options.clock.now();
    status.exitCode = exitCode;
    if (status.reason !== "StartError") status.reason = exitCode === 0 ? "Completed" : "Error";
    record.child = undefined;
    for (const handler of this.exitHandlers) handler({ ...status });
  }

  private async exitsWithin(record: ContainerRecord, timeoutMs: number): Promise<boolean> {
    if (record.exited === undefined) return true;
    let timer: { cancel(): void } | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = this.options.clock.setTimer(timeoutMs, () => resolve(false));
    });
    const exited = await Promise.race([record.exited.then(() => true as const), timeout]);
    timer?.cancel();
    return exited;
  }

  private async cgroupEmptiesWithin(record: ContainerRecord, timeoutMs: number): Promise<boolean> {
    for (let waitedMs = 0; waitedMs <= timeoutMs; waitedMs += cgroupRemovePollMs) {
      if ((await cgroupPids(record.cgroupDir)).length === 0) return true;
      await this.options.clock.sleep(cgroupRemovePollMs);
    }
    return false;
  }

  private async removeCgroupWhenEmpty(dir: string): Promise<void> {
    for (let attempt = 0; attempt < cgroupRemoveAttempts; attempt++) {
      if (await removeCgroup(dir)) return;
      await this.options.clock.sleep(cgroupRemovePollMs);
    }
    throw new RuntimeError("FailedPrecondition", `cgroup ${dir} still holds processes`);
  }

  private sandbox(id: string): Sandbox {
    const sandbox = this.sandboxes.get(id);
    if (sandbox === undefined) throw new RuntimeError("NotFound", `pod sandbox ${id} not found`);
    return sandbox;
  }

  private container(id: string): ContainerRecord {
    const record = this.containers.get(id);
    if (record === undefined) throw new RuntimeError("NotFound", `container ${id} not found`);
    return record;
  }

  private newId(): string {
    let hex = "";
    while (hex.length < 64) hex += this.options.rng.nextUint32().toString(16).padStart(8, "0");
    return hex;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}
