/**
 * Liveness probes (pkg/kubelet/prober): one worker per running container instance that has a
 * liveness probe. It probes `initialDelaySeconds` after the container started and every
 * `periodSeconds` after that; every failure is a Warning `Unhealthy` event
 * (`Liveness probe failed: <output>`), and `failureThreshold` consecutive failures make the result
 * Failure: the worker holds (as Kubernetes' `onHold`) and tells the kubelet, which kills and
 * restarts the container. A new container instance gets a fresh worker.
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
import { probeDefaultFailureThreshold, probeDefaultPeriodSeconds, probeDefaultTimeoutSeconds } from "../constants.ts";
import type { ContainerInstance } from "../container/sim-container-runtime.ts";
import { eventReason, probeFailedMessage } from "../events.ts";
import { type ProbeCommandResult, ProbeCommandRunner } from "./probe-command.ts";

export interface LivenessProberOptions {
  clock: Clock;
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
  onFailure(podUID: string, containerName: string): void;
}

interface ProbeWorker {
  readonly pod: Pod;
  readonly instance: ContainerInstance;
  readonly probe: Probe;
  timer?: Timer;
  consecutiveFailures: number;
  failed: boolean;
}

function seconds(value: number | undefined, fallback: number): number {
  return value !== undefined && value > 0 ? value : fallback;
}

export class LivenessProber {
  private readonly workers = new Map<string, ProbeWorker>();

  constructor(private readonly options: LivenessProberOptions) {}

  /** Starts probing a container instance that just started (nothing happens without a liveness probe). */
  addContainer(pod: Pod, instance: ContainerInstance): void {
    const container = pod.spec?.containers.find((candidate) => candidate.name === instance.name);
    const probe = container?.livenessProbe;
    if (probe === undefined) return;
    this.removeContainer(instance.id);
    const worker: ProbeWorker = {
      pod,
      instance,
      probe,
      consecutiveFailures: 0,
      failed: false,
    };
    this.workers.set(instance.id, worker);
    const initialDelayMs = (probe.initialDelaySeconds ?? 0) * msPerSecond;
    const sinceStartMs = this.options.clock.now() - instance.startedAtMs;
    this.schedule(worker, Math.max(0, initialDelayMs - sinceStartMs));
  }

  /** Whether the instance's liveness result is Failure (it must be restarted). */
  hasFailed(containerId: string): boolean {
    return this.workers.get(containerId)?.failed === true;
  }

  removeContainer(containerId: string): void {
    this.workers.get(containerId)?.timer?.cancel();
    this.workers.delete(containerId);
  }

  removePod(podUID: string): void {
    for (const [id, worker] of this.workers) if (worker.instance.podUID === podUID) this.removeContainer(id);
  }

  stop(): void {
    for (const id of [...this.workers.keys()]) this.removeContainer(id);
  }

  private schedule(worker: ProbeWorker, delayMs: number): void {
    worker.timer = this.options.clock.setTimer(delayMs, () => {
      void this.probeOnce(worker);
    });
  }

  private async probeOnce(worker: ProbeWorker): Promise<void> {
    if (this.workers.get(worker.instance.id) !== worker || worker.instance.state !== "running") return;
    const result = await this.runProbe(worker);
    if (this.workers.get(worker.instance.id) !== worker) return;
    this.record(worker, result);
    if (!worker.failed)
      this.schedule(worker, seconds(worker.probe.periodSeconds, probeDefaultPeriodSeconds) * msPerSecond);
  }

  private record(worker: ProbeWorker, result: ProbeCommandResult): void {
    if (result.exitCode === 0) {
      worker.consecutiveFailures = 0;
      return;
    }
    worker.consecutiveFailures++;
    const { pod, instance } = worker;
    const reference = referenceTo(pod, `spec.containers{${instance.name}}`);
    this.options.recorder.eventForReference(
      reference,
      "Warning",
      eventReason.unhealthy,
      probeFailedMessage("Liveness", result.output),
    );
    this.options.logger.info("Probe failed", {
      probeType: "Liveness",
      pod: objectKey(pod),
      containerName: instance.name,
      probeResult: "failure",
      output: result.output,
    });
    const threshold = seconds(worker.probe.failureThreshold, probeDefaultFailureThreshold);
    if (worker.consecutiveFailures >= threshold) {
      worker.failed = true;
      this.options.onFailure(instance.podUID, instance.name);
    }
  }

  /** One probe attempt, failing with Kubernetes' timeout text when it takes longer than timeoutSeconds. */
  private async runProbe(worker: ProbeWorker): Promise<ProbeCommandResult> {
    const command = worker.probe.exec?.command;
    if (command === undefined) return { exitCode: 0, output: "" };
    const timeoutMs = seconds(worker.probe.timeoutSeconds, probeDefaultTimeoutSeconds) * msPerSecond;
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
