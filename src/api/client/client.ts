/**
 * The typed Client every controller, the kubelet and the CLI use to talk to the API. It is
 * transport-neutral: `InProcessClient` calls a Store directly, an HTTP client sends the same calls to
 * an API server, and callers cannot tell them apart.
 *
 * Conventions:
 * - Objects are addressed as `(namespace, name)`. For cluster-scoped kinds (Node, PersistentVolume,
 *   StorageClass, VolumeAttachment, CSIDriver, CSINode, Namespace) the namespace is `""`.
 * - Every object a client returns is deeply frozen and may be shared with other readers and with
 *   informer caches. To change one, copy it first with `clone` (`copy.ts`), or use `mutate`.
 * - An object passed to `create` or `update` is handed over: the client may keep and freeze it, so
 *   the caller must not change it afterwards.
 * - Failures are `ApiError`s (`errors.ts`): branch on `reason` (`NotFound`, `Conflict`, `Gone`, …).
 */
import type {
  ConfigMap,
  CSIDriver,
  CSINode,
  Deployment,
  Event,
  KindMap,
  KindName,
  Lease,
  Namespace,
  Node,
  ObjectMeta,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  Secret,
  StatefulSet,
  StorageClass,
  VolumeAttachment,
} from "../objects.ts";
import type { ResourceType } from "../resources.ts";
import type { DeleteOptions, ListOptions, ObjectList, WatchEvent, WatchOptions } from "../store/store.ts";
import type { CallCounter } from "./call-counter.ts";
import type { Mutable } from "./copy.ts";
import type { MergePatch } from "./merge-patch.ts";

export type { WatchEvent, WatchOptions };

/**
 * What a client needs of an object. `KObject` (objects.ts) carries an index signature that the
 * kubernetes-types interfaces (Pod, Node, …) do not satisfy, so typed code is generic over this instead.
 */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** A running watch; `stop` ends it (no event is delivered after it returns). Stopping twice is harmless. */
export interface Watch {
  stop(): void;
}

export interface UpdateOptions {
  /** `finalize` writes only a namespace's spec.finalizers (`namespaces/<name>/finalize`). */
  subresource?: "finalize";
}

export interface PatchOptions {
  /** `status` writes the status subresource instead of the main resource. */
  subresource?: "status";
}

/**
 * Changes `draft` (a private, unfrozen copy of the current object) in place. If it leaves the draft
 * as it was, `mutate` writes nothing and returns the current object, so an idle pass costs no write.
 */
export type MutateFn<T> = (draft: Mutable<T>) => void;

export interface MutateOptions extends PatchOptions {}

export interface ResourceClient<T extends ApiObject> {
  /** The kind's entry in the resource registry (plural, scope, status subresource). */
  readonly type: ResourceType;
  get(namespace: string, name: string): Promise<T>;
  /** One page when `options.limit` is set (follow `continue`), otherwise everything. */
  list(options?: ListOptions): Promise<ObjectList<T>>;
  create(object: T): Promise<T>;
  /** Writes everything but status; Conflict when `metadata.resourceVersion` is stale (empty = unconditional). */
  update(object: T, options?: UpdateOptions): Promise<T>;
  /** Writes only status; for kinds with a status subresource (`type.hasStatus`). */
  updateStatus(object: T): Promise<T>;
  /**
   * Applies a JSON merge patch (RFC 7386) to the current object. A conflict with a concurrent writer
   * is retried with the newer object, unless the patch itself sets `metadata.resourceVersion`
   * (then the patch is a precondition and the Conflict is returned).
   */
  patch(namespace: string, name: string, patch: MergePatch<T>, options?: PatchOptions): Promise<T>;
  /**
   * Read-copy-change-write: gets the object, lets `fn` change a copy, updates it, and on Conflict
   * starts again from the newer object (client-go's `retry.RetryOnConflict`), a bounded number of times.
   */
  mutate(namespace: string, name: string, fn: MutateFn<T>, options?: MutateOptions): Promise<T>;
  /** Deletes, or starts a graceful deletion; returns the object as it now is (see `Store.delete`). */
  delete(namespace: string, name: string, options?: DeleteOptions): Promise<T>;
  /** Delivers events in revision order until stopped; an ERROR event carries a Status (e.g. Gone). */
  watch(options: WatchOptions, onEvent: (event: WatchEvent<T>) => void): Promise<Watch>;
}

/** Binding.metadata of a `pods/binding` request. */
export interface PodBindingOptions {
  /** The pod must still have this uid (the default scheduler always sends it). */
  uid?: string;
  /** Copied onto the pod's annotations. */
  annotations?: Readonly<Record<string, string>>;
}

export interface PodClient extends ResourceClient<Pod> {
  /**
   * POST `pods/binding` (client-go's `Pods(ns).Bind`): assigns the pod to `nodeName` and sets its
   * PodScheduled condition. A pod that already has a node gives Conflict
   * `pod <name> is already assigned to node "<node>"`; a missing pod NotFound.
   */
  bind(namespace: string, name: string, nodeName: string, options?: PodBindingOptions): Promise<void>;
}

export interface Client {
  resource<K extends KindName>(kind: K): ResourceClient<KindMap[K]>;
  /** API calls made through this client, by verb and resource. */
  readonly calls: CallCounter;
  readonly pods: PodClient;
  readonly nodes: ResourceClient<Node>;
  readonly persistentVolumes: ResourceClient<PersistentVolume>;
  readonly persistentVolumeClaims: ResourceClient<PersistentVolumeClaim>;
  readonly storageClasses: ResourceClient<StorageClass>;
  readonly volumeAttachments: ResourceClient<VolumeAttachment>;
  readonly csiDrivers: ResourceClient<CSIDriver>;
  readonly csiNodes: ResourceClient<CSINode>;
  readonly events: ResourceClient<Event>;
  readonly leases: ResourceClient<Lease>;
  readonly statefulSets: ResourceClient<StatefulSet>;
  readonly replicaSets: ResourceClient<ReplicaSet>;
  readonly deployments: ResourceClient<Deployment>;
  readonly secrets: ResourceClient<Secret>;
  readonly configMaps: ResourceClient<ConfigMap>;
  readonly namespaces: ResourceClient<Namespace>;
}
