/**
 * The container runtime as the kubelet's pod workers use it: start an instance of a container
 * with its volume binds, stop it, and read each container's current and previous instance without
 * waiting (what the status generator and the housekeeping pass need). Two implementations: the
 * simulated runtime (sim-container-runtime.ts) and CriContainerRuntime, over a CRI RuntimeService
 * such as the Linux one (src/cri/).
 */
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import type { ExecRequest, ExecSession } from "../../cri/runtime-service.ts";
import type { ContainerMount } from "./container-mounts.ts";
import type { ContainerExitListener, ContainerInstance } from "./sim-container-runtime.ts";

/** What an exec probe's command answered. */
export interface ExecResult {
  exitCode: number;
  /** stdout and stderr combined. */
  output: string;
}

/** A block volume's device as the container sees it (`volumeDevices[].devicePath`). */
export interface ContainerDevice {
  readonly volumeName: string;
  readonly devicePath: string;
  /** The pod's device map path on the node (the volume manager's answer for a block volume). */
  readonly hostPath: string;
}

/** The pod's block volumes the container lists in volumeDevices, those the volume manager has mapped. */
export function containerDevices(container: Container, mappedVolumes: ReadonlyMap<string, string>): ContainerDevice[] {
  return (container.volumeDevices ?? []).flatMap((device) => {
    const hostPath = mappedVolumes.get(device.name);
    return hostPath === undefined ? [] : [{ volumeName: device.name, devicePath: device.devicePath, hostPath }];
  });
}

export interface KubeletContainerRuntime {
  subscribe(listener: ContainerExitListener): () => void;
  /** Starts a new instance of `container`; the old one (if any) becomes the previous instance. */
  start(
    pod: Pod,
    container: Container,
    attempt: number,
    mounts: readonly ContainerMount[],
    devices?: readonly ContainerDevice[],
  ): ContainerInstance | Promise<ContainerInstance>;
  /** SIGTERM, then SIGKILL once `gracePeriodMs` is over; resolves once the container has exited. */
  stop(podUID: string, name: string, gracePeriodMs: number, exitCodeOnTerm?: number): Promise<void>;
  containersOf(podUID: string): ContainerInstance[];
  current(podUID: string, name: string): ContainerInstance | undefined;
  previous(podUID: string, name: string): ContainerInstance | undefined;
  isPodRunning(podUID: string): boolean;
  runningPodUIDs(): string[];
  podUIDs(): string[];
  /** Forgets (and removes) a pod's exited containers. */
  removePod(podUID: string): void | Promise<void>;
  /**
   * Runs an exec probe's command inside the container. Absent on the simulated runtime, whose
   * probes run against the node paths behind the container's volumes.
   */
  exec?(instance: ContainerInstance, command: readonly string[], timeoutMs: number): Promise<ExecResult>;
  /** Starts a command inside the container with its streams open (`kubectl exec`); absent on the simulated runtime. */
  execStream?(instance: ContainerInstance, request: ExecRequest): Promise<ExecSession>;
}
