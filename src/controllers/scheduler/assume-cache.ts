/**
 * The volume binder's assume cache (pkg/scheduler/util/assumecache): between choosing a volume for
 * a pod and the API confirming it, the scheduler must see its own decision, or the next pod could
 * take the same PersistentVolume. An assumed object shadows the informer's copy until the informer
 * delivers a newer version (a higher resourceVersion: the scheduler's own write, or anyone's), or
 * until the decision is reverted.
 */
import type { ApiObject } from "../../api/client/client.ts";

interface Assumed<T> {
  object: T;
  /** The resourceVersion the assumption was made from. */
  baseVersion: number;
}

function versionOf(object: ApiObject | undefined): number {
  const text = object?.metadata?.resourceVersion;
  return text === undefined || text === "" ? 0 : Number(text);
}

export class AssumeCache<T extends ApiObject> {
  private readonly assumed = new Map<string, Assumed<T>>();

  /**
   * `onChange(key)` is told whenever what `latest` answers for `key` changes by `assume` or
   * `restore`, so what was computed from it can be dropped; a newer informer version replacing an
   * assumption is reported by the informer's own event.
   */
  constructor(private readonly onChange: (key: string) => void) {}

  /** Shadows the object under `key` with `object` (a changed copy of the informer's version). */
  assume(key: string, object: T): void {
    this.assumed.set(key, { object, baseVersion: versionOf(object) });
    this.onChange(key);
  }

  /** Forgets the assumption, so reads see the informer's copy again. */
  restore(key: string): void {
    this.assumed.delete(key);
    this.onChange(key);
  }

  /**
   * The object to use: the assumed one while the informer has nothing newer, else `informerObject`.
   * An object the informer no longer has is gone, assumed or not.
   */
  latest(key: string, informerObject: T | undefined): T | undefined {
    const assumed = this.assumed.get(key);
    if (assumed === undefined) return informerObject;
    if (informerObject === undefined || versionOf(informerObject) > assumed.baseVersion) {
      this.assumed.delete(key);
      return informerObject;
    }
    return assumed.object;
  }
}
