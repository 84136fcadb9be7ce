/**
 * The PV controller's own caches of volumes and claims (pv_controller.go `storeObjectUpdate`). A bind
 * makes four writes in a row; the informer delivers each result later. The controller stores what
 * it wrote at once, and an informer delivery older than that is ignored, so the next write starts
 * from the newest version instead of failing with a Conflict. The same version passes, so periodic
 * resyncs still reach the sync functions.
 */
import type { ApiObject } from "../../api/client/client.ts";
import { objectKey } from "../../api/objects.ts";

/** Called when an object is stored under a key; `previous` is what was there (undefined when new). */
type CacheChangeHandler<T> = (previous: T | undefined, next: T | undefined) => void;

export class VersionedCache<T extends ApiObject> {
  private readonly items = new Map<string, T>();
  private readonly onChange: CacheChangeHandler<T> | undefined;

  constructor(onChange?: CacheChangeHandler<T>) {
    this.onChange = onChange;
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  values(): IterableIterator<T> {
    return this.items.values();
  }

  /**
   * Stores `object` unless the cache already holds a newer version of it. Returns true when stored
   * (the object is new, the same version, or newer), false when it was an older version.
   */
  storeIfNotOlder(object: T): boolean {
    const key = objectKey(object);
    const previous = this.items.get(key);
    if (previous !== undefined && resourceVersionOf(previous) > resourceVersionOf(object)) return false;
    this.items.set(key, object);
    this.onChange?.(previous, object);
    return true;
  }

  /**
   * The newer of `object` and the cached version of the same object (same UID): another worker may
   * have written it since `object` was read, and writing from the older version would conflict.
   */
  newest(object: T): T {
    const cached = this.items.get(objectKey(object));
    if (cached === undefined || cached.metadata?.uid !== object.metadata?.uid) return object;
    return resourceVersionOf(cached) > resourceVersionOf(object) ? cached : object;
  }

  delete(key: string): T | undefined {
    const previous = this.items.get(key);
    if (previous === undefined) return undefined;
    this.items.delete(key);
    this.onChange?.(previous, undefined);
    return previous;
  }
}

/** The store's resourceVersion is one global counter, so versions of an object compare as integers. */
function resourceVersionOf(object: ApiObject): number {
  const text = object.metadata?.resourceVersion ?? "";
  const version = Number(text);
  if (text === "" || !Number.isSafeInteger(version)) {
    throw new Error(
      `cannot compare versions of ${objectKey(object)}: metadata.resourceVersion ${JSON.stringify(text)} is not an integer`,
    );
  }
  return version;
}
