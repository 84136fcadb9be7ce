/**
 * What the namespace controller does to a namespace being deleted (namespaced_resources_deleter):
 * every object of every namespaced kind in it is deleted (in the background, as DeleteCollection
 * does), and what is still there afterwards is counted: the content remaining, and the finalizers
 * that hold it, which the namespace's conditions report.
 */
import type { Client } from "../../api/client/client.ts";
import { isNotFound, qualifiedResource } from "../../api/errors.ts";
import type { KObject } from "../../api/objects.ts";
import { RESOURCES, type ResourceType } from "../../api/resources.ts";

export interface ContentLeft {
  /** Objects still present, by resource (`pods`, `deployments.apps`). */
  remaining: Map<string, number>;
  /** Objects held by each finalizer. */
  finalizers: Map<string, number>;
}

function countUp(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

async function deleteOfKind(client: Client, type: ResourceType, namespace: string, left: ContentLeft): Promise<void> {
  const resource = client.resource(type.kind);
  const { items } = await resource.list({ namespace });
  for (const item of items as KObject[]) {
    const name = item.metadata?.name ?? "";
    const stillThere = item.metadata?.deletionTimestamp
      ? item
      : await resource.delete(namespace, name, { propagationPolicy: "Background" }).catch((error: unknown) => {
          // Gone in between: one object less to wait for.
          if (isNotFound(error)) return undefined;
          throw error;
        });
    const object = stillThere as KObject | undefined;
    if (object === undefined || !object.metadata?.deletionTimestamp) continue;
    countUp(left.remaining, qualifiedResource(type.plural, type.group));
    for (const finalizer of object.metadata.finalizers ?? []) countUp(left.finalizers, finalizer);
  }
}

/** Deletes everything in `namespace`; returns what could not go yet. */
export async function deleteAllContent(client: Client, namespace: string): Promise<ContentLeft> {
  const left: ContentLeft = { remaining: new Map(), finalizers: new Map() };
  for (const type of RESOURCES) {
    if (type.namespaced) await deleteOfKind(client, type, namespace, left);
  }
  return left;
}

export function isEmpty(left: ContentLeft): boolean {
  return left.remaining.size === 0 && left.finalizers.size === 0;
}
