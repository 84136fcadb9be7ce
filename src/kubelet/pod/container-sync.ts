/**
 * Starting, restarting and stopping a pod's containers (the part of kuberuntime_manager.go
 * SyncPod / computePodActions / killPodWithSyncResult that storage stories need):
 * - a container that never ran is created and started once its volumes are mounted;
 * - a running container whose liveness probe failed is killed (`Killing` `Container <c> failed
 *   liveness probe, will be restarted`) and restarted;
 * - an exited container is restarted as the pod's restartPolicy says (Always; OnFailure on a
 *   non-zero exit; Never not at all), the second and later restarts after CrashLoopBackOff;
 * - creating a container binds its volume paths: a path on a dead mount fails the creation
 *   (`CreateContainerError`), and the next sync tries again.
 */
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { referenceTo } from "../../api/events/object-reference.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Host } from "../../host/host.ts";
import type { Mounter } from "../../host/mount/mounter.ts";
import type { Clock } from "../../runtime/clock.ts";
import { formatGoDuration } from "../../runtime/duration.ts";
import type { Logger } from "../../runtime/logger.ts";
import { killedContainerExitCode } from "../constants.ts";
import { ContainerConfigError, type EnvObjectSource, resolveContainerEnvironment } from "../container/container-env.ts";
import { ContainerCreateError, prepareContainerMounts, type SubpathBinder } from "../container/container-mounts.ts";
import { containerDevices, type KubeletContainerRuntime } from "../container/container-runtime.ts";
import type { ContainerInstance } from "../container/sim-container-runtime.ts";
import { bindSubpath } from "../container/subpath-binds.ts";
import {
  backOffRestartingMessage,
  createdContainerMessage,
  eventReason,
  failedLivenessMessage,
  failedToStartMessage,
  imagePresentMessage,
  startedContainerMessage,
  stoppingContainerMessage,
} from "../events.ts";
import type { Prober } from "../prober/prober.ts";
import type { ContainerView, ContainerWaiting } from "../status/generate-pod-status.ts";
import { terminationGracePeriodMs } from "./pod-workers.ts";
import { RestartBackoff, restartBackoffKey } from "./restart-backoff.ts";

interface ContainerSyncOptions {
  clock: Clock;
  host: Host;
  runtime: KubeletContainerRuntime;
  prober: Prober;
  recorder: EventRecorder;
  logger: Logger;
  /** Outer volume name → node path of the pod's mounted volumes (the volume manager's answer). */
  mountedVolumes(podUID: string): ReadonlyMap<string, string>;
  /** Outer volume name → inner volume spec name (the PV's name for a claim): subPath binds live under it. */
  innerVolumeNames(podUID: string): ReadonlyMap<string, string>;
  /** The kubelet root (`/var/lib/kubelet`) and the mounter that binds subPaths under it. */
  rootDir: string;
  mounter: Mounter;
  /** Asks for another sync of the pod after `delayMs` (when a restart back-off ends). */
  resyncAfter(podUID: string, delayMs: number): void;
  /** Where env values from configMaps and secrets are read. */
  envObjects: EnvObjectSource;
  /** The node's address: status.hostIP, and status.podIP while pods share the node's network. */
  hostIP: string;
  /** What an unset limit reads as in an env resourceFieldRef. */
  nodeAllocatable?: Readonly<Record<string, string>>;
}

function uidOf(pod: Pod): string {
  return pod.metadata?.uid ?? "";
}

function shouldRestart(pod: Pod, exited: ContainerInstance): boolean {
  const policy = pod.spec?.restartPolicy ?? "Always";
  if (policy === "Always") return true;
  return policy === "OnFailure" && exited.exitCode !== 0;
}

export class ContainerSync {
  private readonly backoff = new RestartBackoff();
  /** podUID → container name → why it is waiting. */
  private readonly waiting = new Map<string, Map<string, ContainerWaiting>>();

  constructor(private readonly options: ContainerSyncOptions) {}

