/**
 * Node restriction, as Kubernetes' Node authorizer and NodeRestriction admission plugin enforce it:
 * a node agent (`system:node:<name>`) may
 * - create, update and delete its own Node (and its status), its own Lease in `kube-node-lease`
 *   and its own CSINode;
 * - update the status of pods bound to it, and delete those pods (the kubelet's final delete);
 * - create, update and delete events;
 * - read what a kubelet reads: pods, nodes, claims, volumes, storage objects, config maps, and the
 *   secrets that pods bound to it reference (by name; never a list or watch of secrets).
 * Anything else is a 403 Forbidden Status worded as Kubernetes words it, refused before the store
 * is touched, so nothing changes.
 *
 * It is a Store wrapped around the server's store for the requests of one node: every handler
 * (create, update, patch, delete, binding) reaches the store through it, with the decoded object.
 */

import type { ApiError } from "../../api/errors.ts";
import { nodeLeaseNamespace } from "../../api/namespaces.ts";
import type { KObject, Node, Pod } from "../../api/objects.ts";
import { type ResourceType, resourceForKind } from "../../api/resources.ts";
import { ForwardingStore } from "../../api/store/forwarding-store.ts";
import type {
  BindPodOptions,
  CreateOptions,
  DeleteOptions,
  ListOptions,
  ObjectList,
  Store,
  StoreWatch,
  UpdateOptions,
  WatchEvent,
  WatchOptions,
} from "../../api/store/store.ts";
import { forbidden, notAuthorized, type Verb } from "../auth/forbidden.ts";
import { nodeUserPrefix } from "../auth/user-info.ts";
import { forbiddenLabelChanges, taintsChanged } from "./node-labels.ts";
import { secretReferencedByNode } from "./node-secret-references.ts";

/** Kinds a node agent may read freely (secrets are read one by one, when a pod of the node uses them). */
const readableKinds = new Set([
  "Pod",
  "Node",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "ConfigMap",
  "Event",
  "Namespace",
  "StorageClass",
  "VolumeAttachment",
  "CSIDriver",
  "CSINode",
  "Lease",
]);

const podType = registered("Pod");

function registered(kind: "Pod"): ResourceType {
  const type = resourceForKind(kind);
  if (type === undefined) throw new Error(`node restriction: kind ${kind} is not in the resource registry`);
  return type;
}

type Write = "create" | "update" | "delete";

export class NodeRestrictedStore extends ForwardingStore {
  private readonly nodeName: string;

  constructor(inner: Store, nodeName: string) {
    super(inner);
    this.nodeName = nodeName;
  }

  private get userName(): string {
    return `${nodeUserPrefix}${this.nodeName}`;
  }

  override async create<T extends KObject>(type: ResourceType, object: T, options?: CreateOptions): Promise<T> {
    const namespace = object.metadata?.namespace ?? "";
    await this.admitWrite("create", type, namespace, object.metadata?.name ?? "", undefined);
    if (type.kind === "Node") this.admitNodeLabels(type, object as Node & KObject, undefined);
    return this.inner.create(type, object, options);
  }

  override async update<T extends KObject>(type: ResourceType, object: T, options?: UpdateOptions): Promise<T> {
    const namespace = object.metadata?.namespace ?? "";
    await this.admitWrite("update", type, namespace, object.metadata?.name ?? "", options?.subresource);
    if (type.kind === "Node" && options?.subresource === undefined)
      await this.admitOwnNodeUpdate(type, object as Node & KObject);
    return this.inner.update(type, object, options);
  }

  override async delete<T extends KObject>(
    type: ResourceType,
    namespace: string,
    name: string,
    options?: DeleteOptions,
  ): Promise<T> {
    await this.admitWrite("delete", type, namespace, name, undefined);
    return this.inner.delete(type, namespace, name, options);
  }

  /** Scheduling is the scheduler's: a node never binds pods. */
  override async bindPod(namespace: string, name: string, _nodeName: string, _options?: BindPodOptions): Promise<Pod> {
    throw this.denied("create", podType, namespace, name, "binding");
  }

  override async get<T extends KObject>(type: ResourceType, namespace: string, name: string): Promise<T> {
    await this.admitRead("get", type, namespace, name);
    return this.inner.get(type, namespace, name);
  }

  override async list<T extends KObject>(type: ResourceType, options?: ListOptions): Promise<ObjectList<T>> {
    await this.admitRead("list", type, options?.namespace ?? "", "");
    return this.inner.list(type, options);
  }

