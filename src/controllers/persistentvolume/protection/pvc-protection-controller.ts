/**
 * The PVC protection controller (pkg/controller/volume/pvcprotection): every claim carries
 * `kubernetes.io/pvc-protection`, and a deleted claim keeps it, staying Terminating, while a pod
 * that names it exists (Kubernetes' podUsesPVC): a pod placed on a node (`spec.nodeName` set) that
 * references the claim, whatever its phase — a Succeeded or Failed pod keeps the claim until the pod
 * object is gone, since its volumes may still be mounted on the node until the kubelet is done. An
 * unscheduled pod does not count: the kubelet never starts a pod whose claim is being deleted. A
 * claim of a generic ephemeral volume counts for its owning pod only until the pod is shut down
 * (deleted with a zero grace period: the kubelet finished, or it was force-deleted).
 * The pod cache answers first (Kubernetes' askInformer, then askAPIServer). When it finds no user, the
 * cache is trusted only once it has caught up with the claim's revision: revisions are one sequence
 * across kinds, so a pod informer that has seen a revision at or past the claim's has seen every pod
 * created before the claim was deleted. Otherwise a live list of the namespace's pods makes sure a pod
 * created a moment ago is not missed. Without this the live list, of every pod of the namespace for
 * every deleted claim, made deleting N claims cost N × pods.
 */

import type { Indexer } from "../../../api/informer/indexer.ts";
import { podsByClaim } from "../../../api/informer/indexes.ts";
import type { Lister } from "../../../api/informer/lister.ts";
import type { HandlerRegistration, SharedInformer } from "../../../api/informer/shared-informer.ts";
import type { PersistentVolumeClaim, Pod } from "../../../api/objects.ts";
import { splitObjectKey } from "../../../api/objects.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { Logger } from "../../../runtime/logger.ts";
import { defaultControllerRateLimiter } from "../../../runtime/rate-limiter.ts";
import { runWorkers } from "../../../runtime/run-workers.ts";
import { WorkQueue } from "../../../runtime/workqueue.ts";
import type { Controller, ControllerContext } from "../../controller-context.ts";
import { claimKeyOf, pvcProtectionFinalizer } from "../annotations.ts";
import { ensurePodsByClaimIndex, isPodTerminated, podsReferencingClaim } from "../claim-users.ts";
import { addFinalizer, isDeletionCandidate, needsFinalizer, removeFinalizer } from "./finalizers.ts";

const pvcProtectionControllerName = "pvc-protection-controller";

/** podUsesPVC: the pod is on a node and names the claim (an ephemeral one only until it shut down). */
function podUsesClaim(pod: Pod, claim: PersistentVolumeClaim): boolean {
  if (!pod.spec?.nodeName || pod.metadata?.namespace !== claim.metadata?.namespace) return false;
  const claimName = claim.metadata?.name;
  return (pod.spec.volumes ?? []).some(
    (volume) =>
      volume.persistentVolumeClaim?.claimName === claimName ||
      (volume.ephemeral !== undefined &&
        !podIsShutDown(pod) &&
        `${pod.metadata?.name ?? ""}-${volume.name}` === claimName &&
        isControlledBy(claim, pod)),
  );
}

/** The kubelet is done with the pod, or it was force-deleted: deleted with a zero grace period. */
function podIsShutDown(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds === 0;
}

function isControlledBy(claim: PersistentVolumeClaim, pod: Pod): boolean {
  const uid = pod.metadata?.uid;
  return (claim.metadata?.ownerReferences ?? []).some((owner) => owner.controller === true && owner.uid === uid);
}

export class PvcProtectionController implements Controller {
  readonly name = pvcProtectionControllerName;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly queue: WorkQueue<string>;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly pods: Indexer<Pod>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly registrations: HandlerRegistration[] = [];
  private running: Promise<void> | undefined;

