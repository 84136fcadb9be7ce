/**
 * A Deployment's new and old ReplicaSets (deploymentutil.FindNewReplicaSet / FindOldReplicaSets and
 * sync.go getNewReplicaSet). The new one is the oldest set whose template equals the Deployment's,
 * ignoring the pod-template-hash label; every other set is old. A template nobody has yet gets a
 * new set `<deployment>-<hash>`, labelled and selected by `pod-template-hash`, with the next
 * revision number.
 */
import type { Client } from "../../api/client/client.ts";
import { clone } from "../../api/client/copy.ts";
import { isAlreadyExists } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Deployment, ReplicaSet } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { podTemplateHashLabel, revisionAnnotation } from "./constants.ts";
import { isControlledBy, newControllerRef } from "./controller-ref.ts";
import { desiredReplicas, isRollingUpdate, maxSurge } from "./deployment-rollout-limits.ts";
import { replicasAnnotations } from "./deployment-scaler.ts";
import { byCreation, revisionOf, specReplicas, totalSpecReplicas } from "./replicaset-totals.ts";
import { computeTemplateHash, templatesEqualIgnoringHash } from "./template-hash.ts";

export interface DeploymentReplicaSets {
  newSet: ReplicaSet | undefined;
  oldSets: ReplicaSet[];
}

/** Deployment annotations that describe the Deployment itself and are not copied to its sets. */
const annotationsNotCopied: ReadonlySet<string> = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  "deployment.kubernetes.io/revision",
  "deployment.kubernetes.io/revision-history",
  "deployment.kubernetes.io/desired-replicas",
  "deployment.kubernetes.io/max-replicas",
  "deprecated.deployment.rollback.to",
]);

export function splitReplicaSets(deployment: Deployment, sets: readonly ReplicaSet[]): DeploymentReplicaSets {
  const template = deployment.spec?.template ?? {};
  const sorted = byCreation(sets);
  const newSet = sorted.find((set) => templatesEqualIgnoringHash(set.spec?.template ?? {}, template));
  return { newSet, oldSets: sorted.filter((set) => set !== newSet) };
}

/** How many pods a new set should start with, given every set's current size (NewRSNewReplicas). */
export function newSetReplicas(deployment: Deployment, allSets: readonly ReplicaSet[], newSet: ReplicaSet): number {
  const desired = desiredReplicas(deployment);
  if (!isRollingUpdate(deployment)) return desired;
  const current = totalSpecReplicas(allSets);
  const maxTotal = desired + maxSurge(deployment);
  if (current >= maxTotal) return specReplicas(newSet);
  return specReplicas(newSet) + Math.min(maxTotal - current, desired - specReplicas(newSet));
}

function copiedAnnotations(deployment: Deployment): Record<string, string> {
  const annotations = Object.entries(deployment.metadata?.annotations ?? {});
  return Object.fromEntries(annotations.filter(([key]) => !annotationsNotCopied.has(key)));
}

function buildNewReplicaSet(deployment: Deployment, revision: number): ReplicaSet {
  const template = clone(deployment.spec?.template ?? {});
  const hash = computeTemplateHash(template, deployment.status?.collisionCount);
  const labels = { ...template.metadata?.labels, [podTemplateHashLabel]: hash };
  const selector = clone(deployment.spec?.selector ?? {});
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: `${deployment.metadata?.name ?? ""}-${hash}`,
      namespace: deployment.metadata?.namespace,
      labels,
      annotations: { ...copiedAnnotations(deployment), [revisionAnnotation]: String(revision) },
      ownerReferences: [newControllerRef(deployment, "apps/v1", "Deployment")],
    },
    spec: {
      replicas: 0,
      minReadySeconds: deployment.spec?.minReadySeconds,
      selector: { ...selector, matchLabels: { ...selector.matchLabels, [podTemplateHashLabel]: hash } },
      template: { ...template, metadata: { ...template.metadata, labels } },
    },
  };
}

export class NewReplicaSetWriter {
  private readonly client: Client;
  private readonly recorder: EventRecorder;

  constructor(client: Client, recorder: EventRecorder) {
    this.client = client;
    this.recorder = recorder;
  }