  /** Brings the pod's containers to what its spec and restart policy want. */
  async syncContainers(pod: Pod): Promise<void> {
    for (const container of pod.spec?.containers ?? []) await this.syncContainer(pod, container);
  }

  /** Stops every running container of the pod within `gracePeriodMs` (`Killing` `Stopping container <c>`). */
  async killPod(pod: Pod, gracePeriodMs: number): Promise<void> {
    const uid = uidOf(pod);
    const running = this.options.runtime.containersOf(uid).filter((instance) => instance.state === "running");
    for (const instance of running) {
      this.containerEvent(pod, instance.name, "Normal", eventReason.killing, stoppingContainerMessage(instance.name));
    }
    this.options.prober.removePod(uid);
    await Promise.all(running.map((instance) => this.options.runtime.stop(uid, instance.name, gracePeriodMs)));
    this.waiting.delete(uid);
  }

  /** What the status generator needs: each container's instances and waiting reason. */
  containerViews(pod: Pod): Map<string, ContainerView> {
    const uid = uidOf(pod);
    const views = new Map<string, ContainerView>();
    for (const container of pod.spec?.containers ?? []) {
      const current = this.options.runtime.current(uid, container.name);
      const previous = this.options.runtime.previous(uid, container.name);
      const waiting = this.waiting.get(uid)?.get(container.name);
      // Fields set one by one: three spreads of throwaway objects per container per status were garbage.
      const view: ContainerView = {};
      if (current !== undefined) {
        view.current = current;
        view.ready = this.options.prober.isReady(current);
      }
      if (previous !== undefined) view.previous = previous;
      if (waiting !== undefined) view.waiting = waiting;
      views.set(container.name, view);
    }
    return views;
  }

  forgetPod(uid: string): void {
    this.waiting.delete(uid);
    this.backoff.forgetPrefix(`${uid}/`);
  }

  private async syncContainer(pod: Pod, container: Container): Promise<void> {
    const uid = uidOf(pod);
    let current = this.options.runtime.current(uid, container.name);
    if (current?.state === "running") {
      // A kubelet started after the one that started the container probes it too (AddPod at sync).
      this.options.prober.addContainer(pod, current);
      if (!this.options.prober.hasFailed(current.id)) return;
      await this.killForLiveness(pod, current);
      current = this.options.runtime.current(uid, container.name);
    }
    if (current !== undefined && current.state === "exited") {
      if (!shouldRestart(pod, current)) {
        this.setWaiting(uid, container.name, undefined);
        return;
      }
      if (this.inCrashLoopBackOff(pod, container, current)) return;
    }
    await this.startContainer(pod, container, current);
  }

  private async killForLiveness(pod: Pod, instance: ContainerInstance): Promise<void> {
    this.containerEvent(pod, instance.name, "Normal", eventReason.killing, failedLivenessMessage(instance.name));
    this.options.prober.removeContainer(instance.id);
    // The probe found the process unhealthy, so it is not expected to exit cleanly: 137 as on a real node.
    await this.options.runtime.stop(
      instance.podUID,
      instance.name,
      terminationGracePeriodMs(pod),
      killedContainerExitCode,
    );
  }

  private inCrashLoopBackOff(pod: Pod, container: Container, exited: ContainerInstance): boolean {
    const uid = uidOf(pod);
    const key = restartBackoffKey(uid, container.name);
    const nowMs = this.options.clock.now();
    const remainingMs = this.backoff.remainingMs(key, exited.finishedAtMs ?? nowMs, nowMs);
    if (remainingMs === 0) return false;
    const { name = "", namespace = "" } = pod.metadata ?? {};
    const delay = formatGoDuration(this.backoff.currentMs(key));
    this.setWaiting(uid, container.name, {
      reason: "CrashLoopBackOff",
      message: `back-off ${delay} restarting failed container=${container.name} pod=${name}_${namespace}(${uid})`,
    });
    this.containerEvent(
      pod,
      container.name,
      "Warning",
      eventReason.backOff,
      backOffRestartingMessage(container.name, name, namespace, uid),
    );
    this.options.resyncAfter(uid, remainingMs);
    return true;
  }

