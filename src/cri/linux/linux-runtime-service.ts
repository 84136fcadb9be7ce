/**
 * A CRI runtime made of plain Linux processes: each container is a process tree in its own PID,
 * mount and UTS namespaces and its own cgroup v2, pivot_rooted into its image's root filesystem
 * (container-setup-script.ts), with its volumes bound in. Each container has a monitor process of
 * its own (container-shim.ts) that runs it, writes its stdout and stderr to its log file in CRI
 * format and records its exit; monitor and container are in sessions of their own, so neither a
 * signal to the agent's process group nor the agent's death reaches them.
 *
 * Everything is on disk under `stateDir` (container-state-files.ts): an agent started after
 * another was killed calls `recover()` and finds every sandbox and container again, running ones
 * included, whose exits it then hears about by reading their monitors' reports.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, open, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { LinuxHost } from "../../host/linux/linux-host.ts";
import { readMountInfo } from "../../host/linux/mount-info-reader.ts";
import { isProcessAlive } from "../../host/linux/process-state.ts";
import { isPathWithin } from "../../host/mount/mount-points.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Rng } from "../../runtime/rng.ts";
import { removeAllOneFilesystem } from "../../volume/util/remove-all.ts";
import { type Image, ImageNotFoundError, type ImageStore } from "../images/image-store.ts";
import {
  type ContainerConfig,
  type ContainerExitHandler,
  type ContainerStatus,
  type ExecRequest,
  type ExecSession,
  type ExecSyncResponse,
  type PodSandboxConfig,
  type PodSandboxStatus,
  RuntimeError,
  type RuntimeService,
} from "../runtime-service.ts";
import { cgroupPids, killCgroup, makeCgroup, namespaceInitPid, removeCgroup } from "./container-cgroup.ts";
import { containerArgv, containerEnv } from "./container-command.ts";
import { containerSetupCommand, type SetupTools } from "./container-setup-script.ts";
import { exitCodeOf, shimExitedLine, shimRunningLine } from "./container-shim.ts";
import {
  type ContainerFile,
  containerDirs,
  readContainerFile,
  readSandboxFiles,
  readShimState,
  removeSandboxFile,
  type SandboxFile,
  type ShimState,
  writeContainerFile,
  writeSandboxFile,
} from "./container-state-files.ts";
import { shellQuote } from "./shell-quote.ts";

/** Output of ExecSync kept per stream; the rest is dropped. */
const maxExecOutputBytes = 1024 * 1024;
/** After SIGKILL, how long to wait for the processes to be gone before giving up. */
const killWaitMs = 10_000;
/** Polls of an emptied cgroup before it can be removed (its processes are being reaped). */
const cgroupRemoveAttempts = 50;
const cgroupRemovePollMs = 20;
/**
 * How often the exit of a container this agent did not start is looked for (its monitor is not
 * this process's child): the kubelet's PLEG relists the runtime every second, too.
 */
const adoptedContainerPollMs = 1000;
/** The exit code reported when a container's monitor died without recording the container's exit. */
const lostMonitorExitCode = 255;

/** The monitor's program and the loader that runs TypeScript, as the agent itself is run. */
const shimMainPath = fileURLToPath(new URL("./container-shim-main.ts", import.meta.url));
const typeScriptLoader = import.meta.resolve("tsx");

interface LinuxRuntimeServiceOptions {
  clock: Clock;
  rng: Rng;
  images: ImageStore;
  /** Where containers' state and writable layers live. */
  stateDir: string;
  /** The cgroup v2 directory under which pods get theirs (`<cgroup2>/kvol/<node>`). */
  cgroupRoot: string;
  tools: SetupTools & { nsenter: string };
}

interface Sandbox {
  file: SandboxFile;
  containers: Set<string>;
}

interface ContainerRecord {
  status: ContainerStatus;
  sandbox: Sandbox;
  file: ContainerFile;
  dir: string;
  /** Resolves once the container's exit is recorded; undefined until it was started. */
  exited?: Promise<void>;
  /**
   * The start in flight (or done): a stop waits for it, since until its monitor reports, the
   * container has no process to signal yet and one is about to run.
   */
  starting?: Promise<void>;
}

function readAll(stream: NodeJS.ReadableStream, limitBytes: number): Promise<Buffer> {
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

/** The monitor's first line: it runs, or it has already ended (or the monitor died). */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const line = output.split("\n");
      if (line.length > 1) resolve(line[0] ?? "");
    });
    child.on("close", () => resolve(output.split("\n")[0] ?? ""));
  });
}

