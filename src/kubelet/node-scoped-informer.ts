/**
 * Informers for what one node agent needs to watch, and nothing more: its own pods
 * (`spec.nodeName=<node>`) and its own Node (`metadata.name=<node>`), as the kubelet's pod config
 * and node informer do. A pod that gets bound to the node arrives as an add; one that leaves the
 * selection arrives as a delete.
 */
import type { ApiObject, ResourceClient } from "../api/client/client.ts";
import { SharedInformer } from "../api/informer/shared-informer.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Rng } from "../runtime/rng.ts";

/** `resource` with every list and watch restricted to `fieldSelector`. */
function selectingFields<T extends ApiObject>(resource: ResourceClient<T>, fieldSelector: string): ResourceClient<T> {
  return {
    type: resource.type,
    get: (namespace, name) => resource.get(namespace, name),
    list: (options = {}) => resource.list({ ...options, fieldSelector }),
    create: (object) => resource.create(object),
    update: (object) => resource.update(object),
    updateStatus: (object) => resource.updateStatus(object),
    patch: (namespace, name, patch, options) => resource.patch(namespace, name, patch, options),
    mutate: (namespace, name, fn, options) => resource.mutate(namespace, name, fn, options),
    delete: (namespace, name, options) => resource.delete(namespace, name, options),
    watch: (options, onEvent) => resource.watch({ ...options, fieldSelector }, onEvent),
  };
}

interface NodeScopedInformerOptions {
  clock: Clock;
  rng: Rng;
  logger: Logger;
}

/** An informer over the objects of `resource` matching `fieldSelector`, without resync. */
export function nodeScopedInformer<T extends ApiObject>(
  resource: ResourceClient<T>,
  fieldSelector: string,
  options: NodeScopedInformerOptions,
): SharedInformer<T> {
  return new SharedInformer(selectingFields(resource, fieldSelector), { ...options, resyncPeriodMs: 0 });
}
