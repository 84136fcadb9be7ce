/**
 * The kubelet's container runtime over a CRI RuntimeService (the part of kuberuntime_manager.go
 * that turns a pod's containers into CRI calls): one pod sandbox per pod, a container created and
 * started per instance, its log at `<podLogsDir>/<namespace>_<name>_<uid>/<container>/<attempt>.log`,
 * exits heard from the runtime's events, exec probes run with ExecSync. The records the kubelet
 * reads without waiting (current and previous instance of each container) live here.
 */
import { join } from "node:path";
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import {
  type ContainerConfig,
  type ContainerStatus,
  type ExecRequest,
  type ExecSession,
  type Mount,
  RuntimeError,
  type RuntimeService,
} from "../../cri/runtime-service.ts";
import type { Clock } from "../../runtime/clock.ts";
import { containerIdScheme } from "../constants.ts";
import type { ContainerMount } from "./container-mounts.ts";
import type { ContainerDevice, ExecResult, KubeletContainerRuntime } from "./container-runtime.ts";
import type { ContainerExitListener, ContainerInstance } from "./sim-container-runtime.ts";

const propagation: Readonly<Record<ContainerMount["propagation"], Mount["propagation"]>> = {
  None: "PROPAGATION_PRIVATE",
  HostToContainer: "PROPAGATION_HOST_TO_CONTAINER",
  Bidirectional: "PROPAGATION_BIDIRECTIONAL",
};

const propagationName: Readonly<Record<Mount["propagation"], ContainerMount["propagation"]>> = {
  PROPAGATION_PRIVATE: "None",
  PROPAGATION_HOST_TO_CONTAINER: "HostToContainer",
  PROPAGATION_BIDIRECTIONAL: "Bidirectional",
};

interface PodRecord {
  sandboxId: Promise<string>;
  /** container name → current and previous instance, with their CRI ids. */
  slots: Map<string, { current: ContainerInstance; previous?: ContainerInstance }>;
}

interface CriContainerRuntimeOptions {
  service: RuntimeService;
  clock: Clock;
  /** `/var/log/pods` on a machine of its own. */
  podLogsDir: string;
}

/** `/var/log/pods/<namespace>_<name>_<uid>`, as the kubelet names a pod's log directory. */
function podLogDirectory(podLogsDir: string, pod: Pod): string {
  const { namespace = "", name = "", uid = "" } = pod.metadata ?? {};
  return join(podLogsDir, `${namespace}_${name}_${uid}`);
}

function criId(instance: ContainerInstance): string {
  return instance.id.slice(`${containerIdScheme}://`.length);
}

/**
 * The container's environment. The kubelet resolved every value before (container-env.ts): the
 * container it passes holds literal values only, and no envFrom.
 */
function literalEnv(container: Container): ContainerConfig["envs"] {
  return (container.env ?? [])
    .filter((entry) => entry.valueFrom === undefined)
    .map((entry) => ({ key: entry.name, value: entry.value ?? "" }));
}

export class CriContainerRuntime implements KubeletContainerRuntime {
  private readonly pods = new Map<string, PodRecord>();
  private readonly byId = new Map<string, ContainerInstance>();
  private readonly listeners = new Set<ContainerExitListener>();
  private readonly unsubscribe: () => void;
  /** Starts in flight: a shutdown waits for each, then stops what it made. */
  private readonly starts = new Set<Promise<unknown>>();
  private shuttingDown = false;

  constructor(private readonly options: CriContainerRuntimeOptions) {
    this.unsubscribe = options.service.onContainerExit((status) => this.exited(status));
  }