/** Whether `pid` is alive and is the monitor of the container in `containerDir` (not a reused pid). */
export async function isMonitorOf(pid: number, containerDir: string): Promise<boolean> {
  if (!(await isProcessAlive(pid))) return false;
  try {
    return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").includes(containerDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

export class LinuxRuntimeService implements RuntimeService {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly containers = new Map<string, ContainerRecord>();
  private readonly exitHandlers = new Set<ContainerExitHandler>();
  /** Recursive removal that never descends into a mount point. */
  private readonly host = new LinuxHost({ nodeName: "container-runtime" });
  private closed = false;

  constructor(private readonly options: LinuxRuntimeServiceOptions) {}

  onContainerExit(handler: ContainerExitHandler): () => void {
    this.exitHandlers.add(handler);
    return () => this.exitHandlers.delete(handler);
  }

  /**
   * Reads back every sandbox and container a previous agent left: running containers stay running
   * (their exits are heard from then on), exited ones keep their exit status.
   */
  async recover(): Promise<void> {
    const { stateDir } = this.options;
    for (const file of await readSandboxFiles(stateDir)) {
      if (!this.sandboxes.has(file.id)) this.sandboxes.set(file.id, { file, containers: new Set() });
    }
    for (const dir of await containerDirs(stateDir)) {
      const file = await readContainerFile(dir);
      if (file === undefined || this.containers.has(file.id)) {
        if (file === undefined) await this.removeLayer(dir);
        continue;
      }
      const sandbox = this.sandboxes.get(file.podSandboxId);
      if (sandbox === undefined) {
        await this.killAndRemoveLeftover(dir, file);
        continue;
      }
      const record: ContainerRecord = { status: this.initialStatus(file), sandbox, file, dir };
      this.containers.set(file.id, record);
      sandbox.containers.add(file.id);
      await this.adoptState(record);
    }
  }

  /** Stops hearing about adopted containers (the agent stops; the containers keep running). */
  close(): void {
    this.closed = true;
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    const id = this.newId();
    const cgroupDir = join(this.options.cgroupRoot, `pod${config.metadata.uid}`);
    await makeCgroup(cgroupDir);
    await mkdir(config.logDirectory, { recursive: true, mode: 0o755 });
    const file: SandboxFile = { id, config, cgroupDir, createdAtMs: this.options.clock.now() };
    await writeSandboxFile(this.options.stateDir, file);
    this.sandboxes.set(id, { file, containers: new Set() });
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
    await this.removeCgroupWhenEmpty(sandbox.file.cgroupDir);
    await removeAllOneFilesystem(this.host, sandbox.file.config.logDirectory);
    await removeSandboxFile(this.options.stateDir, podSandboxId);
    this.sandboxes.delete(podSandboxId);
  }

  async listPodSandbox(): Promise<PodSandboxStatus[]> {
    return [...this.sandboxes.values()].map(({ file }) => ({
      id: file.id,
      metadata: { ...file.config.metadata },
      hostname: file.config.hostname,
      logDirectory: file.config.logDirectory,
      createdAtMs: file.createdAtMs,
    }));
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
    const logPath = join(sandbox.file.config.logDirectory, config.logPath);
    await mkdir(dirname(logPath), { recursive: true });
    const cgroupDir = join(sandbox.file.cgroupDir, id);
    const file: ContainerFile = {
      id,
      podSandboxId,
      config,
      image: image.name,
      createdAtMs: this.options.clock.now(),
      logPath,
      cgroupDir,
      env: containerEnv(image.config, config.envs, sandbox.file.config.hostname),
      spawn: containerSetupCommand(
        this.options.tools,
        {
          cgroupDir,
          hostname: sandbox.file.config.hostname,
          imageRootfs: image.rootfs,
          containerDir: dir,
          mounts: config.mounts,
          devices: config.devices,
          workingDir: config.workingDir || image.config.workingDir || "/",
        },
        argv,
      ),
    };
    await writeContainerFile(dir, file);
    this.containers.set(id, { status: this.initialStatus(file), sandbox, file, dir });
    sandbox.containers.add(id);
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    const record = this.container(containerId);
    if (record.status.state !== "CONTAINER_CREATED" || record.exited !== undefined || record.starting !== undefined) {
      throw new RuntimeError("FailedPrecondition", `container ${containerId} is ${record.status.state}, not created`);
    }
    record.starting = this.launch(record);
    return record.starting;
  }

  /** Runs the container's monitor; resolves once the monitor reports the container running or ended. */
  private async launch(record: ContainerRecord): Promise<void> {
    await makeCgroup(record.file.cgroupDir);
    const monitorLog = await open(join(record.dir, "monitor.log"), "a", 0o600);
    let monitor: ChildProcess;
    try {
      monitor = spawn(process.execPath, ["--import", typeScriptLoader, shimMainPath, record.dir], {
        detached: true,
        stdio: ["ignore", "pipe", monitorLog.fd],
      });
    } finally {
      await monitorLog.close();
    }
    const line = firstLine(monitor);
    record.exited = new Promise((resolve) => {
      monitor.on("close", () => void this.settleFromMonitor(record).then(resolve));
    });
    monitor.on("error", (error) => {
      record.status.message = error.message;
    });
    if ((await line) === shimRunningLine) {
      const state = await readShimState(record.dir);
      this.markRunning(record, state?.phase === "running" ? state.startedAtMs : this.options.clock.now());
      return;
    }
    await record.exited;
    if (record.status.reason !== "StartError" && (await line) === shimExitedLine) return;
    throw new RuntimeError(
      "Unknown",
      `failed to start container "${record.file.config.metadata.name}": ${record.status.message}`,
    );
  }

  async stopContainer(containerId: string, timeoutMs: number): Promise<void> {
    const record = this.container(containerId);
    // A start in flight is let finish (its outcome is the start's caller's to hear), then stopped.
    await record.starting?.catch(() => undefined);
    if (record.status.state !== "CONTAINER_RUNNING" || record.exited === undefined) return;
    const cgroupDir = record.file.cgroupDir;
    if (timeoutMs > 0) {
      const init = await namespaceInitPid(cgroupDir);
      if (init !== undefined) signal(init, "SIGTERM");
      if ((await this.exitsWithin(record, timeoutMs)) && (await this.cgroupEmptiesWithin(cgroupDir, killWaitMs)))
        return;
    }
    // SIGKILL to PID 1 of the namespace takes every process of it along, and unshare, its parent,
    // reaps it; only then the cgroup's stragglers (none, unless something left the namespace).
    const init = await namespaceInitPid(cgroupDir);
    if (init !== undefined) signal(init, "SIGKILL");
    if (init === undefined || !(await this.exitsWithin(record, killWaitMs))) await killCgroup(cgroupDir);
    if (!(await this.exitsWithin(record, killWaitMs)) || !(await this.cgroupEmptiesWithin(cgroupDir, killWaitMs))) {
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
    await this.removeCgroupWhenEmpty(record.file.cgroupDir);
    await this.removeLayer(record.dir);
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
    const cgroupDir = record.file.cgroupDir;
    const init = record.status.state === "CONTAINER_RUNNING" ? await namespaceInitPid(cgroupDir) : undefined;
    if (init === undefined) throw new RuntimeError("FailedPrecondition", `container ${containerId} is not running`);
    if (cmd.length === 0) throw new RuntimeError("InvalidArgument", "exec command is empty");
    const child = spawn("/bin/sh", ["-c", this.joinThenEnter(record, init), "kvol-exec", ...cmd], {
      env: record.file.env,
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
    const init =
      record.status.state === "CONTAINER_RUNNING" ? await namespaceInitPid(record.file.cgroupDir) : undefined;
    if (init === undefined) throw new RuntimeError("FailedPrecondition", `container ${containerId} is not running`);
    if (request.cmd.length === 0) throw new RuntimeError("InvalidArgument", "exec command is empty");
    const script = this.joinThenEnter(record, init, request.tty ? request.cmd : undefined);
    const child = spawn("/bin/sh", ["-c", script, "kvol-exec", ...request.cmd], {
      env: request.tty ? { TERM: "xterm", ...record.file.env } : record.file.env,
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
    return [`echo $$ > ${shellQuote(`${record.file.cgroupDir}/cgroup.procs`)} || exit 126`, run].join("\n");
  }

  private initialStatus(file: ContainerFile): ContainerStatus {
    return {
      id: file.id,
      podSandboxId: file.podSandboxId,
      name: file.config.metadata.name,
      attempt: file.config.metadata.attempt,
      state: "CONTAINER_CREATED",
      // CRI's ContainerStatus.image is the image as asked for, not as resolved.
      image: file.config.image,
      createdAtMs: file.createdAtMs,
      startedAtMs: 0,
      finishedAtMs: 0,
      exitCode: 0,
      reason: "",
      message: "",
      logPath: file.logPath,
      mounts: file.config.mounts.map((mount) => ({ ...mount })),
    };
  }

  /** A recovered container: its monitor's last report, and, while it runs, a watch for its exit. */
  private async adoptState(record: ContainerRecord): Promise<void> {
    const state = await readShimState(record.dir);
    if (state?.phase === "exited") {
      this.applyExit(record, state);
      record.exited = Promise.resolve();
      return;
    }
    const monitorPid = state?.shimPid;
    if (state === undefined || monitorPid === undefined) {
      // Created, never started (or its monitor died before reporting): nothing of it runs.
      if ((await cgroupPids(record.file.cgroupDir).catch(() => [])).length === 0) return;
    }
    this.markRunning(record, state?.startedAtMs ?? record.file.createdAtMs);
    record.exited = this.watchAdopted(record, monitorPid);
  }

  /** Polls the monitor's report until the container exited (or its monitor is gone). */
  private async watchAdopted(record: ContainerRecord, monitorPid: number | undefined): Promise<void> {
    while (!this.closed) {
      const state = await readShimState(record.dir);
      if (state?.phase === "exited") {
        this.markExited(record, state);
        return;
      }
      if (monitorPid === undefined || !(await isMonitorOf(monitorPid, record.dir))) {
        await this.settleFromMonitor(record);
        return;
      }
      await this.options.clock.sleep(adoptedContainerPollMs);
    }
  }

  /** The monitor ended: its final report, or, without one, the container is taken as lost. */
  private async settleFromMonitor(record: ContainerRecord): Promise<void> {
    const state = await readShimState(record.dir);
    if (state?.phase === "exited") {
      this.markExited(record, state);
      return;
    }
    // Without its monitor nobody records the container's exit or writes its log: it is stopped.
    await killCgroup(record.file.cgroupDir).catch(() => undefined);
    this.markExited(record, {
      phase: "exited",
      shimPid: state?.shimPid ?? 0,
      startedAtMs: record.status.startedAtMs,
      finishedAtMs: this.options.clock.now(),
      exitCode: lostMonitorExitCode,
      reason: "Error",
      message: record.status.message || "the container's monitor exited before the container did",
    });
  }

  private markRunning(record: ContainerRecord, startedAtMs: number): void {
    if (record.status.state !== "CONTAINER_CREATED") return;
    record.status.state = "CONTAINER_RUNNING";
    record.status.startedAtMs = startedAtMs;
  }

  private applyExit(record: ContainerRecord, state: Extract<ShimState, { phase: "exited" }>): void {
    const status = record.status;
    status.state = "CONTAINER_EXITED";
    if (state.startedAtMs > 0) status.startedAtMs = state.startedAtMs;
    status.finishedAtMs = state.finishedAtMs;
    status.exitCode = state.exitCode;
    status.reason = state.reason;
    status.message = state.message;
  }

  private markExited(record: ContainerRecord, state: Extract<ShimState, { phase: "exited" }>): void {
    if (record.status.state === "CONTAINER_EXITED") return;
    this.applyExit(record, state);
    for (const handler of this.exitHandlers) handler({ ...record.status });
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

  private async cgroupEmptiesWithin(cgroupDir: string, timeoutMs: number): Promise<boolean> {
    for (let waitedMs = 0; waitedMs <= timeoutMs; waitedMs += cgroupRemovePollMs) {
      if ((await cgroupPids(cgroupDir)).length === 0) return true;
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

  /** Removes a container's directory; never through a mount (its rootfs is mounted only in its own namespace). */
  private async removeLayer(dir: string): Promise<void> {
    const mounted = (await readMountInfo()).filter((mount) => isPathWithin(mount.mountPoint, dir));
    if (mounted.length > 0) {
      throw new RuntimeError(
        "FailedPrecondition",
        `${mounted[0]?.mountPoint} is still mounted; not removing container directory ${dir}`,
      );
    }
    await rm(dir, { recursive: true, force: true });
  }

  /** A container whose sandbox is gone (the agent died between the two removals): killed and removed. */
  private async killAndRemoveLeftover(dir: string, file: ContainerFile): Promise<void> {
    await killCgroup(file.cgroupDir).catch(() => undefined);
    await this.cgroupEmptiesWithin(file.cgroupDir, killWaitMs);
    await this.removeCgroupWhenEmpty(file.cgroupDir);
    await this.removeLayer(dir);
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
