/**
 * A ReplicaSet's status (replica_set_utils.go calculateStatus / updateReplicaSetStatus): counts of
 * its active pods, those with every template label, the Ready ones and the available ones (Ready
 * for minReadySeconds). Written only when something changed. The ReplicaFailure condition is not
 * reported; failures show as FailedCreate / FailedDelete events.
 */
import type { Client } from "../../api/client/client.ts";
import { isNotFound } from "../../api/errors.ts";
import type { Pod, ReplicaSet } from "../../api/objects.ts";
import { labelMatcherFromSet } from "../../api/selectors/labels.ts";
import { isPodAvailable, isPodReady } from "./pod-state.ts";

type ReplicaSetStatus = NonNullable<ReplicaSet["status"]>;

export function replicaSetStatusFrom(set: ReplicaSet, activePods: readonly Pod[], nowMs: number): ReplicaSetStatus {
  const templateLabels = labelMatcherFromSet(set.spec?.template?.metadata?.labels ?? {});
  const minReadySeconds = set.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of activePods) {
    if (templateLabels.matches(pod.metadata?.labels)) fullyLabeled++;
    if (!isPodReady(pod)) continue;
    ready++;
    if (isPodAvailable(pod, minReadySeconds, nowMs)) available++;
  }
  return {
    ...set.status,
    replicas: activePods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: set.metadata?.generation,
  };
}

const comparedFields = [
  "replicas",
  "fullyLabeledReplicas",
  "readyReplicas",
  "availableReplicas",
  "observedGeneration",
] as const;

/** Writes `next` when it differs; returns the set as it now is. */
export async function writeReplicaSetStatus(
  client: Client,
  set: ReplicaSet,
  next: ReplicaSetStatus,
): Promise<ReplicaSet> {
  if (comparedFields.every((field) => set.status?.[field] === next[field])) return set;
  try {
    return await client.replicaSets.mutate(
      set.metadata?.namespace ?? "",
      set.metadata?.name ?? "",
      (draft) => {
        draft.status = { ...draft.status, ...next };
      },
      { subresource: "status" },
    );
  } catch (error) {
    // Deleted meanwhile: nothing left to report on.
    if (isNotFound(error)) return set;
    throw error;
  }
}
