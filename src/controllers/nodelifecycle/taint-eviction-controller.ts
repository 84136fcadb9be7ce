/**
 * The taint eviction controller (pkg/controller/tainteviction, once the node lifecycle controller's
 * "taint manager"): deletes pods from nodes with NoExecute taints they do not tolerate.
 *
 * - A pod that does not tolerate every NoExecute taint of its node is deleted at once.
 * - A pod that tolerates them all, some for a limited `tolerationSeconds`, is deleted when the
 *   shortest of those runs out, counted from when this controller noticed the taint (Kubernetes'
 *   rule; in a running cluster that is within milliseconds of the taint's `timeAdded`). A pod whose
 *   tolerations have no limit stays.
 * - When the taints go away (the node recovers) or the pod goes away, the pending deletion is
 *   cancelled with a `TaintManagerEviction` "Cancelling deletion of Pod <ns>/<name>" event.
 *
 * Deletion is graceful: the pod gets the DisruptionTarget condition and a deletionTimestamp, and on
 * a dead node stays Terminating, since no kubelet confirms it. Each pod is evicted once; the record
 * of it stays until the pod or the taint goes, as in Kubernetes.
 *
 * Default tolerations: the DefaultTolerationSeconds admission plugin gives every pod 300 s
 * tolerations for `not-ready` and `unreachable` NoExecute when it is created
 * (src/api/admission/default-tolerations.ts). Until the API server applies it, this controller
 * treats a pod lacking them as having them, so eviction happens ~5 minutes after tainting, as in a
 * real cluster; once admission runs, the two views agree.
 */

import { effectiveTolerations } from "../../api/admission/default-tolerations.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import { ensureIndex, podsByNode } from "../../api/informer/indexes.ts";
import type { HandlerRegistration, SharedInformer } from "../../api/informer/shared-informer.ts";
import { type Node, objectKey, type Pod, splitObjectKey } from "../../api/objects.ts";
import { updatePodCondition } from "../../api/pod-conditions.ts";
import { matchingTolerations, type Taint, type Toleration } from "../../api/scheduling/taints.ts";
import { jsonEqual } from "../../api/store/json-equal.ts";
import type { Timer } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import type { Logger } from "../../runtime/logger.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import {
  conditionDisruptionTarget,
  evictionRetries,
  evictionRetrySleepMs,
  messageDeletionByTaintManager,
  reasonDeletionByTaintManager,
  reasonTaintManagerEviction,
  taintEvictionControllerName,
} from "./constants.ts";

interface Eviction {
  /** When the eviction was first scheduled. */
  createdAtMs: number;
  timer: Timer | undefined;
  /** "done" keeps the record so the pod is not evicted twice. */
  state: "scheduled" | "running" | "done";
}

function noExecuteTaints(node: Node | undefined): Taint[] {
  return (node?.spec?.taints ?? []).filter((taint) => taint.effect === "NoExecute");
}

/** getMinTolerationTime: 0 for no tolerations or any limit ≤ 0, −1 for no limit at all, else the shortest. */
export function minTolerationMs(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let shortestSeconds = Number.POSITIVE_INFINITY;
  for (const toleration of tolerations) {
    const seconds = toleration.tolerationSeconds;
    if (seconds === undefined) continue;
    if (seconds <= 0) return 0;
    shortestSeconds = Math.min(shortestSeconds, seconds);
  }
  return shortestSeconds === Number.POSITIVE_INFINITY ? -1 : shortestSeconds * msPerSecond;
}

export class TaintEvictionController implements Controller {
  readonly name = taintEvictionControllerName;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly nodes: SharedInformer<Node>;
  private readonly pods: SharedInformer<Pod>;
  /** Nodes with NoExecute taints, and those taints. */
  private readonly taintedNodes = new Map<string, Taint[]>();
  private readonly evictions = new Map<string, Eviction>();
  private readonly running = new Set<Promise<void>>();
  private registrations: HandlerRegistration[] = [];
  private stopped = false;

  constructor(context: ControllerContext) {
    this.context = context;
    this.logger = context.logger.with({ component: this.name });
    this.recorder = recorderFor(context, this.name);
    this.nodes = context.informers.informerFor("Node");
    this.pods = context.informers.informerFor("Pod");
    ensureIndex(this.pods, podsByNode);
  }

