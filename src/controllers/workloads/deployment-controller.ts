/**
 * The Deployment controller (`pkg/controller/deployment`): for each Deployment, finds the
 * ReplicaSet for its current template (creating `<deployment>-<hash>` when there is none), moves
 * pods from the old sets to the new one by the Deployment's strategy, deletes surplus old sets and
 * reports status. It never touches pods itself; the ReplicaSet controller does.
 *
 * Simplified: a paused Deployment only reports status; resizing a Deployment in the middle of a
 * rollout is not spread proportionally over its sets (the rollout step sizes them instead);
 * rollbacks through `spec.rollbackTo` and ReplicaSet adoption are not supported.
 */
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { Deployment, Pod, ReplicaSet } from "../../api/objects.ts";
import { objectKey, splitObjectKey } from "../../api/objects.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { deploymentControllerName, workloadSyncWorkerCount } from "./constants.ts";
import { controllerKeyOf } from "./controller-ref.ts";
import { cleanupOldReplicaSets } from "./deployment-cleanup.ts";
import { rolloutRecreate } from "./deployment-recreate.ts";
import { type DeploymentReplicaSets, NewReplicaSetWriter, splitReplicaSets } from "./deployment-replicasets.ts";
import { rolloutRolling } from "./deployment-rolling.ts";
import { desiredReplicas, isRollingUpdate } from "./deployment-rollout-limits.ts";
import { ReplicaSetScaler } from "./deployment-scaler.ts";
import { type DeploymentStatus, deploymentStatusFrom, writeDeploymentStatus } from "./deployment-status.ts";
import { controlledBy, ensureOwnerIndex } from "./owner-index.ts";
import { SyncLoop } from "./sync-loop.ts";
import { enqueueControllerOnEveryChange, enqueueOnEveryChange } from "./workload-events.ts";

export class DeploymentController implements Controller {
  readonly name = deploymentControllerName;
  private readonly context: ControllerContext;
  private readonly deployments: SharedInformer<Deployment>;
  private readonly replicaSets: SharedInformer<ReplicaSet>;
  private readonly pods: SharedInformer<Pod>;
  private readonly recorder: EventRecorder;
  private readonly scaler: ReplicaSetScaler;
  private readonly writer: NewReplicaSetWriter;
  private readonly loop: SyncLoop;

  constructor(context: ControllerContext) {
    this.context = context;
    this.deployments = context.informers.informerFor("Deployment");
    this.replicaSets = context.informers.informerFor("ReplicaSet");
    this.pods = context.informers.informerFor("Pod");
    ensureOwnerIndex(this.replicaSets);
    ensureOwnerIndex(this.pods);
    this.recorder = recorderFor(context, this.name);
    this.scaler = new ReplicaSetScaler(context.client, this.recorder);
    this.writer = new NewReplicaSetWriter(context.client, this.recorder);
    this.loop = new SyncLoop({
      name: this.name,
      context,
      workerCount: workloadSyncWorkerCount,
      sync: (key) => this.sync(key),
      caches: [this.deployments, this.replicaSets, this.pods],
    });
  }

  start(): void {
    const queue = this.loop.queue;
    this.loop.start([
      this.deployments.addEventHandler(enqueueOnEveryChange(queue)),
      this.replicaSets.addEventHandler(enqueueControllerOnEveryChange(queue, "Deployment", this.deployments.lister)),
      this.pods.addEventHandler({ onDelete: (pod) => this.podGone(pod) }),
    ]);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.recorder.flush();
  }

  /** Recreate waits for old pods to be gone, and only a pod's deletion says when that happens. */
  private podGone(pod: Pod): void {
    const setKey = controllerKeyOf(pod, "ReplicaSet", this.replicaSets.lister);
    if (setKey === undefined) return;
    const { namespace, name } = splitObjectKey(setKey);
    const set = this.replicaSets.lister.get(namespace, name);
    const deploymentKey = set && controllerKeyOf(set, "Deployment", this.deployments.lister);
    if (deploymentKey === undefined) return;
    const deployment = this.deployments.lister.get(namespace, splitObjectKey(deploymentKey).name);
    if (deployment !== undefined && !isRollingUpdate(deployment)) this.loop.queue.add(deploymentKey);
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const deployment = this.deployments.lister.get(namespace, name);
    if (deployment === undefined) return;
    const owned = controlledBy(this.replicaSets, deployment.metadata?.uid ?? "");
    let sets = splitReplicaSets(deployment, owned);
    if (deployment.metadata?.deletionTimestamp !== undefined || deployment.spec?.paused) {
      await this.writeStatus(deployment, sets);
      return;
    }
    sets = await this.writer.sync(deployment, sets, isRollingUpdate(deployment));
    sets = await this.rollOut(deployment, sets);
    if (isComplete(deployment, deployment.status)) {
      await cleanupOldReplicaSets(this.context.client, deployment, sets.oldSets);
    }
    await this.writeStatus(deployment, sets);
  }

  private rollOut(deployment: Deployment, sets: DeploymentReplicaSets): Promise<DeploymentReplicaSets> {
    if (!isRollingUpdate(deployment)) {
      const podsOf = (set: ReplicaSet) => controlledBy(this.pods, set.metadata?.uid ?? "");
      return rolloutRecreate(deployment, sets, { scaler: this.scaler, writer: this.writer, podsOf });
    }
    const { newSet, oldSets } = sets;
    if (newSet === undefined) throw new Error(`Deployment ${objectKey(deployment)} has no new ReplicaSet to roll out`);
    return rolloutRolling(deployment, { newSet, oldSets }, this.scaler);
  }

  private async writeStatus(deployment: Deployment, sets: DeploymentReplicaSets): Promise<void> {
    const status = deploymentStatusFrom(deployment, sets, this.context.clock.now());
    await writeDeploymentStatus(this.context.client, deployment, status);
  }
}

/** deploymentutil.DeploymentComplete: every wanted pod is new and available, and the spec was observed. */
function isComplete(deployment: Deployment, status: DeploymentStatus | undefined): boolean {
  const desired = desiredReplicas(deployment);
  return (
    status?.updatedReplicas === desired &&
    status.replicas === desired &&
    status.availableReplicas === desired &&
    (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0)
  );
}
