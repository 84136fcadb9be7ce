/**
 * The controller plugins of the bundled drivers for `kvol up --host linux`: each a `kvol csi-driver`
 * process on `DATA/csi-controllers/<driver>.sock`, its volumes in `DATA/disks` for the disks,
 * `DATA/csi/<driver>` for the others (the state directory the nodes' plugins of the same driver
 * use: bundled-driver-state-dir.ts), its output in
 * `DATA/csi-controllers/<driver>.log`. The control plane's provisioner and attacher reach it over
 * real gRPC, as for any `--csi-controller`. A driver that cannot run on this machine exits at once;
 * the caller is told why, and the classes using it stay unprovisioned.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { bundledDriverStateDir } from "../../cmd/bundled-driver-state-dir.ts";
import { socketPathOf } from "../../csi/grpc/endpoint.ts";
import type { RealClock } from "../../runtime/real-clock.ts";
import type { CsiControllerEndpoint } from "./csi-controller-flag.ts";

/** How long a controller process gets to open its socket (the machine may be loaded). */
export const bundledControllerStartTimeoutMs = 60_000;
/** How long it gets to stop on SIGTERM before SIGKILL. */
const stopGracePeriodMs = 10_000;
const pollIntervalMs = 100;
/** The node id the controller processes report (they make no node-side calls). */
const controllerNodeId = "csi-controller";

interface ControllerProcess {
  driverName: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

export class BundledCsiControllers {
  private constructor(
    private readonly processes: readonly ControllerProcess[],
    private readonly clock: RealClock,
  ) {}

  /**
   * Starts one process per endpoint and waits until each serves or exits; `warn` hears about those
   * that exited, with the last line they printed.
   */
  static async start(
    endpoints: readonly CsiControllerEndpoint[],
    dataDirPath: string,
    clock: RealClock,
    warn: (message: string) => void,
    /** More arguments for a driver's process (`--fenceable` for the disks). */
    extraArgs: (driverName: string) => readonly string[] = () => [],
  ): Promise<BundledCsiControllers> {
    const processes = endpoints.map((entry) => startProcess(entry, dataDirPath, extraArgs(entry.driverName)));
    const controllers = new BundledCsiControllers(processes, clock);
    for (const [index, entry] of endpoints.entries()) {
      const started = processes[index];
      if (started === undefined) continue;
      const socket = socketPathOf(entry.endpoint);
      const deadlineMs = clock.now() + bundledControllerStartTimeoutMs;
      while (!existsSync(socket) && started.child.exitCode === null && clock.now() < deadlineMs) {
        await clock.sleep(pollIntervalMs);
      }
      if (started.child.exitCode !== null || !existsSync(socket)) {
        warn(
          `${entry.driverName} cannot run its controller on this machine (${lastLine(logFile(dataDirPath, entry.driverName))}); ` +
            `claims of its storage classes stay Pending`,
        );
      }
    }
    return controllers;
  }

  /** SIGTERM to every controller, SIGKILL after the grace period; resolves once all exited. */
  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(async ({ child, exited }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        const timer = this.clock.setTimer(stopGracePeriodMs, () => child.kill("SIGKILL"));
        await exited;
        timer.cancel();
      }),
    );
  }
}

function logFile(dataDirPath: string, driverName: string): string {
  return join(dataDirPath, "csi-controllers", `${driverName}.log`);
}

function startProcess(
  entry: CsiControllerEndpoint,
  dataDirPath: string,
  extraArgs: readonly string[],
): ControllerProcess {
  const socket = socketPathOf(entry.endpoint);
  mkdirSync(dirname(socket), { recursive: true, mode: 0o750 });
  const log = openSync(logFile(dataDirPath, entry.driverName), "a");
  const args = [
    process.argv[1] ?? "",
    "csi-driver",
    entry.driverName,
    "--endpoint",
    entry.endpoint,
    "--node-id",
    controllerNodeId,
    "--state-dir",
    bundledDriverStateDir(dataDirPath, entry.driverName),
    ...extraArgs,
  ];
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...process.execArgv, ...args], { stdio: ["ignore", log, log] });
  } finally {
    closeSync(log);
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { driverName: entry.driverName, child, exited };
}

/** The last non-empty line of a log file, or a pointer to it. */
function lastLine(path: string): string {
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  return lines.at(-1) ?? `see ${path}`;
}
