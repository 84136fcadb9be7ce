/**
 * The admission plugins of kube-apiserver that read other objects, around a Store: every create,
 * update and delete made through it is admitted as the API server admits it.
 * - NamespaceLifecycle (namespace-lifecycle.ts);
 * - DefaultStorageClass (default-storage-class.ts) and StorageObjectInUseProtection
 *   (object-in-use-protection.ts) on create;
 * - PersistentVolumeClaimResize (claim-resize.ts) on update.
 * The API server serves its store through one, and the simulator's in-process client writes
 * through one, so a manifest gets the same answer from kubectl and from a scenario. The store
 * itself stays plain: components that own it (tests, restores, the store's own conformance) see
 * Kubernetes' storage semantics without the admission chain, as etcd does.
 */
import type { KObject } from "../objects.ts";
import type { ResourceType } from "../resources.ts";
import { ForwardingStore } from "../store/forwarding-store.ts";
import type { CreateOptions, DeleteOptions, Store, UpdateOptions } from "../store/store.ts";
import { admitClaimResize } from "./claim-resize.ts";
import { withDefaultStorageClass } from "./default-storage-class.ts";
import { admitCreateInNamespace, admitNamespaceDelete } from "./namespace-lifecycle.ts";
import { withProtectionFinalizer } from "./object-in-use-protection.ts";

class AdmissionStore extends ForwardingStore {
  override async create<T extends KObject>(type: ResourceType, object: T, options?: CreateOptions): Promise<T> {
    let admitted: KObject = withProtectionFinalizer(type, object);
    if (type.kind === "PersistentVolumeClaim") admitted = await withDefaultStorageClass(this.inner, admitted);
    await admitCreateInNamespace(this.inner, type, admitted);
    return this.inner.create(type, admitted as T, options);
  }

  override async update<T extends KObject>(type: ResourceType, object: T, options?: UpdateOptions): Promise<T> {
    if (type.kind === "PersistentVolumeClaim" && options?.subresource === undefined) {
      await admitClaimResize(this.inner, type, object);
    }
    return this.inner.update(type, object, options);
  }

  override delete<T extends KObject>(
    type: ResourceType,
    namespace: string,
    name: string,
    options?: DeleteOptions,
  ): Promise<T> {
    admitNamespaceDelete(type, name);
    return this.inner.delete(type, namespace, name, options);
  }
}

/** The store with kube-apiserver's admission in front (the same store when it already has it). */
export function withAdmission(store: Store): Store {
  return store instanceof AdmissionStore ? store : new AdmissionStore(store);
}
