/**
 * Liveness and readiness probes (pkg/kubelet/prober): one worker per probe of a running container
 * instance. A worker probes `initialDelaySeconds` after the container started and every
 * `periodSeconds` after that; every failure is a Warning `Unhealthy` event
 * (`<Liveness|Readiness> probe failed: <output>`).
 * - Liveness starts as Success; `failureThreshold` consecutive failures make it Failure: the worker
 *   holds (Kubernetes' `onHold`) and tells the kubelet, which kills and restarts the container.
 * - Readiness starts as Failure (the container is not Ready until a probe succeeds); it turns after
 *   `successThreshold` consecutive successes or `failureThreshold` consecutive failures, and each
 *   turn makes the kubelet write the pod's status again.
 * A new container instance gets fresh workers.
 *
 * The workers live in the kubelet process. A kubelet started after another finds containers that are
 * already running: as Kubernetes' prober manager does when pods are synced (AddPod), `addContainer`
 * is called for every running container at each pod sync and adds the workers it lacks. Their first
 * probe waits a random part of the period when the prober itself started less than a period ago
 * (Kubernetes: "if kubelet restarted the probes could be started in rapid succession"), and never
 * before the initial delay.
 *
 * Only exec probes are modelled (probe-command.ts); httpGet, tcpSocket and grpc probes succeed,
 * since the simulated containers serve nothing.
 */

import type { Pod, Probe } from "kubernetes-types/core/v1.js";
import { referenceTo } from "../../api/events/object-reference.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import { objectKey } from "../../api/objects.ts";
import type { Host } from "../../host/host.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Rng } from "../../runtime/rng.ts";
import {
  probeDefaultFailureThreshold,
  probeDefaultPeriodSeconds,
  probeDefaultSuccessThreshold,
  probeDefaultTimeoutSeconds,
} from "../constants.ts";
import type { ContainerInstance } from "../container/sim-container-runtime.ts";
import { eventReason, probeFailedMessage } from "../events.ts";
import { type ProbeCommandResult, ProbeCommandRunner } from "./probe-command.ts";

type ProbeType = "Liveness" | "Readiness";

interface ProberOptions {
  clock: Clock;
  /** Draws the first probe's delay after a kubelet (re)start. */
  rng: Rng;
  host: Host;
  recorder: EventRecorder;
  logger: Logger;
  /**
   * Runs an exec probe's command inside the container (a real runtime's ExecSync); without it the
   * command runs against the node paths behind the container's volumes (probe-command.ts).
   */
  execInContainer?: (
    instance: ContainerInstance,
    command: readonly string[],
    timeoutMs: number,
  ) => Promise<ProbeCommandResult>;
  /** Called once when a container's liveness result turns to Failure. */
  onLivenessFailure(podUID: string, containerName: string): void;
  /** Called when a container's readiness result turns (the pod's Ready condition must be written again). */
  onReadinessChange(podUID: string, containerName: string): void;
}

interface ProbeWorker {
  readonly type: ProbeType;
  readonly pod: Pod;
  readonly instance: ContainerInstance;
  readonly probe: Probe;
  timer?: Timer;
  /** The result the kubelet acts on: Success (true) or Failure (false). */
  success: boolean;
  lastProbeSucceeded: boolean | undefined;
  /** How many probes in a row gave lastProbeSucceeded. */
  resultRun: number;
  /** Liveness only: the result is Failure and the container is being restarted; no more probes. */
  onHold: boolean;
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && value > 0 ? value : fallback;
}

function probeOf(pod: Pod, containerName: string, type: ProbeType): Probe | undefined {
  const container = pod.spec?.containers.find((candidate) => candidate.name === containerName);
  return type === "Liveness" ? container?.livenessProbe : container?.readinessProbe;
}

const probeTypes: readonly ProbeType[] = ["Liveness", "Readiness"];

export class Prober {
  /** `<container id>/<probe type>` → worker. */
  private readonly workers = new Map<string, ProbeWorker>();
  private readonly startedAtMs: number;

  constructor(private readonly options: ProberOptions) {
    this.startedAtMs = options.clock.now();
  }

  /**
   * Probes a running container instance: the workers of its probes that are not running yet start
   * (nothing happens for a container without probes, or whose workers run already).
   */
  addContainer(pod: Pod, instance: ContainerInstance): void {
    for (const type of probeTypes) {
      const probe = probeOf(pod, instance.name, type);
      if (probe === undefined || this.workers.has(workerKey(instance.id, type))) continue;
      this.startWorker({
        type,
        pod,
        instance,
        probe,
        success: type === "Liveness",
        lastProbeSucceeded: undefined,
        resultRun: 0,
        onHold: false,
      });
    }
  }

  /** Whether the instance's liveness result is Failure (it must be restarted). */
  hasFailed(containerId: string): boolean {
    const worker = this.workers.get(workerKey(containerId, "Liveness"));
    return worker !== undefined && !worker.success;
  }

