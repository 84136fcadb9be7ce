/**
 * A simulated container runtime (the containerd of one node). Containers are records with a
 * simulated main process (container-program.ts); they belong to the node, not to the kubelet: a
 * kubelet restart finds them still running, while a reboot or power loss ends them all.
 *
 * Each container name of a pod keeps its current and previous instance, which is what the kubelet
 * reports as `state` and `lastState`. Containers that were running when the machine went down show
 * as exited (255, Unknown) afterwards, so a rebooted node's pods restart with restartCount + 1. Listeners (the running kubelet's pod lifecycle events) hear
 * about every exit.
 */
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import type { Host } from "../../host/host.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import type { Rng } from "../../runtime/rng.ts";
import { SmallMap } from "../../runtime/small-map.ts";
import {
  containerIdHexDigits,
  containerIdScheme,
  defaultContainerStopDelayMs,
  killedContainerExitCode,
} from "../constants.ts";
import { ContainerLogWriter, containerLogPath, type LogEntry } from "./container-log.ts";
import type { ContainerMount } from "./container-mounts.ts";
import { type ContainerProgram, containerProgram } from "./container-program.ts";
import type { KubeletContainerRuntime } from "./container-runtime.ts";

type ContainerRunState = "running" | "exited";

export interface ContainerInstance {
  /** `containerd://<64 hex digits>`, as container statuses show it. */
  readonly id: string;
  readonly podUID: string;
  /** `namespace/name` of the pod, for messages about containers whose pod is gone. */
  readonly podKey: string;
  readonly name: string;
  readonly image: string;
  /** How many instances of this container ran before (the restart count it was started with). */
  readonly attempt: number;
  readonly startedAtMs: number;
  readonly mounts: readonly ContainerMount[];
  /** Its log file on the node (`/var/log/pods/…/<container>/<attempt>.log`). */
  readonly logPath: string;
  state: ContainerRunState;
  finishedAtMs?: number;
  exitCode?: number;
  /** `Completed` (exit 0) or `Error`. */
  reason?: string;
}

export interface ContainerExitListener {
  containerExited(container: ContainerInstance): void;
}

/** What the runtime needs to know of the node's power state: containers die with the boot they ran in. */
interface BootIdentity {
  /** The current boot's number, or undefined while the node is down. */
  currentBoot(): number | undefined;
}

interface ContainerSlot {
  current: ContainerInstance;
  previous?: ContainerInstance;
  boot: number | undefined;
  exitTimer?: Timer;
  program: ContainerProgram;
  /** Timers of the lines the program prints later; absent (most containers) when there are none. */
  outputTimers?: Timer[];
}

/** Cancels the slot's pending output lines and leaves `outputTimers` absent, as for a slot that had none. */
function cancelOutputTimers(slot: ContainerSlot): void {
  if (slot.outputTimers === undefined) return;
  for (const timer of slot.outputTimers) timer.cancel();
  slot.outputTimers = undefined;
}

interface SimContainerRuntimeOptions {
  clock: Clock;
  rng: Rng;
  boot?: BootIdentity;
  /** How long a simulated process takes to exit after SIGTERM (0: at once). */
  stopDelayMs?: number;
  /** Where containers' output goes (the node's `/var/log/pods`); none: output is not kept. */
  logs?: ContainerLogWriter;
}

const hexDigitsPerDraw = 8;
/** Exit code containerd reports for a container whose machine went down under it. */
const lostWithBootExitCode = 255;

interface PowerAwareHost {
  readonly bootCount: number;
  readonly poweredOn: boolean;
}

function isPowerAware(host: Host): host is Host & PowerAwareHost {
  return "bootCount" in host && "poweredOn" in host;
}

const runtimesByHost = new WeakMap<Host, SimContainerRuntime>();

export class SimContainerRuntime implements KubeletContainerRuntime {
  private readonly clock: Clock;
  private readonly rng: Rng;
  private readonly boot: BootIdentity | undefined;
  /** podUID → container name → slot, in creation order. */
  private readonly pods = new Map<string, Map<string, ContainerSlot>>();
  private readonly listeners = new Set<ContainerExitListener>();
  readonly logs: ContainerLogWriter | undefined;
  /** The last failure to write a container log (a container never stops because its log could not be written). */
  lastLogWriteError: unknown;
  stopDelayMs: number;

  constructor(options: SimContainerRuntimeOptions) {
    this.clock = options.clock;
    this.rng = options.rng;
    this.boot = options.boot;
    this.stopDelayMs = options.stopDelayMs ?? defaultContainerStopDelayMs;
    this.logs = options.logs;
  }

