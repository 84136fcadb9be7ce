/**
 * The informer event handlers the workload controllers share: an owner kind queues its own key on
 * every change, and a dependent kind queues the owner that controls it (the `enqueue` and
 * `resolveControllerRef` halves of Kubernetes' handlers).
 */
import type { ApiObject } from "../../api/client/client.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type { ResourceEventHandler } from "../../api/informer/shared-informer.ts";
import { objectKey } from "../../api/objects.ts";
import type { WorkQueue } from "../../runtime/workqueue.ts";
import { controllerKeyOf } from "./controller-ref.ts";

/** Queues the object's own `namespace/name` on every add, update and delete. */
export function enqueueOnEveryChange<T extends ApiObject>(queue: WorkQueue<string>): ResourceEventHandler<T> {
  const enqueue = (object: T) => queue.add(objectKey(object));
  return { onAdd: enqueue, onUpdate: (_old, object) => enqueue(object), onDelete: enqueue };
}

/**
 * Queues the `ownerKind` in `owners` that controls the dependent, on every add, update and delete.
 * An update queues the controller of both versions: the reference may have moved between them.
 */
export function enqueueControllerOnEveryChange<T extends ApiObject, Owner extends ApiObject>(
  queue: WorkQueue<string>,
  ownerKind: string,
  owners: Lister<Owner>,
): ResourceEventHandler<T> {
  const enqueueOwner = (dependent: T) => {
    const key = controllerKeyOf(dependent, ownerKind, owners);
    if (key !== undefined) queue.add(key);
  };
  return {
    onAdd: enqueueOwner,
    onUpdate: (oldDependent, newDependent) => {
      enqueueOwner(newDependent);
      enqueueOwner(oldDependent);
    },
    onDelete: enqueueOwner,
  };
}
