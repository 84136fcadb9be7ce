/**
 * The garbage collector's half of Foreground and Orphan deletion (kube-controller-manager's
 * `processDeletingDependentsItem` and `orphanDependents`). The API server marks an owner deleted
 * with propagationPolicy Orphan or Foreground with a finalizer; this finishes the job:
 * - `orphan`: the owner's uid is removed from every dependent's ownerReferences, then the
 *   finalizer from the owner, which lets the owner go while its dependents stay;
 * - `foregroundDeletion`: every dependent is deleted (in the foreground too, so the wait is
 *   transitive: a Deployment waits for its ReplicaSets, which wait for their pods), and the
 *   finalizer comes off once no dependent with `blockOwnerDeletion` is left.
 */
import type { ApiObject } from "../../api/client/client.ts";
import { isNotFound } from "../../api/errors.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { KindName } from "../../api/objects.ts";
import { foregroundDeletionFinalizer, orphanFinalizer } from "../../api/store/deletion-propagation.ts";
import type { ControllerContext } from "../controller-context.ts";
import { ownedBy } from "./owner-index.ts";

/** True when `owner` waits for the collector: being deleted with one of its finalizers. */
export function awaitsPropagation(owner: ApiObject): boolean {
  const finalizers = owner.metadata?.finalizers ?? [];
  return (
    owner.metadata?.deletionTimestamp !== undefined &&
    (finalizers.includes(orphanFinalizer) || finalizers.includes(foregroundDeletionFinalizer))
  );
}

function blocksOwner(dependent: ApiObject, ownerUid: string): boolean {
  return (dependent.metadata?.ownerReferences ?? []).some(
    (reference) => reference.uid === ownerUid && reference.blockOwnerDeletion === true,
  );
}

export class DeletionPropagation {
  constructor(
    private readonly context: ControllerContext,
    private readonly dependents: ReadonlyMap<KindName, SharedInformer<ApiObject>>,
  ) {}

  /** One pass for an owner under deletion; called again whenever one of its dependents goes away. */
  async sync(kind: KindName, owner: ApiObject): Promise<void> {
    const uid = owner.metadata?.uid;
    if (uid === undefined || !awaitsPropagation(owner)) return;
    const finalizers = owner.metadata?.finalizers ?? [];
    if (finalizers.includes(orphanFinalizer)) {
      await this.orphanDependents(uid);
      await this.removeFinalizer(kind, owner, orphanFinalizer);
      return;
    }
    const blocking = await this.deleteDependents(uid);
    if (blocking === 0) await this.removeFinalizer(kind, owner, foregroundDeletionFinalizer);
  }

  private async orphanDependents(ownerUid: string): Promise<void> {
    for (const [kind, informer] of this.dependents) {
      for (const dependent of ownedBy(informer, ownerUid)) {
        const { namespace = "", name = "" } = dependent.metadata ?? {};
        await this.ignoringNotFound(() =>
          this.context.client.resource(kind).mutate(namespace, name, (draft) => {
            const kept = (draft.metadata?.ownerReferences ?? []).filter((reference) => reference.uid !== ownerUid);
            draft.metadata = { ...draft.metadata, ownerReferences: kept.length > 0 ? kept : undefined };
          }),
        );
      }
    }
  }

  /** Deletes the dependents not yet being deleted; answers how many dependents still block the owner. */
  private async deleteDependents(ownerUid: string): Promise<number> {
    let blocking = 0;
    for (const [kind, informer] of this.dependents) {
      for (const dependent of ownedBy(informer, ownerUid)) {
        if (blocksOwner(dependent, ownerUid)) blocking++;
        if (dependent.metadata?.deletionTimestamp !== undefined) continue;
        const { namespace = "", name = "", uid } = dependent.metadata ?? {};
        this.context.logger.info("deleting dependent of an owner deleted in the foreground", { kind, namespace, name });
        await this.ignoringNotFound(() =>
          this.context.client.resource(kind).delete(namespace, name, {
            propagationPolicy: "Foreground",
            ...(uid === undefined ? {} : { preconditions: { uid } }),
          }),
        );
      }
    }
    return blocking;
  }

  private async removeFinalizer(kind: KindName, owner: ApiObject, finalizer: string): Promise<void> {
    const { namespace = "", name = "" } = owner.metadata ?? {};
    await this.ignoringNotFound(() =>
      this.context.client.resource(kind).mutate(namespace, name, (draft) => {
        if (draft.metadata?.uid !== owner.metadata?.uid) return;
        const kept = (draft.metadata?.finalizers ?? []).filter((name) => name !== finalizer);
        draft.metadata = { ...draft.metadata, finalizers: kept.length > 0 ? kept : undefined };
      }),
    );
  }

  private async ignoringNotFound(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
