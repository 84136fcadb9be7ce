/**
 * A Client in front of another one that carries the API faults of its `ApiConnection`: each
 * request (get, list, create, update, patch, delete, bind, opening a watch) first waits the
 * connection's latency on the clock, and fails as Go's HTTP client does while the connection is cut
 * (`Put "https://10.0.255.254:6443/…": dial tcp 10.0.255.254:6443: connect: no route to host`).
 * Watch events already flowing are not delayed: latency models a slow answer, not a slow stream.
 */
import type { CallCounter } from "../../api/client/call-counter.ts";
import type {
  ApiObject,
  Client,
  MutateFn,
  MutateOptions,
  PatchOptions,
  PodBindingOptions,
  PodClient,
  ResourceClient,
  UpdateOptions,
  Watch,
} from "../../api/client/client.ts";
import { ClientBase } from "../../api/client/client-base.ts";
import type { MergePatch } from "../../api/client/merge-patch.ts";
import { mutateWithRetry } from "../../api/client/retry-on-conflict.ts";
import type { KindMap, KindName, Pod } from "../../api/objects.ts";
import type { ResourceType } from "../../api/resources.ts";
import type { DeleteOptions, ListOptions, ObjectList, WatchEvent, WatchOptions } from "../../api/store/store.ts";
import { type ApiConnection, noRouteToHostText, simApiServerAddress } from "./api-connection.ts";

type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

interface RequestTarget {
  method: HttpMethod;
  namespace?: string;
  name?: string;
  subresource?: string;
  watch?: boolean;
}

export class FaultyClient extends ClientBase {
  constructor(
    private readonly inner: Client,
    private readonly connection: ApiConnection,
  ) {
    super();
  }

  get calls(): CallCounter {
    return this.inner.calls;
  }

  protected createResourceClient<K extends KindName>(kind: K): ResourceClient<KindMap[K]> {
    return new FaultyResourceClient(this.inner.resource(kind), this.connection);
  }

  protected createPodClient(): PodClient {
    return new FaultyPodClient(this.inner.pods, this.connection);
  }
}

class FaultyResourceClient<T extends ApiObject> implements ResourceClient<T> {
  constructor(
    protected readonly inner: ResourceClient<T>,
    protected readonly connection: ApiConnection,
  ) {}

  get type(): ResourceType {
    return this.inner.type;
  }

  get(namespace: string, name: string): Promise<T> {
    return this.request({ method: "GET", namespace, name }, () => this.inner.get(namespace, name));
  }

  list(options: ListOptions = {}): Promise<ObjectList<T>> {
    const target = {
      method: "GET" as const,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    };
    return this.request(target, () => this.inner.list(options));
  }

  create(object: T): Promise<T> {
    return this.request({ method: "POST", namespace: object.metadata?.namespace ?? "" }, () =>
      this.inner.create(object),
    );
  }

  update(object: T, options: UpdateOptions = {}): Promise<T> {
    const { namespace = "", name = "" } = object.metadata ?? {};
    const target = { method: "PUT" as const, namespace, name, ...options };
    return this.request(target, () => this.inner.update(object, options));
  }

  updateStatus(object: T): Promise<T> {
    const { namespace = "", name = "" } = object.metadata ?? {};
    return this.request({ method: "PUT", namespace, name, subresource: "status" }, () =>
      this.inner.updateStatus(object),
    );
  }

  patch(namespace: string, name: string, patch: MergePatch<T>, options: PatchOptions = {}): Promise<T> {
    const target = {
      method: "PATCH" as const,
      namespace,
      name,
      ...(options.subresource === undefined ? {} : { subresource: options.subresource }),
    };
    return this.request(target, () => this.inner.patch(namespace, name, patch, options));
  }

  mutate(namespace: string, name: string, fn: MutateFn<T>, options: MutateOptions = {}): Promise<T> {
    return mutateWithRetry(this, namespace, name, fn, options);
  }

  delete(namespace: string, name: string, options: DeleteOptions = {}): Promise<T> {
    return this.request({ method: "DELETE", namespace, name }, () => this.inner.delete(namespace, name, options));
  }

  async watch(options: WatchOptions, onEvent: (event: WatchEvent<T>) => void): Promise<Watch> {
    const target = {
      method: "GET" as const,
      watch: true,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    };
    let open = true;
    const deliver = (event: WatchEvent<T>): void => {
      if (open) onEvent(event);
    };
    const inner = await this.request(target, () => this.inner.watch(options, deliver));
    const close = (): void => {
      open = false;
      stopListening();
      inner.stop();
    };
    const stopListening = this.connection.listen({
      connectionLost: (reason) => {
        if (!open) return;
        close();
        // A Status in place of an object, as the API server sends on an ERROR watch event.
        onEvent({ type: "ERROR", object: connectionLostStatus(reason) as unknown as T });
      },
    });
    return { stop: close };
  }

  /** Waits the connection's latency, then sends the request unless the connection is cut. */
  protected async request<R>(target: RequestTarget, send: () => Promise<R>): Promise<R> {
    this.failIfCutOff(target);
    const latencyMs = this.connection.currentLatencyMs();
    if (latencyMs > 0) {
      await this.connection.clock.sleep(latencyMs);
      this.failIfCutOff(target);
    }
    return send();
  }

  private failIfCutOff(target: RequestTarget): void {
    if (!this.connection.isCutOff) return;
    const method = target.method.charAt(0) + target.method.slice(1).toLowerCase();
    throw new Error(`${method} "https://${simApiServerAddress}${this.urlPath(target)}": ${noRouteToHostText}`);
  }

  /** The request's URL path, as the API server would be asked (`/api/v1/namespaces/default/pods/web-0`). */
  private urlPath(target: RequestTarget): string {
    const { group, version, plural, namespaced } = this.inner.type;
    const prefix = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    const namespace = namespaced && target.namespace ? `/namespaces/${target.namespace}` : "";
    const name = target.name ? `/${target.name}` : "";
    const subresource = target.subresource ? `/${target.subresource}` : "";
    return `${prefix}${namespace}/${plural}${name}${subresource}${target.watch ? "?watch=true" : ""}`;
  }
}

class FaultyPodClient extends FaultyResourceClient<Pod> implements PodClient {
  constructor(
    private readonly pods: PodClient,
    connection: ApiConnection,
  ) {
    super(pods, connection);
  }

  bind(namespace: string, name: string, nodeName: string, options: PodBindingOptions = {}): Promise<void> {
    return this.request({ method: "POST", namespace, name, subresource: "binding" }, () =>
      this.pods.bind(namespace, name, nodeName, options),
    );
  }
}

function connectionLostStatus(message: string): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", status: "Failure", reason: "InternalError", code: 500, message };
}
