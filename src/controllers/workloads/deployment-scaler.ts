/**
 * Resizing one of a Deployment's ReplicaSets (sync.go scaleReplicaSetAndRecordEvent), with the
 * event `kubectl describe deployment` shows: `Scaled up replica set web-7d4b9c5f8 to 2`.
 * The write carries the cached resourceVersion, so a decision made on a stale cache fails with
 * Conflict and the Deployment is synced again instead of overwriting a newer size.
 *
 * The event uses the wording of Kubernetes up to 1.28; later releases say "from 1 to 2".
 */
import type { Client } from "../../api/client/client.ts";
import { clone } from "../../api/client/copy.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Deployment, ReplicaSet } from "../../api/objects.ts";
import { desiredReplicasAnnotation, maxReplicasAnnotation } from "./constants.ts";
import { desiredReplicas, maxSurge } from "./deployment-rollout-limits.ts";
import { specReplicas } from "./replicaset-totals.ts";

interface ScaleResult {
  scaled: boolean;
  /** The set as written (or as given, when nothing was written). */
  set: ReplicaSet;
}

/** deploymentutil.SetReplicasAnnotations: the size the Deployment wanted and allowed when it last scaled. */
export function replicasAnnotations(deployment: Deployment): Record<string, string> {
  const desired = desiredReplicas(deployment);
  return {
    [desiredReplicasAnnotation]: String(desired),
    [maxReplicasAnnotation]: String(desired + maxSurge(deployment)),
  };
}

export class ReplicaSetScaler {
  private readonly client: Client;
  private readonly recorder: EventRecorder;

  constructor(client: Client, recorder: EventRecorder) {
    this.client = client;
    this.recorder = recorder;
  }

  async scale(set: ReplicaSet, newScale: number, deployment: Deployment): Promise<ScaleResult> {
    const oldScale = specReplicas(set);
    if (oldScale === newScale) return { scaled: false, set };
    const copy = clone(set);
    copy.spec = { ...copy.spec, replicas: newScale, selector: copy.spec?.selector ?? {} };
    copy.metadata = {
      ...copy.metadata,
      annotations: { ...copy.metadata?.annotations, ...replicasAnnotations(deployment) },
    };
    const written = await this.client.replicaSets.update(copy);
    const direction = oldScale < newScale ? "up" : "down";
    this.recorder.event(
      deployment,
      "Normal",
      "ScalingReplicaSet",
      `Scaled ${direction} replica set ${written.metadata?.name ?? ""} to ${newScale}`,
    );
    return { scaled: true, set: written };
  }
}