  constructor(context: ControllerContext) {
    this.context = context;
    this.logger = context.logger.with({ component: pvcProtectionControllerName });
    this.queue = new WorkQueue({
      name: "pvc-protection",
      clock: context.clock,
      rateLimiter: defaultControllerRateLimiter<string>(context.clock),
      ...(context.metrics === undefined ? {} : { metrics: context.metrics }),
    });
    const podInformer = context.informers.informerFor("Pod");
    ensurePodsByClaimIndex(podInformer);
    this.pods = podInformer.indexer;
    this.podInformer = podInformer;
    this.claims = context.informers.informerFor("PersistentVolumeClaim").lister;
  }

  start(): void {
    if (this.running !== undefined) throw new Error(`${this.name}: start() called twice`);
    const claimInformer = this.context.informers.informerFor("PersistentVolumeClaim");
    const podInformer = this.context.informers.informerFor("Pod");
    const onClaim = (claim: PersistentVolumeClaim) => this.enqueueClaimIfNeeded(claim);
    this.registrations.push(
      claimInformer.addEventHandler({ onAdd: onClaim, onUpdate: (_old, claim) => onClaim(claim) }),
      podInformer.addEventHandler({
        onAdd: (pod) => this.enqueueClaimsOf(pod, false),
        onUpdate: (old, pod) => {
          this.enqueueClaimsOf(pod, false);
          // A delete and re-create under the same name can arrive as one update: the old pod is gone.
          if (old.metadata?.uid !== pod.metadata?.uid) this.enqueueClaimsOf(old, true);
        },
        onDelete: (pod) => this.enqueueClaimsOf(pod, true),
      }),
    );
    this.running = runWorkers(
      this.queue,
      1,
      (key) => this.processClaim(key),
      (key, error) =>
        this.logger.warn("could not update the claim's protection finalizer; retrying", {
          key,
          error: errorMessage(error),
        }),
    );
  }

  async stop(): Promise<void> {
    for (const registration of this.registrations) registration.remove();
    this.queue.shutDown();
    await this.running;
  }

  private enqueueClaimIfNeeded(claim: PersistentVolumeClaim): void {
    if (needsFinalizer(claim, pvcProtectionFinalizer) || isDeletionCandidate(claim, pvcProtectionFinalizer)) {
      this.queue.add(claimKeyOf(claim));
    }
  }

  /** Only a pod that stopped holding its claims (gone, finished or unscheduled) can release one. */
  private enqueueClaimsOf(pod: Pod, deleted: boolean): void {
    if (!deleted && !isPodTerminated(pod) && pod.spec?.nodeName) return;
    for (const claimKey of podsByClaim.indexFunc(pod)) this.queue.add(claimKey);
  }

  private async processClaim(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const claim = this.claims.get(namespace, name);
    if (claim === undefined) return;
    const resource = this.context.client.persistentVolumeClaims;
    if (isDeletionCandidate(claim, pvcProtectionFinalizer)) {
      if (!(await this.isBeingUsed(claim))) {
        await removeFinalizer(resource, claim, pvcProtectionFinalizer);
        return;
      }
      this.logger.debug("keeping the claim: a pod uses it", { claim: key });
    }
    if (needsFinalizer(claim, pvcProtectionFinalizer)) await addFinalizer(resource, claim, pvcProtectionFinalizer);
  }

  private async isBeingUsed(claim: PersistentVolumeClaim): Promise<boolean> {
    const cached = podsReferencingClaim(this.pods, claimKeyOf(claim));
    if (cached.some((pod) => podUsesClaim(pod, claim))) return true;
    if (this.podCacheHasCaughtUpWith(claim)) return false;
    const live = await this.context.client.pods.list({ namespace: claim.metadata?.namespace ?? "" });
    return live.items.some((pod) => podUsesClaim(pod, claim));
  }

  /** The pod informer has seen the claim's revision (the deletion or later), so every pod created before. */
  private podCacheHasCaughtUpWith(claim: PersistentVolumeClaim): boolean {
    const claimRevision = Number(claim.metadata?.resourceVersion);
    const cacheRevision = Number(this.podInformer.lastSyncResourceVersion());
    return claimRevision > 0 && cacheRevision >= claimRevision;
  }
}
