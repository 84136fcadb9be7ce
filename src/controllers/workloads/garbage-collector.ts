/**
 * Owner-reference garbage collection (`pkg/controller/garbagecollector`), reduced to background
 * propagation: when every owner an object names is gone from the API, the object is deleted
 * (gracefully, so a pod on a dead node stays Terminating); when only some are gone, the dangling
 * references are removed. Deleting a StatefulSet therefore deletes its pods, and deleting a
 * Deployment its ReplicaSets and, through them, their pods. Claims made from volumeClaimTemplates
 * carry no owner reference and stay.
 *
 * An owner missing from the cache is confirmed with a live read before anything is deleted, since
 * a dependent can reach the cache before its owner does. Owner kinds not listed below are never
 * judged. Foreground and Orphan deletion (an owner carrying `foregroundDeletion` or `orphan`)
 * are finished by deletion-propagation.ts, on queue keys of their own.
 */
import type { ApiObject } from "../../api/client/client.ts";
import { isNotFound } from "../../api/errors.ts";
import type { HandlerRegistration, SharedInformer } from "../../api/informer/shared-informer.ts";
import type { KindName } from "../../api/objects.ts";
import { resourceForKind } from "../../api/resources.ts";
import type { Controller, ControllerContext } from "../controller-context.ts";
import { garbageCollectorName, garbageCollectorWorkerCount } from "./constants.ts";
import type { OwnerReference } from "./controller-ref.ts";
import { awaitsPropagation, DeletionPropagation } from "./deletion-propagation.ts";
import { ensureOwnerIndex, ownedBy } from "./owner-index.ts";
import { SyncLoop } from "./sync-loop.ts";

/** Kinds whose deletion takes their dependents with them. */
const ownerKinds: readonly KindName[] = ["Deployment", "ReplicaSet", "StatefulSet", "Job", "Pod", "Node"];
/** Kinds that are collected when their owners are gone. */
const dependentKinds: readonly KindName[] = [
  "ReplicaSet",
  "ControllerRevision",
  "Pod",
  "PersistentVolumeClaim",
  "Lease",
];

const keySeparator = "|";
/** Queue keys of owners under Foreground/Orphan deletion start with this; the rest are dependents. */
const ownerKeyPrefix = `owner${keySeparator}`;

function ownerKey(kind: string, namespace: string, name: string): string {
  return `${ownerKeyPrefix}${kind}${keySeparator}${namespace}${keySeparator}${name}`;
}

function dependentKey(kind: KindName, object: ApiObject): string {
  return `${kind}${keySeparator}${object.metadata?.namespace ?? ""}${keySeparator}${object.metadata?.name ?? ""}`;
}

function parseDependentKey(key: string): { kind: KindName; namespace: string; name: string } {
  const [kind, namespace, name] = key.split(keySeparator);
  return { kind: kind as KindName, namespace: namespace ?? "", name: name ?? "" };
}

function sameOwners(a: ApiObject, b: ApiObject): boolean {
  const uids = (object: ApiObject) =>
    (object.metadata?.ownerReferences ?? []).map((reference) => reference.uid).join(",");
  return uids(a) === uids(b);
}

export class GarbageCollector implements Controller {
  readonly name = garbageCollectorName;
  private readonly context: ControllerContext;
  private readonly owners = new Map<KindName, SharedInformer<ApiObject>>();
  private readonly dependents = new Map<KindName, SharedInformer<ApiObject>>();
  private readonly loop: SyncLoop;
  private readonly propagation: DeletionPropagation;

  constructor(context: ControllerContext) {
    this.context = context;
    for (const kind of ownerKinds)
      this.owners.set(kind, context.informers.informerFor(kind) as SharedInformer<ApiObject>);
    for (const kind of dependentKinds) {
      const informer = context.informers.informerFor(kind) as SharedInformer<ApiObject>;
      ensureOwnerIndex(informer);
      this.dependents.set(kind, informer);
    }
    this.propagation = new DeletionPropagation(context, this.dependents);
    this.loop = new SyncLoop({
      name: this.name,
      context,
      workerCount: garbageCollectorWorkerCount,
      sync: (key) => this.sync(key),
      caches: [...this.owners.values(), ...this.dependents.values()],
    });
  }

