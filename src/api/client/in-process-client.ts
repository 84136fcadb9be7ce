/**
 * A Client that calls a Store in the same process: the embedded and simulation modes, and tests.
 * Objects come back exactly as the store shares them (frozen, never copied), and every call is
 * counted once, as the API server would count the request.
 */
import type { KindMap, KindName, KObject, Pod } from "../objects.ts";
import { type ResourceType, resourceForKind } from "../resources.ts";
import type { DeleteOptions, ListOptions, ObjectList, Store, WatchEvent, WatchOptions } from "../store/store.ts";
import { type ApiVerb, CallCounter } from "./call-counter.ts";
import type {
  ApiObject,
  MutateFn,
  MutateOptions,
  PatchOptions,
  PodBindingOptions,
  PodClient,
  ResourceClient,
  UpdateOptions,
  Watch,
} from "./client.ts";
import { ClientBase } from "./client-base.ts";
import { applyMergePatch, type MergePatch } from "./merge-patch.ts";
import { conflictRetryMaxAttempts, mutateWithRetry, retryOnConflict } from "./retry-on-conflict.ts";
import { TrustedWrites } from "./trusted-writes.ts";

interface InProcessClientOptions {
  /** Share one counter between clients (e.g. every controller of a simulation); a new one by default. */
  calls?: CallCounter;
  /**
   * The client of the components this process runs (controllers, kubelets, event recorders), whose
   * objects come from code, not from users: their status writes and Events skip the schema
   * validation that every other write still gets (trusted-writes.ts). Off by default.
   */
  trustedWrites?: boolean;
}

export class InProcessClient extends ClientBase {
  readonly calls: CallCounter;
  private readonly store: Store;
  private readonly trustedWrites: boolean;

  constructor(store: Store, options: InProcessClientOptions = {}) {
    super();
    this.store = store;
    this.calls = options.calls ?? new CallCounter();
    this.trustedWrites = options.trustedWrites ?? false;
  }

  protected createResourceClient<K extends KindName>(kind: K): ResourceClient<KindMap[K]> {
    const type = resourceForKind(kind);
    if (type === undefined) throw new Error(`InProcessClient: kind ${kind} is not in the resource registry`);
    return new StoreResourceClient<KindMap[K]>(this.store, type, this.calls, this.trustedWrites);
  }

  protected createPodClient(): PodClient {
    const type = resourceForKind("Pod");
    if (type === undefined) throw new Error("InProcessClient: kind Pod is not in the resource registry");
    return new StorePodClient(this.store, type, this.calls, this.trustedWrites);
  }
}

/**
 * The Store is generic over `KObject`, whose index signature the kubernetes-types interfaces lack;
 * every typed object is structurally a KObject, so this only restates the type for the store call.
 */
function asStored<T extends ApiObject>(object: T): T & KObject {
  return object as T & KObject;
}

/** True when a patch pins `metadata.resourceVersion`, which turns it into a precondition. */
function pinsResourceVersion(patch: unknown): boolean {
  const metadata = (patch as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  return typeof metadata?.resourceVersion === "string" && metadata.resourceVersion !== "";
}

class StoreResourceClient<T extends ApiObject> implements ResourceClient<T> {
  readonly type: ResourceType;
  protected readonly store: Store;
  protected readonly calls: CallCounter;
  private readonly statusResource: string;
  private readonly trust: TrustedWrites;

  constructor(store: Store, type: ResourceType, calls: CallCounter, trustedWrites: boolean) {
    this.store = store;
    this.type = type;
    this.calls = calls;
    this.statusResource = `${type.plural}/status`;
    this.trust = new TrustedWrites(type, trustedWrites);
  }

  get(namespace: string, name: string): Promise<T> {
    this.count("get");
    return this.store.get<T & KObject>(this.type, namespace, name);
  }

  list(options: ListOptions = {}): Promise<ObjectList<T>> {
    this.count("list");
    return this.store.list<T & KObject>(this.type, options);
  }

  create(object: T): Promise<T> {
    this.count("create");
    return this.store.create(this.type, asStored(object), this.trust.createOptions());
  }

  update(object: T, options: UpdateOptions = {}): Promise<T> {
    this.count("update");
    return this.store.update(this.type, asStored(object), this.trust.updateOptions(options.subresource));
  }

  updateStatus(object: T): Promise<T> {
    this.count("update", "status");
    return this.store.update(this.type, asStored(object), this.trust.updateOptions("status"));
  }

  /**
   * The API server applies a patch to its current copy; here the same happens next to the store:
   * read, merge, write with the read's resourceVersion, and re-read on a lost race. One counted call.
   */
  patch(namespace: string, name: string, patch: MergePatch<T>, options: PatchOptions = {}): Promise<T> {
    this.count("patch", options.subresource);
    const maxAttempts = pinsResourceVersion(patch) ? 1 : conflictRetryMaxAttempts;
    const updateOptions = this.trust.updateOptions(options.subresource);
    return retryOnConflict(async () => {
      const current = await this.store.get<T & KObject>(this.type, namespace, name);
      return this.store.update(this.type, applyMergePatch<T & KObject>(current, patch), updateOptions);
    }, maxAttempts);
  }

  mutate(namespace: string, name: string, fn: MutateFn<T>, options: MutateOptions = {}): Promise<T> {
    return mutateWithRetry(this, namespace, name, fn, options);
  }

  delete(namespace: string, name: string, options: DeleteOptions = {}): Promise<T> {
    this.count("delete");
    return this.store.delete<T & KObject>(this.type, namespace, name, options);
  }

  async watch(options: WatchOptions, onEvent: (event: WatchEvent<T>) => void): Promise<Watch> {
    this.count("watch");
    return this.store.watch<T & KObject>(this.type, options, onEvent);
  }

  private count(verb: ApiVerb, subresource?: "status"): void {
    this.calls.record(verb, subresource === "status" ? this.statusResource : this.type.plural);
  }
}

/** The pods client: the generic calls plus the `pods/binding` subresource, counted as `create pods/binding`. */
class StorePodClient extends StoreResourceClient<Pod> implements PodClient {
  async bind(namespace: string, name: string, nodeName: string, options: PodBindingOptions = {}): Promise<void> {
    this.calls.record("create", "pods/binding");
    await this.store.bindPod(namespace, name, nodeName, options);
  }
}
