/**
 * The container runtime as the kubelet's pod workers use it: start an instance of a container
 * with its volume binds, stop it, and read each container's current and previous instance without
 * waiting (what the status generator and the housekeeping pass need). Two implementations: the
 * simulated runtime (sim-container-runtime.ts) and CriContainerRuntime, over a CRI RuntimeService
 * such as the Linux one (src/cri/).
 */
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import type { ContainerMount } from "./container-mounts.ts";
import type { ContainerExitListener, ContainerInstance } from "./sim-container-runtime.ts";

/** What an exec probe's command answered. */
export interface ExecResult {
  exitCode: number;
  /** stdout and stderr combined. */
  output: string;
}

export interface KubeletContainerRuntime {
  subscribe(listener: ContainerExitListener): () => void;
  /** Starts a new instance of `container`; the old one (if any) becomes the previous instance. */
  start(
    pod: Pod,
    container: Container,
    attempt: number,
    mounts: readonly ContainerMount[],
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
}