  override async watch<T extends KObject>(
    type: ResourceType,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<StoreWatch> {
    await this.admitRead("watch", type, options.namespace ?? "", "");
    return this.inner.watch(type, options, onEvent);
  }

  /** The server owns the store; a node's view of it never closes it. */
  override async close(): Promise<void> {
    // Nothing to release: this wrapper holds no resources of its own.
  }

  // ---- the rules ----------------------------------------------------------------------------

  /** A node's labels: nothing under node-restriction.kubernetes.io, no Kubernetes label but the kubelet's own. */
  private admitNodeLabels(type: ResourceType, node: Node & KObject, stored: Node | undefined): void {
    const forbiddenLabels = forbiddenLabelChanges(node.metadata, stored?.metadata);
    if (forbiddenLabels.length === 0) return;
    const why =
      stored === undefined
        ? `node "${this.nodeName}" is not allowed to set the following labels: ${forbiddenLabels.join(", ")}`
        : `is not allowed to modify labels: ${forbiddenLabels.join(", ")}`;
    throw forbidden(type, node.metadata?.name ?? "", why);
  }

  /** After registering, a node may change neither its taints nor its restricted labels. */
  private async admitOwnNodeUpdate(type: ResourceType, node: Node & KObject): Promise<void> {
    const stored = await this.inner.get<Node & KObject>(type, "", node.metadata?.name ?? "");
    if (taintsChanged(node, stored)) {
      throw forbidden(type, node.metadata?.name ?? "", `node "${this.nodeName}" is not allowed to modify taints`);
    }
    this.admitNodeLabels(type, node, stored);
  }

  private async admitRead(verb: Verb, type: ResourceType, namespace: string, name: string): Promise<void> {
    if (readableKinds.has(type.kind)) return;
    if (type.kind === "Secret" && verb === "get" && (await this.secretIsUsedHere(namespace, name))) return;
    throw this.denied(verb, type, namespace, name);
  }

  private async secretIsUsedHere(namespace: string, name: string): Promise<boolean> {
    return secretReferencedByNode(this.inner, this.nodeName, namespace, name);
  }

  private async admitWrite(
    write: Write,
    type: ResourceType,
    namespace: string,
    name: string,
    subresource: string | undefined,
  ): Promise<void> {
    switch (type.kind) {
      case "Node":
        return this.admitOwnNamed(type, name, `node "${this.nodeName}" is not allowed to modify node "${name}"`);
      case "CSINode":
        return this.admitOwnNamed(type, name, `node "${this.nodeName}" is not allowed to modify csinode "${name}"`);
      case "Lease":
        return this.admitLease(type, namespace, name);
      case "Event":
        return;
      case "Pod":
        return this.admitPodWrite(write, type, namespace, name, subresource);
      case "PersistentVolumeClaim":
        // Node expansion writes a claim's status (capacity, resize conditions and status); nothing else.
        if (subresource === "status") return;
        throw this.denied(write, type, namespace, name, subresource);
      default:
        throw this.denied(write, type, namespace, name, subresource);
    }
  }

  private admitOwnNamed(type: ResourceType, name: string, why: string): void {
    if (name !== this.nodeName) throw forbidden(type, name, why);
  }

  private admitLease(type: ResourceType, namespace: string, name: string): void {
    if (namespace !== nodeLeaseNamespace) {
      throw forbidden(type, name, `can only access leases in the "${nodeLeaseNamespace}" system namespace`);
    }
    if (name !== this.nodeName) {
      throw forbidden(type, name, "can only access node lease with the same name as the requesting node");
    }
  }

  private async admitPodWrite(
    write: Write,
    type: ResourceType,
    namespace: string,
    name: string,
    subresource: string | undefined,
  ): Promise<void> {
    if (write === "create") {
      throw forbidden(
        type,
        name,
        `pod does not have "kubernetes.io/config.mirror" annotation, node "${this.nodeName}" can only create mirror pods`,
      );
    }
    if (write === "update" && subresource !== "status") throw this.denied(write, type, namespace, name);
    // The stored pod decides, never the body: a node cannot move a pod onto itself by writing it.
    const stored = await this.inner.get<Pod & KObject>(type, namespace, name);
    if (stored.spec?.nodeName === this.nodeName) return;
    const why =
      write === "delete"
        ? `node "${this.nodeName}" can only delete pods with spec.nodeName set to itself`
        : `node "${this.nodeName}" can only update pod status for pods with spec.nodeName set to itself`;
    throw forbidden(type, name, why);
  }

  private denied(verb: Verb, type: ResourceType, namespace: string, name: string, subresource?: string): ApiError {
    return notAuthorized({
      user: this.userName,
      verb,
      type,
      namespace,
      name,
      ...(subresource === undefined ? {} : { subresource }),
    });
  }
}
