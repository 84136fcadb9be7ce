/**
 * TEST-ONLY stand-in for the kubelet, for workload tests that do not need the node agent (`kubelet/sim-node-agent.ts`).
 * It drives the pod lifecycle the workload controllers react to, and nothing else:
 * - a pod bound to a live node (one added with `addNode` whose heartbeat runs) is reported Running
 *   and Ready `standInPodStartDelayMs` later;
 * - a terminating pod on a live node is deleted for good (grace period 0)
 *   `standInContainerStopDelayMs` later, or at the end of its grace period if that is sooner;
 * - on a node whose heartbeat stopped (powered off) nothing happens: pods stay as they are, and a
 *   terminating pod stays Terminating, as on a real dead node.
 *
 * It ignores volumes entirely: a pod is "Ready" even if its claim is unbound or its volume could
 * never attach. Use it for workload behaviour, never for storage behaviour.
 */
import type { Client } from "../api/client/client.ts";
import { isConflict, isNotFound } from "../api/errors.ts";
import { ensureIndex, podsByNode } from "../api/informer/indexes.ts";
import type { HandlerRegistration, SharedInformer } from "../api/informer/shared-informer.ts";
import type { Pod } from "../api/objects.ts";
import { type Clock, formatRfc3339, type Timer } from "../runtime/clock.ts";
import { msPerSecond } from "../runtime/duration.ts";
import { errorMessage } from "../runtime/error-message.ts";
import type { Logger } from "../runtime/logger.ts";
import { standInContainerStopDelayMs, standInPodStartDelayMs } from "./constants.ts";

interface StandInKubeletOptions {
  client: Client;
  clock: Clock;
  logger: Logger;
  pods: SharedInformer<Pod>;
  /** True while the node's heartbeat runs. */
  isNodeAlive: (nodeName: string) => boolean;
}

type PodAction = "start" | "finish";

function isFinished(pod: Pod): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

function isStarted(pod: Pod): boolean {
  return pod.status?.phase === "Running" && pod.status.conditions?.some((c) => c.type === "Ready") === true;
}

export class StandInKubelet {
  private readonly options: StandInKubeletOptions;
  /** At most one pending action per pod uid. */
  private readonly pending = new Map<string, { action: PodAction; timer: Timer }>();
  private registration: HandlerRegistration | undefined;

  constructor(options: StandInKubeletOptions) {
    this.options = options;
    ensureIndex(options.pods, podsByNode);
  }

  start(): void {
    this.registration ??= this.options.pods.addEventHandler({
      onAdd: (pod) => this.consider(pod),
      onUpdate: (_old, pod) => this.consider(pod),
    });
  }

  stop(): void {
    this.registration?.remove();
    this.registration = undefined;
    for (const { timer } of this.pending.values()) timer.cancel();
    this.pending.clear();
  }

  /** The node came back: look at its pods again. */
  nodeResumed(nodeName: string): void {
    for (const pod of this.options.pods.indexer.byIndex(podsByNode.name, nodeName)) this.consider(pod);
  }

  private actionFor(pod: Pod): PodAction | undefined {
    const nodeName = pod.spec?.nodeName;
    if (!nodeName || !this.options.isNodeAlive(nodeName)) return undefined;
    if (pod.metadata?.deletionTimestamp !== undefined) return "finish";
    if (isFinished(pod) || isStarted(pod)) return undefined;
    return "start";
  }

  private consider(pod: Pod): void {
    const action = this.actionFor(pod);
    const uid = pod.metadata?.uid ?? "";
    const pending = this.pending.get(uid);
    if (action === undefined || pending?.action === action) return;
    pending?.timer.cancel();
    const timer = this.options.clock.setTimer(this.delayFor(pod, action), () => {
      this.pending.delete(uid);
      void this.act(pod, action);
    });
    this.pending.set(uid, { action, timer });
  }

  private delayFor(pod: Pod, action: PodAction): number {
    if (action === "start") return standInPodStartDelayMs;
    const graceMs = (pod.metadata?.deletionGracePeriodSeconds ?? 0) * msPerSecond;
    return Math.min(standInContainerStopDelayMs, graceMs);
  }

  private async act(seen: Pod, action: PodAction): Promise<void> {
    const { namespace = "", name = "", uid } = seen.metadata ?? {};
    const current = this.options.pods.lister.get(namespace, name);
    if (current === undefined || current.metadata?.uid !== uid || this.actionFor(current) !== action) return;
    try {
      if (action === "start") await this.reportRunning(namespace, name);
      else await this.options.client.pods.delete(namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (error) {
      // Gone or changed meanwhile: the informer event that follows decides again.
      if (isNotFound(error) || isConflict(error)) return;
      const why = errorMessage(error);
      this.options.logger.warn("stand-in kubelet could not update a pod", {
        pod: `${namespace}/${name}`,
        action,
        error: why,
      });
    }
  }

  private reportRunning(namespace: string, name: string): Promise<Pod> {
    const now = formatRfc3339(this.options.clock.now());
    const condition = (type: string) => ({ type, status: "True", lastTransitionTime: now });
    return this.options.client.pods.mutate(
      namespace,
      name,
      (draft) => {
        const containers = draft.spec?.containers ?? [];
        draft.status = {
          ...draft.status,
          phase: "Running",
          startTime: draft.status?.startTime ?? now,
          conditions: ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map(
            condition,
          ),
          containerStatuses: containers.map((container) => ({
            name: container.name,
            image: container.image ?? "",
            imageID: "",
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: now } },
          })),
        };
      },
      { subresource: "status" },
    );
  }
}
