/**
 * The Job controller (`pkg/controller/job`), enough for run-to-completion pods such as a backup
 * that mounts a claim: it keeps up to `parallelism` pods running from the template until
 * `completions` pods have succeeded (Complete), or more than `backoffLimit` have failed (Failed,
 * `BackoffLimitExceeded`, its remaining pods deleted). Status counts active, ready, succeeded and
 * failed pods and records start and completion times, which `kubectl get jobs` shows.
 */
import type { JobCondition, JobStatus } from "kubernetes-types/batch/v1.js";
import { isNotFound } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { Job, Pod } from "../../api/objects.ts";
import { objectKey, splitObjectKey } from "../../api/objects.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { jobControllerName, workloadSyncWorkerCount } from "./constants.ts";
import { controllerKeyOf, newControllerRef } from "./controller-ref.ts";
import { ControllerExpectations } from "./expectations.ts";
import { controlledBy, ensureOwnerIndex } from "./owner-index.ts";
import { podFromTemplate } from "./pod-from-template.ts";
import { isPodReady, isPodTerminating } from "./pod-state.ts";
import { SyncLoop } from "./sync-loop.ts";

const backoffLimitExceededMessage = "Job has reached the specified backoff limit";

interface PodCounts {
  active: Pod[];
  succeeded: number;
  failed: number;
  ready: number;
}

function countPods(pods: readonly Pod[]): PodCounts {
  const active = pods.filter(
    (pod) => pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed" && !isPodTerminating(pod),
  );
  return {
    active,
    succeeded: pods.filter((pod) => pod.status?.phase === "Succeeded").length,
    failed: pods.filter((pod) => pod.status?.phase === "Failed").length,
    ready: active.filter(isPodReady).length,
  };
}

function isFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some(
    (condition) => (condition.type === "Complete" || condition.type === "Failed") && condition.status === "True",
  );
}

function condition(type: string, reason: string, message: string, nowMs: number): JobCondition {
  const time = formatRfc3339(nowMs);
  return { type, status: "True", reason, message, lastProbeTime: time, lastTransitionTime: time };
}

export class JobController implements Controller {
  readonly name = jobControllerName;
  private readonly context: ControllerContext;
  private readonly jobs: SharedInformer<Job>;
  private readonly pods: SharedInformer<Pod>;
  private readonly recorder: EventRecorder;
  private readonly expectations: ControllerExpectations;
  private readonly loop: SyncLoop;

  constructor(context: ControllerContext) {
    this.context = context;
    this.jobs = context.informers.informerFor("Job");
    this.pods = context.informers.informerFor("Pod");
    ensureOwnerIndex(this.pods);
    this.recorder = recorderFor(context, this.name);
    this.expectations = new ControllerExpectations(context.clock);
    this.loop = new SyncLoop({
      name: this.name,
      context,
      workerCount: workloadSyncWorkerCount,
      sync: (key) => this.sync(key),
      caches: [this.jobs, this.pods],
    });
  }

  start(): void {
    const enqueue = (job: Job) => this.loop.queue.add(objectKey(job));
    const podChanged = (pod: Pod) => {
      const key = controllerKeyOf(pod, "Job", this.jobs.lister);
      if (key !== undefined) this.loop.queue.add(key);
    };
    this.loop.start([
      this.jobs.addEventHandler({
        onAdd: enqueue,
        onUpdate: (_old, job) => enqueue(job),
        onDelete: (job) => this.expectations.delete(objectKey(job)),
      }),
      this.pods.addEventHandler({
        onAdd: (pod) => {
          const key = controllerKeyOf(pod, "Job", this.jobs.lister);
          if (key !== undefined) this.expectations.creationObserved(key);
          podChanged(pod);
        },
        onUpdate: (_old, pod) => podChanged(pod),
        onDelete: podChanged,
      }),
    ]);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.recorder.flush();
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const job = this.jobs.lister.get(namespace, name);
    if (job === undefined || job.metadata?.deletionTimestamp !== undefined) {
      this.expectations.delete(key);
      return;
    }
    if (isFinished(job)) return;
    const counts = countPods(controlledBy(this.pods, job.metadata?.uid ?? ""));
    const nowMs = this.context.clock.now();
    const completions = job.spec?.completions ?? 1;
    const status: JobStatus = {
      ...job.status,
      startTime: job.status?.startTime ?? formatRfc3339(nowMs),
      active: counts.active.length,
      ready: counts.ready,
      succeeded: counts.succeeded,
      failed: counts.failed,
      terminating: 0,
      uncountedTerminatedPods: {},
    };
    if (counts.failed > (job.spec?.backoffLimit ?? 6)) {
      await this.deleteActive(job, counts.active);
      status.active = 0;
      status.ready = 0;
      status.conditions = [
        ...(job.status?.conditions ?? []),
        condition("Failed", "BackoffLimitExceeded", backoffLimitExceededMessage, nowMs),
      ];
      this.recorder.event(job, "Warning", "BackoffLimitExceeded", backoffLimitExceededMessage);
    } else if (counts.succeeded >= completions) {
      status.completionTime = formatRfc3339(nowMs);
      status.conditions = [...(job.status?.conditions ?? []), condition("Complete", "", "", nowMs)];
      this.recorder.event(job, "Normal", "Completed", "Job completed");
    } else if (this.expectations.satisfied(key) && job.spec?.suspend !== true) {
      const wanted = Math.min(job.spec?.parallelism ?? 1, completions - counts.succeeded);
      await this.createPods(job, key, wanted - counts.active.length);
    }
    await this.writeStatus(job, status);
  }

  private async createPods(job: Job, key: string, count: number): Promise<void> {
    const template = job.spec?.template;
    if (count <= 0 || template === undefined) return;
    this.expectations.expectCreations(key, count);
    for (let created = 0; created < count; created++) {
      const pod = podFromTemplate(template, job, newControllerRef(job, "batch/v1", "Job"));
      try {
        const made = await this.context.client.pods.create(pod);
        this.recorder.event(job, "Normal", "SuccessfulCreate", `Created pod: ${made.metadata?.name ?? ""}`);
      } catch (error) {
        this.expectations.creationObserved(key);
        this.recorder.event(job, "Warning", "FailedCreate", `Error creating: ${errorMessage(error)}`);
        throw error;
      }
    }
  }

  private async deleteActive(job: Job, pods: readonly Pod[]): Promise<void> {
    for (const pod of pods) {
      const name = pod.metadata?.name ?? "";
      try {
        await this.context.client.pods.delete(pod.metadata?.namespace ?? "", name);
        this.recorder.event(job, "Normal", "SuccessfulDelete", `Deleted pod: ${name}`);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }

  private async writeStatus(job: Job, status: JobStatus): Promise<void> {
    if (JSON.stringify(job.status ?? {}) === JSON.stringify(status)) return;
    try {
      await this.context.client.resource("Job").mutate(
        job.metadata?.namespace ?? "",
        job.metadata?.name ?? "",
        (draft) => {
          draft.status = status;
        },
        { subresource: "status" },
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
