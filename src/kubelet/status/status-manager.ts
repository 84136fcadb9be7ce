/**
 * The kubelet's status manager (pkg/kubelet/status): writes the pod status the kubelet generated
 * to the API, and sends the final delete of a terminated pod. Writes for one pod are serialised
 * and skipped when the stored status already says the same, so an idle resync costs one read.
 * Every write is pinned to the pod's uid: a pod recreated under the same name (a StatefulSet's
 * `web-0`) is never written with its predecessor's status, nor deleted in its place.
 */
import type { Pod, PodCondition, PodStatus } from "kubernetes-types/core/v1.js";
import type { Client } from "../../api/client/client.ts";
import { sameJsonText } from "../../api/client/merge-patch.ts";
import { retryOnConflict } from "../../api/client/retry-on-conflict.ts";
import { isNotFound } from "../../api/errors.ts";
import { objectKey } from "../../api/objects.ts";
import { setPodCondition } from "../../api/pod-conditions.ts";
import { jsonEqual } from "../../api/store/json-equal.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { type GeneratedPodStatus, kubeletConditionTypes } from "./generate-pod-status.ts";

interface StatusManagerOptions {
  client: Client;
  clock: Clock;
  logger: Logger;
}

/**
 * The stored status with the kubelet-owned fields replaced by `generated`. Each part identical to
 * the stored one (same JSON, fields in the same order) is the stored, frozen part itself, and a
 * status that changes nothing is the stored status: a repeated sync allocates no copy, compares by
 * identity, and a write shares the unchanged parts with the previous version instead of copying them.
 */
export function mergePodStatus(stored: PodStatus | undefined, generated: GeneratedPodStatus, nowMs: number): PodStatus {
  const conditions = mergeConditions(stored?.conditions, generated.conditions, nowMs);
  const hostIPs = isOnlyHostIP(stored?.hostIPs, generated.hostIP) ? stored?.hostIPs : [{ ip: generated.hostIP }];
  const containerStatuses = sameJsonText(stored?.containerStatuses, generated.containerStatuses)
    ? stored?.containerStatuses
    : generated.containerStatuses;
  if (
    stored !== undefined &&
    stored.conditions === conditions &&
    stored.phase === generated.phase &&
    stored.hostIP === generated.hostIP &&
    stored.hostIPs === hostIPs &&
    stored.startTime === generated.startTime &&
    stored.containerStatuses === containerStatuses
  ) {
    return stored;
  }
  return {
    ...stored,
    conditions,
    phase: generated.phase,
    hostIP: generated.hostIP,
    hostIPs,
    startTime: generated.startTime,
    containerStatuses,
  };
}

/**
 * The stored conditions with the kubelet's set in place: one new array (a status and its conditions
 * copied once per condition was most of this function's cost), or the stored array itself when
 * every condition stays as it is.
 */
function mergeConditions(
  stored: readonly PodCondition[] | undefined,
  generated: readonly Omit<PodCondition, "lastTransitionTime">[],
  nowMs: number,
): PodCondition[] {
  const conditions = (stored ?? []).filter(
    (condition) => !kubeletConditionTypes.has(condition.type) || generated.some((g) => g.type === condition.type),
  );
  for (const condition of generated) setPodCondition(conditions, condition, nowMs);
  const unchanged =
    stored !== undefined &&
    conditions.length === stored.length &&
    conditions.every((condition, index) => condition === stored[index]);
  return unchanged ? (stored as PodCondition[]) : conditions;
}

/** True when `hostIPs` is exactly `[{ ip: hostIP }]`. */
function isOnlyHostIP(hostIPs: PodStatus["hostIPs"], hostIP: string): boolean {
  const only = hostIPs?.length === 1 ? hostIPs[0] : undefined;
  return only !== undefined && only.ip === hostIP && Object.keys(only).length === 1;
}

export class StatusManager {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** The write in progress per pod uid; the next write for the pod waits for it. */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(options: StatusManagerOptions) {
    this.client = options.client;
    this.clock = options.clock;
    this.logger = options.logger;
  }

  /** Writes the generated status unless the stored one already matches; resolves once written. */
  setPodStatus(pod: Pod, generated: GeneratedPodStatus): Promise<void> {
    return this.serialised(pod, () => this.writeStatus(pod, generated));
  }

  /** The final delete (grace period 0, uid precondition) of a pod whose containers and volumes are gone. */
  deletePod(pod: Pod): Promise<void> {
    return this.serialised(pod, async () => {
      const { namespace = "", name = "", uid } = pod.metadata ?? {};
      try {
        await this.client.pods.delete(namespace, name, {
          gracePeriodSeconds: 0,
          ...(uid === undefined ? {} : { preconditions: { uid } }),
        });
        this.logger.info("Pod fully terminated and removed from etcd", { pod: objectKey(pod), podUID: uid });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    });
  }

  private serialised(pod: Pod, write: () => Promise<void>): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    const previous = this.inFlight.get(uid) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(write);
    const tracked = next.finally(() => {
      if (this.inFlight.get(uid) === tracked) this.inFlight.delete(uid);
    });
    tracked.catch(() => undefined);
    this.inFlight.set(uid, tracked);
    return next;
  }

  private async writeStatus(pod: Pod, generated: GeneratedPodStatus): Promise<void> {
    const { namespace = "", name = "", uid } = pod.metadata ?? {};
    await retryOnConflict(async () => {
      let current: Pod;
      try {
        current = await this.client.pods.get(namespace, name);
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      if (current.metadata?.uid !== uid) return;
      const status = mergePodStatus(current.status, generated, this.clock.now());
      if (jsonEqual(status, current.status)) return;
      // The stored pod is frozen and shared: a spread with the new status is the write (the store
      // copies only what is not frozen), where a deep copy of the whole pod was garbage at once.
      await this.client.pods.updateStatus({ ...current, status });
    });
  }
}