  private async startContainer(pod: Pod, container: Container, previous: ContainerInstance | undefined): Promise<void> {
    const uid = uidOf(pod);
    let mounts: Awaited<ReturnType<typeof prepareContainerMounts>>;
    try {
      mounts = await prepareContainerMounts(
        this.options.host,
        container,
        this.options.mountedVolumes(uid),
        this.subpathBinder(uid, container.name),
      );
    } catch (error) {
      if (!(error instanceof ContainerCreateError)) throw error;
      this.setWaiting(uid, container.name, { reason: "CreateContainerError", message: error.message });
      this.containerEvent(pod, container.name, "Warning", eventReason.failed, failedToStartMessage(error.message));
      throw error;
    }
    const nowMs = this.options.clock.now();
    if (previous !== undefined) this.backoff.next(restartBackoffKey(uid, container.name), nowMs);
    const image = container.image ?? "";
    this.containerEvent(pod, container.name, "Normal", eventReason.pulled, imagePresentMessage(image));
    const configuring = this.configureContainer(pod, container);
    const configured = configuring instanceof Promise ? await configuring : configuring;
    this.containerEvent(pod, container.name, "Normal", eventReason.created, createdContainerMessage(container.name));
    const devices = containerDevices(container, this.options.mountedVolumes(uid));
    const attempt = previous === undefined ? 0 : previous.attempt + 1;
    const started = this.options.runtime.start(pod, configured, attempt, mounts, devices);
    // The simulated runtime answers at once; awaiting it anyway would reorder the simulated timeline.
    const instance = started instanceof Promise ? await started : started;
    this.setWaiting(uid, container.name, undefined);
    this.containerEvent(pod, container.name, "Normal", eventReason.started, startedContainerMessage(container.name));
    this.options.prober.addContainer(pod, instance);
  }

  /**
   * The container with its environment resolved and command and args expanded; a missing configMap,
   * secret or key leaves it waiting (CreateContainerConfigError) until a later sync finds it.
   */
  private configureContainer(pod: Pod, container: Container): Container | Promise<Container> {
    const uid = uidOf(pod);
    const { envObjects, hostIP, nodeAllocatable, recorder } = this.options;
    const failed = (error: unknown): never => {
      if (!(error instanceof ContainerConfigError)) throw error;
      this.setWaiting(uid, container.name, { reason: error.reason, message: error.message });
      this.containerEvent(pod, container.name, "Warning", eventReason.failed, failedToStartMessage(error.message));
      throw error;
    };
    try {
      const resolved = resolveContainerEnvironment(pod, container, {
        source: envObjects,
        hostIP,
        podIP: pod.status?.podIP || hostIP,
        nodeAllocatable,
        invalidNames: (message) => recorder.event(pod, "Warning", eventReason.invalidEnvironmentVariableNames, message),
      });
      return resolved instanceof Promise ? resolved.catch(failed) : resolved;
    } catch (error) {
      return failed(error);
    }
  }

  private subpathBinder(podUID: string, containerName: string): SubpathBinder {
    const { host, mounter, rootDir } = this.options;
    const innerNames = this.options.innerVolumeNames(podUID);
    const options = { host, mounter, rootDir, podUID, containerName };
    return {
      bind: (volumeName, mountIndex, source) =>
        bindSubpath(options, innerNames.get(volumeName) ?? volumeName, mountIndex, source),
    };
  }

  private setWaiting(uid: string, name: string, waiting: ContainerWaiting | undefined): void {
    let perPod = this.waiting.get(uid);
    if (waiting === undefined) {
      perPod?.delete(name);
      return;
    }
    if (perPod === undefined) {
      perPod = new Map();
      this.waiting.set(uid, perPod);
    }
    perPod.set(name, waiting);
  }

  private containerEvent(pod: Pod, container: string, type: "Normal" | "Warning", reason: string, message: string) {
    this.options.recorder.eventForReference(referenceTo(pod, `spec.containers{${container}}`), type, reason, message);
  }
}