  /**
   * Whether the running instance is Ready: with a readiness worker, once its result is Success (a
   * probe not run yet counts as Failure); without one (no readiness probe, or a kubelet that has not
   * synced the pod yet) it is, as Kubernetes' UpdatePodStatus has it.
   */
  isReady(instance: ContainerInstance): boolean {
    return this.workers.get(workerKey(instance.id, "Readiness"))?.success ?? true;
  }

  removeContainer(containerId: string): void {
    for (const type of probeTypes) {
      const key = workerKey(containerId, type);
      this.workers.get(key)?.timer?.cancel();
      this.workers.delete(key);
    }
  }

  removePod(podUID: string): void {
    for (const worker of [...this.workers.values()]) {
      if (worker.instance.podUID === podUID) this.removeContainer(worker.instance.id);
    }
  }

  stop(): void {
    for (const worker of this.workers.values()) worker.timer?.cancel();
    this.workers.clear();
  }

  private startWorker(worker: ProbeWorker): void {
    this.workers.set(workerKey(worker.instance.id, worker.type), worker);
    const nowMs = this.options.clock.now();
    const initialDelayMs = (worker.probe.initialDelaySeconds ?? 0) * msPerSecond;
    const untilInitialDelayMs = Math.max(0, worker.instance.startedAtMs + initialDelayMs - nowMs);
    const periodMs = this.periodMs(worker);
    const restartedRecently = worker.instance.startedAtMs < this.startedAtMs && nowMs - this.startedAtMs < periodMs;
    const spreadMs = restartedRecently ? Math.floor(this.options.rng.next() * periodMs) : 0;
    this.schedule(worker, Math.max(untilInitialDelayMs, spreadMs));
  }

  private periodMs(worker: ProbeWorker): number {
    return positive(worker.probe.periodSeconds, probeDefaultPeriodSeconds) * msPerSecond;
  }

  private schedule(worker: ProbeWorker, delayMs: number): void {
    worker.timer = this.options.clock.setTimer(delayMs, () => {
      void this.probeOnce(worker);
    });
  }

  private isCurrent(worker: ProbeWorker): boolean {
    return this.workers.get(workerKey(worker.instance.id, worker.type)) === worker;
  }

  private async probeOnce(worker: ProbeWorker): Promise<void> {
    if (!this.isCurrent(worker) || worker.instance.state !== "running") return;
    const result = await this.runProbe(worker);
    if (!this.isCurrent(worker)) return;
    this.record(worker, result);
    if (!worker.onHold) this.schedule(worker, this.periodMs(worker));
  }

  private record(worker: ProbeWorker, result: ProbeCommandResult): void {
    const succeeded = result.exitCode === 0;
    if (!succeeded) this.reportFailure(worker, result.output);
    if (worker.lastProbeSucceeded === succeeded) worker.resultRun++;
    else {
      worker.lastProbeSucceeded = succeeded;
      worker.resultRun = 1;
    }
    const threshold = succeeded
      ? positive(worker.probe.successThreshold, probeDefaultSuccessThreshold)
      : positive(worker.probe.failureThreshold, probeDefaultFailureThreshold);
    if (worker.resultRun < threshold || worker.success === succeeded) return;
    worker.success = succeeded;
    const { podUID, name } = worker.instance;
    if (worker.type === "Readiness") {
      this.options.onReadinessChange(podUID, name);
      return;
    }
    worker.onHold = true;
    this.options.onLivenessFailure(podUID, name);
  }

  private reportFailure(worker: ProbeWorker, output: string): void {
    const { pod, instance } = worker;
    const reference = referenceTo(pod, `spec.containers{${instance.name}}`);
    this.options.recorder.eventForReference(
      reference,
      "Warning",
      eventReason.unhealthy,
      probeFailedMessage(worker.type, output),
    );
    this.options.logger.info("Probe failed", {
      probeType: worker.type,
      pod: objectKey(pod),
      containerName: instance.name,
      probeResult: "failure",
      output,
    });
  }

  /** One probe attempt, failing with Kubernetes' timeout text when it takes longer than timeoutSeconds. */
  private async runProbe(worker: ProbeWorker): Promise<ProbeCommandResult> {
    const command = worker.probe.exec?.command;
    if (command === undefined) return { exitCode: 0, output: "" };
    const timeoutMs = positive(worker.probe.timeoutSeconds, probeDefaultTimeoutSeconds) * msPerSecond;
    const exec = this.options.execInContainer;
    const runner =
      exec === undefined
        ? new ProbeCommandRunner(this.options.host, worker.instance.mounts)
        : { run: (cmd: readonly string[]) => exec(worker.instance, cmd, timeoutMs) };
    let timer: Timer | undefined;
    const timedOut = new Promise<ProbeCommandResult>((resolve) => {
      timer = this.options.clock.setTimer(timeoutMs, () =>
        resolve({ exitCode: 1, output: `command "${command.join(" ")}" timed out` }),
      );
    });
    const attempt = runner.run(command).catch(
      (error: unknown): ProbeCommandResult => ({
        exitCode: 1,
        output: errorMessage(error),
      }),
    );
    try {
      return await Promise.race([attempt, timedOut]);
    } finally {
      timer?.cancel();
    }
  }
}

function workerKey(containerId: string, type: ProbeType): string {
  return `${containerId}/${type}`;
}