  /**
   * Brings the new set's revision up to date, or creates the new set when `create` is true and
   * there is none (getAllReplicaSetsAndSyncRevision). Returns the sets as they now are.
   */
  async sync(deployment: Deployment, sets: DeploymentReplicaSets, create: boolean): Promise<DeploymentReplicaSets> {
    const nextRevision = Math.max(0, ...sets.oldSets.map(revisionOf)) + 1;
    let newSet = sets.newSet;
    if (newSet !== undefined) newSet = await this.updateRevision(deployment, newSet, nextRevision);
    else if (create) newSet = await this.create(deployment, sets.oldSets, nextRevision);
    if (newSet !== undefined) await this.recordRevisionOnDeployment(deployment, revisionOf(newSet));
    return { newSet, oldSets: sets.oldSets };
  }

  /** A set that becomes new again (a rollback) gets the next revision number. */
  private async updateRevision(deployment: Deployment, set: ReplicaSet, nextRevision: number): Promise<ReplicaSet> {
    const revisionBehind = revisionOf(set) < nextRevision;
    const minReadySeconds = deployment.spec?.minReadySeconds;
    if (!revisionBehind && set.spec?.minReadySeconds === minReadySeconds) return set;
    const copy = clone(set);
    const annotations = { ...copiedAnnotations(deployment), ...copy.metadata?.annotations };
    if (revisionBehind) annotations[revisionAnnotation] = String(nextRevision);
    copy.metadata = { ...copy.metadata, annotations };
    copy.spec = { ...copy.spec, minReadySeconds, selector: copy.spec?.selector ?? {} };
    return this.client.replicaSets.update(copy);
  }

  private async create(deployment: Deployment, oldSets: readonly ReplicaSet[], revision: number): Promise<ReplicaSet> {
    const draft = buildNewReplicaSet(deployment, revision);
    const replicas = newSetReplicas(deployment, [...oldSets, draft], draft);
    const metadata = {
      ...draft.metadata,
      annotations: { ...draft.metadata?.annotations, ...replicasAnnotations(deployment) },
    };
    const set: ReplicaSet = {
      ...draft,
      metadata,
      spec: { ...draft.spec, replicas, selector: draft.spec?.selector ?? {} },
    };
    let created: ReplicaSet;
    try {
      created = await this.client.replicaSets.create(set);
    } catch (error) {
      if (isAlreadyExists(error)) return this.adoptOrCollide(deployment, set);
      const why = errorMessage(error);
      const message = `Failed to create new replica set "${set.metadata?.name ?? ""}": ${why}`;
      this.recorder.event(deployment, "Warning", "ReplicaSetCreateError", message);
      throw error;
    }
    if (replicas > 0) {
      const message = `Scaled up replica set ${created.metadata?.name ?? ""} to ${replicas}`;
      this.recorder.event(deployment, "Normal", "ScalingReplicaSet", message);
    }
    return created;
  }

  /**
   * The name is taken: by this Deployment's own set for this template (a cache that had not shown
   * it yet), or by a different template whose hash collides — then the collision count goes up,
   * giving the next attempt a different hash.
   */
  private async adoptOrCollide(deployment: Deployment, wanted: ReplicaSet): Promise<ReplicaSet> {
    const existing = await this.client.replicaSets.get(wanted.metadata?.namespace ?? "", wanted.metadata?.name ?? "");
    const sameTemplate = templatesEqualIgnoringHash(existing.spec?.template ?? {}, deployment.spec?.template ?? {});
    if (isControlledBy(existing, deployment.metadata?.uid) && sameTemplate) return existing;
    await this.client.deployments.mutate(
      deployment.metadata?.namespace ?? "",
      deployment.metadata?.name ?? "",
      (draft) => {
        draft.status = { ...draft.status, collisionCount: (draft.status?.collisionCount ?? 0) + 1 };
      },
      { subresource: "status" },
    );
    throw new Error(
      `replica set name "${wanted.metadata?.name ?? ""}" is taken by a different template; collision count raised, retrying with a new hash`,
    );
  }

  /** `kubectl rollout history` reads the Deployment's revision annotation. */
  private async recordRevisionOnDeployment(deployment: Deployment, revision: number): Promise<void> {
    if (deployment.metadata?.annotations?.[revisionAnnotation] === String(revision)) return;
    await this.client.deployments.mutate(
      deployment.metadata?.namespace ?? "",
      deployment.metadata?.name ?? "",
      (draft) => {
        draft.metadata = {
          ...draft.metadata,
          annotations: { ...draft.metadata?.annotations, [revisionAnnotation]: String(revision) },
        };
      },
    );
  }
}
