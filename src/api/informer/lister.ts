/**
 * Read access to an informer's cache in the shape controllers use (client-go's generated listers):
 * get one object, list with a label selector, list one namespace. Answers come from memory, cost no
 * API call, and are the cache's frozen objects (copy before changing).
 */
import type { ApiObject } from "../client/client.ts";
import { objectKey } from "../objects.ts";
import type { LabelMatcher } from "../selectors/labels.ts";
import { type Indexer, namespaceIndexName } from "./indexer.ts";

export class Lister<T extends ApiObject> {
  private readonly indexer: Indexer<T>;

  constructor(indexer: Indexer<T>) {
    this.indexer = indexer;
  }

  /** The cached object, or undefined. `namespace` is `""` for cluster-scoped kinds. */
  get(namespace: string, name: string): T | undefined {
    return this.indexer.get(namespace === "" ? name : objectKey({ metadata: { namespace, name } }));
  }

  /** Every cached object whose labels match `selector` (all of them without one). O(cache size). */
  list(selector?: LabelMatcher): T[] {
    const all = this.indexer.listAll();
    if (selector === undefined || selector.isEverything()) return all;
    return all.filter((object) => selector.matches(object.metadata?.labels));
  }

  /** The cached objects in `namespace`, optionally filtered by `selector`. O(objects in the namespace). */
  listNamespace(namespace: string, selector?: LabelMatcher): T[] {
    const inNamespace = this.indexer.byIndex(namespaceIndexName, namespace);
    if (selector === undefined || selector.isEverything()) return inNamespace;
    return inNamespace.filter((object) => selector.matches(object.metadata?.labels));
  }
}