  start(): void {
    const registrations: HandlerRegistration[] = [];
    for (const [kind, informer] of this.dependents) {
      const enqueue = (object: ApiObject) => {
        if ((object.metadata?.ownerReferences ?? []).length > 0) this.loop.queue.add(dependentKey(kind, object));
      };
      registrations.push(
        informer.addEventHandler({
          onAdd: enqueue,
          onUpdate: (oldObject, newObject) => {
            if (oldObject === newObject || !sameOwners(oldObject, newObject)) enqueue(newObject);
          },
        }),
      );
    }
    for (const [kind, informer] of this.owners) {
      const enqueueIfDeleting = (owner: ApiObject) => {
        if (awaitsPropagation(owner))
          this.loop.queue.add(ownerKey(kind, owner.metadata?.namespace ?? "", owner.metadata?.name ?? ""));
      };
      registrations.push(
        informer.addEventHandler({
          onAdd: enqueueIfDeleting,
          onUpdate: (_oldOwner, owner) => enqueueIfDeleting(owner),
          onDelete: (owner) => this.ownerGone(owner),
        }),
      );
    }
    for (const informer of this.dependents.values()) {
      registrations.push(informer.addEventHandler({ onDelete: (dependent) => this.dependentGone(dependent) }));
    }
    this.loop.start(registrations);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private ownerGone(owner: ApiObject): void {
    const uid = owner.metadata?.uid;
    if (uid === undefined) return;
    for (const [kind, informer] of this.dependents) {
      for (const dependent of ownedBy(informer, uid)) this.loop.queue.add(dependentKey(kind, dependent));
    }
  }

  /** A dependent that went away may be the last one an owner deleted in the foreground waits for. */
  private dependentGone(dependent: ApiObject): void {
    for (const reference of dependent.metadata?.ownerReferences ?? []) {
      const type = resourceForKind(reference.kind);
      if (type === undefined || !this.owners.has(type.kind)) continue;
      const namespace = type.namespaced ? (dependent.metadata?.namespace ?? "") : "";
      this.loop.queue.add(ownerKey(type.kind, namespace, reference.name));
    }
  }

  private async sync(key: string): Promise<void> {
    if (key.startsWith(ownerKeyPrefix)) {
      const { kind, namespace, name } = parseDependentKey(key.slice(ownerKeyPrefix.length));
      const owner = this.owners.get(kind)?.lister.get(namespace, name);
      if (owner !== undefined) await this.propagation.sync(kind, owner);
      return;
    }
    const { kind, namespace, name } = parseDependentKey(key);
    const dependent = this.dependents.get(kind)?.lister.get(namespace, name);
    const references = dependent?.metadata?.ownerReferences ?? [];
    if (dependent === undefined || references.length === 0 || dependent.metadata?.deletionTimestamp) return;
    const dangling: OwnerReference[] = [];
    for (const reference of references) {
      if (!(await this.ownerExists(reference, namespace))) dangling.push(reference);
    }
    if (dangling.length === 0) return;
    if (dangling.length === references.length) await this.deleteDependent(kind, dependent);
    else await this.removeReferences(kind, dependent, dangling);
  }

  /** True unless the owner is known to be gone (absent, or replaced by an object with another uid). */
  private async ownerExists(reference: OwnerReference, dependentNamespace: string): Promise<boolean> {
    const kind = reference.kind as KindName;
    const informer = this.owners.get(kind);
    const type = resourceForKind(kind);
    if (informer === undefined || type === undefined) return true;
    const namespace = type.namespaced ? dependentNamespace : "";
    if (informer.lister.get(namespace, reference.name)?.metadata?.uid === reference.uid) return true;
    try {
      const live = await this.context.client.resource(kind).get(namespace, reference.name);
      return live.metadata?.uid === reference.uid;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  private async deleteDependent(kind: KindName, dependent: ApiObject): Promise<void> {
    const { namespace = "", name = "", uid } = dependent.metadata ?? {};
    this.context.logger.info("deleting object whose owners are all gone", { kind, namespace, name });
    try {
      await this.context.client.resource(kind).delete(namespace, name, {
        propagationPolicy: "Background",
        ...(uid === undefined ? {} : { preconditions: { uid } }),
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private async removeReferences(
    kind: KindName,
    dependent: ApiObject,
    dangling: readonly OwnerReference[],
  ): Promise<void> {
    const goneUids = new Set(dangling.map((reference) => reference.uid));
    const { namespace = "", name = "" } = dependent.metadata ?? {};
    try {
      await this.context.client.resource(kind).mutate(namespace, name, (draft) => {
        const kept = (draft.metadata?.ownerReferences ?? []).filter((reference) => !goneUids.has(reference.uid));
        draft.metadata = { ...draft.metadata, ownerReferences: kept };
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
