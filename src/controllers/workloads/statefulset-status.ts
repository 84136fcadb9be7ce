/**
 * A StatefulSet's status from what a sync pass saw (`stateful_set_control.go`
 * updateStatefulSetStatus): written only when it differs, so a quiet set costs no write. Once every
 * pod is at the update revision and ready, the update revision becomes the current one
 * (completeRollingUpdate).
 */
import type { Client } from "../../api/client/client.ts";
import { isNotFound } from "../../api/errors.ts";
import type { StatefulSet } from "../../api/objects.ts";
import type { StatefulSetCounts } from "./statefulset-sync.ts";

type StatefulSetStatus = NonNullable<StatefulSet["status"]>;

export function statefulSetStatusFrom(set: StatefulSet, counts: StatefulSetCounts): StatefulSetStatus {
  const status: StatefulSetStatus = {
    ...set.status,
    observedGeneration: set.metadata?.generation,
    replicas: counts.replicas,
    readyReplicas: counts.readyReplicas,
    availableReplicas: counts.availableReplicas,
    currentReplicas: counts.currentReplicas,
    updatedReplicas: counts.updatedReplicas,
    currentRevision: counts.currentRevision,
    updateRevision: counts.updateRevision,
  };
  const rollingUpdate = (set.spec?.updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate";
  if (rollingUpdate && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
  return status;
}

const comparedFields = [
  "observedGeneration",
  "replicas",
  "readyReplicas",
  "availableReplicas",
  "currentReplicas",
  "updatedReplicas",
  "currentRevision",
  "updateRevision",
] as const;

function differs(current: StatefulSetStatus | undefined, next: StatefulSetStatus): boolean {
  return comparedFields.some((field) => current?.[field] !== next[field]);
}

/** Writes `next` through the status subresource when it differs from what the set shows. */
export async function writeStatefulSetStatus(client: Client, set: StatefulSet, next: StatefulSetStatus): Promise<void> {
  if (!differs(set.status, next)) return;
  try {
    await client.statefulSets.mutate(
      set.metadata?.namespace ?? "",
      set.metadata?.name ?? "",
      (draft) => {
        draft.status = { ...draft.status, ...pick(next), replicas: next.replicas };
      },
      { subresource: "status" },
    );
  } catch (error) {
    // The set was deleted meanwhile: there is nobody left to report to.
    if (!isNotFound(error)) throw error;
  }
}

function pick(status: StatefulSetStatus): Partial<StatefulSetStatus> {
  return Object.fromEntries(comparedFields.map((field) => [field, status[field]]));
}