  start(): void {
    if (this.registrations.length > 0) return;
    this.registrations = [
      this.nodes.addEventHandler({
        onAdd: (node) => this.nodeChanged(node),
        onUpdate: (oldNode, newNode) => {
          if (!jsonEqual(noExecuteTaints(oldNode), noExecuteTaints(newNode))) this.nodeChanged(newNode);
        },
        onDelete: (node) => this.taintedNodes.delete(node.metadata?.name ?? ""),
      }),
      this.pods.addEventHandler({
        onAdd: (pod) => this.podChanged(pod),
        onUpdate: (oldPod, newPod) => {
          const sameNode = oldPod.spec?.nodeName === newPod.spec?.nodeName;
          if (!sameNode || !jsonEqual(oldPod.spec?.tolerations, newPod.spec?.tolerations)) this.podChanged(newPod);
        },
        onDelete: (pod) => this.cancelEviction(objectKey(pod)),
      }),
    ];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const registration of this.registrations) registration.remove();
    this.registrations = [];
    for (const eviction of this.evictions.values()) eviction.timer?.cancel();
    await Promise.all([...this.running]);
    await this.recorder.flush();
  }

  private nodeChanged(node: Node): void {
    const name = node.metadata?.name ?? "";
    const taints = noExecuteTaints(node);
    if (taints.length === 0) this.taintedNodes.delete(name);
    else this.taintedNodes.set(name, taints);
    const pods = this.pods.indexer.byIndex(podsByNode.name, name);
    const nowMs = this.context.clock.now();
    for (const pod of pods) {
      if (taints.length === 0) this.cancelEviction(objectKey(pod));
      else this.processPodOnNode(pod, taints, nowMs);
    }
  }

  private podChanged(pod: Pod): void {
    const taints = this.taintedNodes.get(pod.spec?.nodeName ?? "");
    if (taints !== undefined) this.processPodOnNode(pod, taints, this.context.clock.now());
  }

  private processPodOnNode(pod: Pod, taints: readonly Taint[], nowMs: number): void {
    const key = objectKey(pod);
    const tolerations = effectiveTolerations(pod.spec?.tolerations, {
      notReadySeconds: this.context.timers.defaultNotReadyTolerationSeconds,
      unreachableSeconds: this.context.timers.defaultUnreachableTolerationSeconds,
    });
    const { allTolerated, used } = matchingTolerations(taints, tolerations);
    if (!allTolerated) {
      this.cancelEviction(key);
      this.scheduleEviction(key, nowMs, nowMs);
      return;
    }
    const tolerationMs = minTolerationMs(used);
    if (tolerationMs < 0) {
      this.cancelEviction(key);
      return;
    }
    const existing = this.evictions.get(key);
    // A deletion already scheduled earlier keeps its (earlier) deadline.
    if (existing?.state === "scheduled" && existing.createdAtMs < nowMs) return;
    if (existing?.state === "scheduled") this.cancelEviction(key);
    this.scheduleEviction(key, existing?.createdAtMs ?? nowMs, nowMs + tolerationMs);
  }

  /** AddWork: ignored while a record for the pod exists (scheduled, running or done). */
  private scheduleEviction(key: string, createdAtMs: number, fireAtMs: number): void {
    if (this.stopped || this.evictions.has(key)) return;
    const eviction: Eviction = { createdAtMs, timer: undefined, state: "scheduled" };
    this.evictions.set(key, eviction);
    const delayMs = Math.max(0, fireAtMs - this.context.clock.now());
    eviction.timer = this.context.clock.setTimer(delayMs, () => {
      eviction.timer = undefined;
      const run = this.evict(key, eviction);
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
    });
  }

  /**
   * cancelWorkWithEvent: drops the record, even of a finished eviction, but says so only when there
   * was something to cancel — TimedWorkerQueue keeps a finished eviction as a nil worker, for which
   * CancelWork reports nothing (a pod force-deleted after its eviction gets no "Cancelling" event).
   */
  private cancelEviction(key: string): void {
    const eviction = this.evictions.get(key);
    if (eviction === undefined) return;
    eviction.timer?.cancel();
    this.evictions.delete(key);
    if (eviction.state !== "done") this.podEvent(key, `Cancelling deletion of Pod ${key}`);
  }

  private async evict(key: string, eviction: Eviction): Promise<void> {
    if (this.evictions.get(key) !== eviction || this.stopped) return;
    eviction.state = "running";
    this.podEvent(key, `Marking for deletion Pod ${key}`);
    let lastError: unknown;
    for (let attempt = 1; attempt <= evictionRetries; attempt++) {
      try {
        await this.markAndDelete(key);
        eviction.state = "done";
        return;
      } catch (error) {
        lastError = error;
        if (attempt < evictionRetries) await this.context.clock.sleep(evictionRetrySleepMs);
      }
    }
    if (this.evictions.get(key) === eviction) this.evictions.delete(key);
    this.logger.error("failed to evict the pod from its tainted node", { pod: key, error: lastError });
  }

  /** addConditionAndDeletePod: DisruptionTarget=True, then a graceful delete. */
  private async markAndDelete(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const pods = this.context.client.pods;
    const pod = await pods.get(namespace, name);
    const disruption = {
      type: conditionDisruptionTarget,
      status: "True",
      reason: reasonDeletionByTaintManager,
      message: messageDeletionByTaintManager,
    };
    const { status, changed } = updatePodCondition(pod.status, disruption, this.context.clock.now());
    if (changed) {
      await pods.patch(namespace, name, { status: { conditions: status.conditions ?? [] } }, { subresource: "status" });
    }
    await pods.delete(namespace, name);
  }

  /** The taint manager names the pod by namespace and name only. */
  private podEvent(key: string, message: string): void {
    const { namespace, name } = splitObjectKey(key);
    this.recorder.eventForReference(
      { kind: "Pod", namespace, name, apiVersion: "v1" },
      "Normal",
      reasonTaintManagerEviction,
      message,
    );
  }
}
