/**
 * The base of a Store decorator (admission, RBAC escalation, node restriction): every method goes
 * to the wrapped store unchanged, so a decorator writes only the methods it checks and cannot
 * forget one when the Store interface grows.
 */
import type { KObject, Pod } from "../objects.ts";
import type { ResourceType } from "../resources.ts";
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
} from "./store.ts";

export abstract class ForwardingStore implements Store {
  readonly backendKind: string;

  constructor(protected readonly inner: Store) {
    this.backendKind = inner.backendKind;
  }

  create<T extends KObject>(type: ResourceType, object: T, options?: CreateOptions): Promise<T> {
    return this.inner.create(type, object, options);
  }

  get<T extends KObject>(type: ResourceType, namespace: string, name: string): Promise<T> {
    return this.inner.get(type, namespace, name);
  }

  list<T extends KObject>(type: ResourceType, options?: ListOptions): Promise<ObjectList<T>> {
    return this.inner.list(type, options);
  }

  update<T extends KObject>(type: ResourceType, object: T, options?: UpdateOptions): Promise<T> {
    return this.inner.update(type, object, options);
  }

  delete<T extends KObject>(type: ResourceType, namespace: string, name: string, options?: DeleteOptions): Promise<T> {
    return this.inner.delete(type, namespace, name, options);
  }

  watch<T extends KObject>(
    type: ResourceType,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<StoreWatch> {
    return this.inner.watch(type, options, onEvent);
  }

  bindPod(namespace: string, name: string, nodeName: string, options?: BindPodOptions): Promise<Pod> {
    return this.inner.bindPod(namespace, name, nodeName, options);
  }

  revision(): number {
    return this.inner.revision();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