  /** The runtime of `host`, created on first use: every kubelet started over the same node shares it. */
  static forHost(host: Host, clock: Clock, rng: Rng): SimContainerRuntime {
    const existing = runtimesByHost.get(host);
    if (existing !== undefined) return existing;
    const boot: BootIdentity | undefined = isPowerAware(host)
      ? { currentBoot: () => (host.poweredOn ? host.bootCount : undefined) }
      : undefined;
    const runtime = new SimContainerRuntime({
      clock,
      rng: rng.stream(`runtime/${host.nodeName}`),
      boot,
      logs: new ContainerLogWriter(host),
    });
    runtimesByHost.set(host, runtime);
    return runtime;
  }

  subscribe(listener: ContainerExitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts a new instance of `container`; the old one (if any) becomes the previous instance. */
  start(pod: Pod, container: Container, attempt: number, mounts: readonly ContainerMount[]): ContainerInstance {
    const podUID = pod.metadata?.uid ?? "";
    const slots = this.slotsOf(podUID);
    const old = this.liveSlot(podUID, container.name);
    if (old?.current.state === "running") {
      throw new Error(
        `container ${container.name} of pod ${podUID} is already running; stop it before starting another`,
      );
    }
    const namespace = pod.metadata?.namespace ?? "";
    const podName = pod.metadata?.name ?? "";
    const instance: ContainerInstance = {
      id: `${containerIdScheme}://${this.newIdHex()}`,
      podUID,
      podKey: `${namespace}/${podName}`,
      logPath: containerLogPath(namespace, podName, podUID, container.name, attempt),
      name: container.name,
      image: container.image ?? "",
      attempt,
      startedAtMs: this.clock.now(),
      mounts,
      state: "running",
    };
    const program = containerProgram(container);
    const slot: ContainerSlot = {
      current: instance,
      previous: old?.current,
      boot: this.boot?.currentBoot(),
      program,
    };
    slots.set(container.name, slot);
    this.writeOutput(slot);
    this.scheduleExit(slot);
    return instance;
  }

  /**
   * Stops a running container: SIGTERM, and the process exits after the stop delay with
   * `exitCodeOnTerm`, or SIGKILL when the grace period ends first (137). Resolves once it has exited.
   */
  async stop(podUID: string, name: string, gracePeriodMs: number, exitCodeOnTerm = 0): Promise<void> {
    const slot = this.liveSlot(podUID, name);
    if (slot === undefined || slot.current.state !== "running") return;
    const instance = slot.current;
    const killed = this.stopDelayMs > gracePeriodMs;
    await this.clock.sleep(Math.min(this.stopDelayMs, gracePeriodMs));
    if (slot.current !== instance || instance.state !== "running") return;
    this.markExited(slot, killed ? killedContainerExitCode : exitCodeOnTerm);
  }

  /** The live instances of the pod's containers (those of earlier boots are gone), in creation order. */
  containersOf(podUID: string): ContainerInstance[] {
    const containers: ContainerInstance[] = [];
    for (const slot of this.pods.get(podUID)?.values() ?? []) containers.push(this.settled(slot).current);
    return containers;
  }

  /** The current instance of a container, if it ran in this boot. */
  current(podUID: string, name: string): ContainerInstance | undefined {
    return this.liveSlot(podUID, name)?.current;
  }

  /** The instance before the current one (the container's `lastState`). */
  previous(podUID: string, name: string): ContainerInstance | undefined {
    return this.liveSlot(podUID, name)?.previous;
  }

  /** Housekeeping asks it for every pod every 2 s: no list is built. Every slot is settled, as containersOf does. */
  isPodRunning(podUID: string): boolean {
    let running = false;
    for (const slot of this.pods.get(podUID)?.values() ?? []) {
      if (this.settled(slot).current.state === "running") running = true;
    }
    return running;
  }

  /** Pods with a container running now. */
  runningPodUIDs(): string[] {
    return [...this.pods.keys()].filter((uid) => this.isPodRunning(uid));
  }

  /** Pods the runtime still holds records of (running or exited). */
  podUIDs(): string[] {
    return [...this.pods.keys()].filter((uid) => this.containersOf(uid).length > 0);
  }

  /** Forgets a pod's exited containers (garbage collection after the pod is gone). */
  removePod(podUID: string): void {
    if (this.isPodRunning(podUID)) throw new Error(`pod ${podUID} still has running containers; stop them first`);
    const slots = this.pods.get(podUID) ?? new Map<string, ContainerSlot>();
    for (const [, slot] of slots) {
      slot.exitTimer?.cancel();
      cancelOutputTimers(slot);
    }
    const any = [...slots.values()][0]?.current;
    this.pods.delete(podUID);
    // The kubelet removes a pod's logs with its containers.
    if (any !== undefined && this.logs !== undefined) {
      const slash = any.podKey.indexOf("/");
      this.logs
        .removePodLogs(any.podKey.slice(0, slash), any.podKey.slice(slash + 1), podUID)
        .catch((error: unknown) => {
          this.lastLogWriteError = error;
        });
    }
  }

  private appendLog(instance: ContainerInstance, entries: readonly LogEntry[]): void {
    if (this.logs === undefined || entries.length === 0) return;
    this.logs.append(instance.logPath, entries).catch((error: unknown) => {
      this.lastLogWriteError = error;
    });
  }

  /**
   * What the program prints, each line at its time; a program that prints nothing gets a line
   * saying so, so `kubectl logs` shows the container is there and simulated.
   */
  private writeOutput(slot: ContainerSlot): void {
    const instance = slot.current;
    const output = slot.program.output ?? [];
    if (output.length === 0) {
      const text = `kvol: simulated container "${instance.name}" started from image ${instance.image}; it runs no real process, so it prints nothing`;
      this.appendLog(instance, [{ timeMs: instance.startedAtMs, stream: "stdout", text }]);
      return;
    }
    const now = output.filter((line) => line.atMs === 0);
    this.appendLog(
      instance,
      now.map((line) => ({ timeMs: instance.startedAtMs, stream: "stdout", text: line.text })),
    );
    const later = output.filter((entry) => entry.atMs > 0);
    if (later.length === 0) return;
    slot.outputTimers = later.map((line) =>
      this.clock.setTimer(line.atMs, () => {
        if (slot.current !== instance || instance.state !== "running") return;
        this.appendLog(instance, [{ timeMs: this.clock.now(), stream: "stdout", text: line.text }]);
      }),
    );
  }

  private scheduleExit(slot: ContainerSlot): void {
    const program = slot.program;
    if (program.kind === "forever") return;
    const instance = slot.current;
    slot.exitTimer = this.clock.setTimer(program.afterMs, () => {
      if (slot.current === instance && instance.state === "running" && this.isLive(slot)) {
        this.markExited(slot, program.exitCode);
      }
    });
  }

  private markExited(slot: ContainerSlot, exitCode: number): void {
    const instance = slot.current;
    slot.exitTimer?.cancel();
    slot.exitTimer = undefined;
    cancelOutputTimers(slot);
    if ((slot.program.output ?? []).length === 0) {
      const text = `kvol: simulated container "${instance.name}" exited with code ${exitCode}`;
      this.appendLog(instance, [{ timeMs: this.clock.now(), stream: "stdout", text }]);
    }
    instance.state = "exited";
    instance.exitCode = exitCode;
    instance.reason = exitCode === 0 ? "Completed" : "Error";
    instance.finishedAtMs = this.clock.now();
    for (const listener of this.listeners) listener.containerExited(instance);
  }

  private isLive(slot: ContainerSlot): boolean {
    return this.boot === undefined || slot.boot === this.boot.currentBoot();
  }

  /**
   * A container of an earlier boot died with the machine. The runtime's records survive a reboot,
   * so it shows as exited with status 255 and reason Unknown, as containerd reports it afterwards.
   */
  private settled(slot: ContainerSlot): ContainerSlot {
    if (slot.current.state === "running" && !this.isLive(slot)) {
      slot.exitTimer?.cancel();
      slot.exitTimer = undefined;
      Object.assign(slot.current, {
        state: "exited",
        exitCode: lostWithBootExitCode,
        reason: "Unknown",
        finishedAtMs: this.clock.now(),
      });
    }
    return slot;
  }

  private liveSlot(podUID: string, name: string): ContainerSlot | undefined {
    const slot = this.pods.get(podUID)?.get(name);
    return slot === undefined ? undefined : this.settled(slot);
  }

  private slotsOf(podUID: string): Map<string, ContainerSlot> {
    let slots = this.pods.get(podUID);
    if (slots === undefined) {
      slots = new SmallMap();
      this.pods.set(podUID, slots);
    }
    return slots;
  }

  private newIdHex(): string {
    let hex = "";
    while (hex.length < containerIdHexDigits) hex += this.rng.nextUint32().toString(16).padStart(hexDigitsPerDraw, "0");
    return hex.slice(0, containerIdHexDigits);
  }
}