  subscribe(listener: ContainerExitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(
    pod: Pod,
    container: Container,
    attempt: number,
    mounts: readonly ContainerMount[],
    devices: readonly ContainerDevice[] = [],
  ): Promise<ContainerInstance> {
    if (this.shuttingDown) {
      const name = `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
      return Promise.reject(
        new Error(`the node is shutting down; not starting container ${container.name} of pod ${name}`),
      );
    }
    const started = this.createAndStart(pod, container, attempt, mounts, devices);
    this.starts.add(started);
    const forget = () => this.starts.delete(started);
    started.then(forget, forget);
    return started;
  }

  private async createAndStart(
    pod: Pod,
    container: Container,
    attempt: number,
    mounts: readonly ContainerMount[],
    devices: readonly ContainerDevice[],
  ): Promise<ContainerInstance> {
    const uid = pod.metadata?.uid ?? "";
    const record = this.podRecord(pod);
    const slot = record.slots.get(container.name);
    if (slot?.current.state === "running") {
      throw new Error(`container ${container.name} of pod ${uid} is already running; stop it before starting another`);
    }
    const sandboxId = await record.sandboxId;
    const id = await this.options.service.createContainer(sandboxId, {
      metadata: { name: container.name, attempt },
      image: container.image ?? "",
      command: container.command ?? [],
      args: container.args ?? [],
      workingDir: container.workingDir ?? "",
      envs: literalEnv(container),
      mounts: mounts.map((mount) => ({
        containerPath: mount.containerPath,
        hostPath: mount.hostPath,
        readonly: mount.readOnly,
        propagation: propagation[mount.propagation],
      })),
      devices: devices.map((device) => ({ containerPath: device.devicePath, hostPath: device.hostPath })),
      logPath: join(container.name, `${attempt}.log`),
    });
    const instance: ContainerInstance = {
      id: `${containerIdScheme}://${id}`,
      podUID: uid,
      podKey: `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`,
      name: container.name,
      image: container.image ?? "",
      attempt,
      startedAtMs: this.options.clock.now(),
      mounts,
      state: "running",
      logPath: join(podLogDirectory(this.options.podLogsDir, pod), container.name, `${attempt}.log`),
    };
    this.byId.set(id, instance);
    // Kubernetes keeps one dead instance per container; the one before it is removed.
    if (slot?.previous !== undefined) await this.removeInstance(slot.previous);
    record.slots.set(container.name, { current: instance, ...(slot === undefined ? {} : { previous: slot.current }) });
    try {
      await this.options.service.startContainer(id);
    } catch (error) {
      if (!(error instanceof RuntimeError)) throw error;
      // The exit event has already marked it: StartError, exit code 128, and a restart per policy.
    }
    return instance;
  }

  async stop(podUID: string, name: string, gracePeriodMs: number): Promise<void> {
    const instance = this.current(podUID, name);
    if (instance === undefined || instance.state !== "running") return;
    await this.options.service.stopContainer(criId(instance), gracePeriodMs);
  }

  containersOf(podUID: string): ContainerInstance[] {
    return [...(this.pods.get(podUID)?.slots.values() ?? [])].map((slot) => slot.current);
  }

  current(podUID: string, name: string): ContainerInstance | undefined {
    return this.pods.get(podUID)?.slots.get(name)?.current;
  }

  previous(podUID: string, name: string): ContainerInstance | undefined {
    return this.pods.get(podUID)?.slots.get(name)?.previous;
  }

  isPodRunning(podUID: string): boolean {
    return this.containersOf(podUID).some((instance) => instance.state === "running");
  }

  runningPodUIDs(): string[] {
    return [...this.pods.keys()].filter((uid) => this.isPodRunning(uid));
  }

  podUIDs(): string[] {
    return [...this.pods.keys()].filter((uid) => this.containersOf(uid).length > 0);
  }

  async removePod(podUID: string): Promise<void> {
    if (this.isPodRunning(podUID)) throw new Error(`pod ${podUID} still has running containers; stop them first`);
    const record = this.pods.get(podUID);
    if (record === undefined) return;
    this.pods.delete(podUID);
    for (const slot of record.slots.values()) {
      this.byId.delete(criId(slot.current));
      if (slot.previous !== undefined) this.byId.delete(criId(slot.previous));
    }
    await this.options.service.removePodSandbox(await record.sandboxId);
  }

  async exec(instance: ContainerInstance, command: readonly string[], timeoutMs: number): Promise<ExecResult> {
    const response = await this.options.service.execSync(criId(instance), command, timeoutMs);
    return { exitCode: response.exitCode, output: `${response.stdout.toString()}${response.stderr.toString()}` };
  }

  /** CRI's Exec, streamed: the command runs inside the container with its streams open. */
  async execStream(instance: ContainerInstance, request: ExecRequest): Promise<ExecSession> {
    const exec = this.options.service.exec;
    if (exec === undefined)
      throw new Error("the container runtime runs commands only to their end (ExecSync), not streamed");
    return exec.call(this.options.service, criId(instance), request);
  }

  /**
   * Takes over what the runtime already runs (an agent restarted after it was killed): each
   * sandbox's containers become the pod's current and previous instances again, by pod UID,
   * container name and attempt, so the kubelet finds them running and does not start them again;
   * their exits are heard from now on. Older instances, and containers created but never started,
   * are removed. Returns how many running containers were adopted.
   */
  async adoptExisting(): Promise<number> {
    const containers = await this.options.service.listContainers();
    let running = 0;
    for (const sandbox of await this.options.service.listPodSandbox()) {
      const { uid, namespace, name } = sandbox.metadata;
      if (this.pods.has(uid)) continue;
      const record: PodRecord = { sandboxId: Promise.resolve(sandbox.id), slots: new Map() };
      this.pods.set(uid, record);
      const byName = new Map<string, ContainerStatus[]>();
      for (const status of containers.filter((c) => c.podSandboxId === sandbox.id)) {
        if (status.state === "CONTAINER_CREATED" || status.state === "CONTAINER_UNKNOWN") {
          await this.options.service.removeContainer(status.id);
          continue;
        }
        byName.set(status.name, [...(byName.get(status.name) ?? []), status]);
      }
      for (const [containerName, statuses] of byName) {
        const [current, previous, ...older] = statuses.sort((a, b) => b.attempt - a.attempt);
        if (current === undefined) continue;
        for (const old of older) await this.options.service.removeContainer(old.id);
        const toInstance = (status: ContainerStatus) => this.adoptedInstance(status, uid, `${namespace}/${name}`);
        record.slots.set(containerName, {
          current: toInstance(current),
          ...(previous === undefined ? {} : { previous: toInstance(previous) }),
        });
        if (current.state === "CONTAINER_RUNNING") running += 1;
      }
    }
    return running;
  }

  /** Stops every container and removes every sandbox (the node is shutting down). */
  async shutdown(gracePeriodMs: number): Promise<void> {
    // No start begins from now on; those under way finish first, or what they make would outlive the node's stop.
    this.shuttingDown = true;
    await Promise.allSettled([...this.starts]);
    // Every container gets the same grace period at once, as on a node shutdown.
    const pods = [...this.pods.entries()];
    await Promise.all(
      pods.flatMap(([uid, record]) =>
        [...record.slots.values()]
          .filter((slot) => slot.current.state === "running")
          .map((slot) => this.stop(uid, slot.current.name, gracePeriodMs)),
      ),
    );
    for (const [uid] of pods) await this.removePod(uid);
    this.unsubscribe();
  }

  private podRecord(pod: Pod): PodRecord {
    const uid = pod.metadata?.uid ?? "";
    let record = this.pods.get(uid);
    if (record === undefined) {
      const { namespace = "", name = "" } = pod.metadata ?? {};
      record = {
        sandboxId: this.options.service.runPodSandbox({
          metadata: { name, namespace, uid, attempt: 0 },
          hostname: pod.spec?.hostname ?? name,
          logDirectory: podLogDirectory(this.options.podLogsDir, pod),
        }),
        slots: new Map(),
      };
      // A failed sandbox is tried again at the pod's next sync.
      record.sandboxId.catch(() => this.pods.delete(uid));
      this.pods.set(uid, record);
    }
    return record;
  }

  private async removeInstance(instance: ContainerInstance): Promise<void> {
    this.byId.delete(criId(instance));
    await this.options.service.removeContainer(criId(instance));
  }

  private adoptedInstance(status: ContainerStatus, podUID: string, podKey: string): ContainerInstance {
    const instance: ContainerInstance = {
      id: `${containerIdScheme}://${status.id}`,
      podUID,
      podKey,
      name: status.name,
      image: status.image,
      attempt: status.attempt,
      startedAtMs: status.startedAtMs,
      mounts: (status.mounts ?? []).map((mount) => ({
        volumeName: "",
        containerPath: mount.containerPath,
        hostPath: mount.hostPath,
        readOnly: mount.readonly,
        followsHostMounts: mount.propagation !== "PROPAGATION_PRIVATE",
        propagation: propagationName[mount.propagation],
        mountIdAtStart: undefined,
      })),
      state: status.state === "CONTAINER_RUNNING" ? "running" : "exited",
      logPath: status.logPath,
      ...(status.state === "CONTAINER_RUNNING"
        ? {}
        : { exitCode: status.exitCode, reason: status.reason, finishedAtMs: status.finishedAtMs }),
    };
    this.byId.set(status.id, instance);
    return instance;
  }

  private exited(status: ContainerStatus): void {
    const instance = this.byId.get(status.id);
    if (instance === undefined || instance.state === "exited") return;
    instance.state = "exited";
    instance.exitCode = status.exitCode;
    instance.reason = status.reason;
    instance.finishedAtMs = status.finishedAtMs;
    for (const listener of this.listeners) listener.containerExited(instance);
  }
}
