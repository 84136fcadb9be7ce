/**
 * A Client that talks to a Kubernetes API server over HTTP (kvol's own, or a real one): the same
 * interface as InProcessClient, so every controller runs over either unchanged. Objects come back
 * deeply frozen, failures as the ApiError the server's Status describes, and each call is counted
 * once, as the server counts the request.
 */
import type { KindMap, KindName, Pod } from "../objects.ts";
import { apiVersionOf, type ResourceType, resourceForKind } from "../resources.ts";
import type { DeleteOptions, ListOptions, ObjectList, WatchEvent, WatchOptions } from "../store/store.ts";
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
import { deepFreeze } from "./copy.ts";
import { HttpTransport, type HttpTransportOptions, resourcePath } from "./http-transport.ts";
import { HttpWatch } from "./http-watch.ts";
import type { MergePatch } from "./merge-patch.ts";
import { mutateWithRetry } from "./retry-on-conflict.ts";

interface HttpClientOptions extends HttpTransportOptions {
  /** Share one counter between clients; a new one by default. */
  calls?: CallCounter;
}

export class HttpClient extends ClientBase {
  readonly calls: CallCounter;
  private readonly transport: HttpTransport;

  constructor(options: HttpClientOptions) {
    super();
    this.transport = new HttpTransport(options);
    this.calls = options.calls ?? new CallCounter();
  }

  protected createResourceClient<K extends KindName>(kind: K): ResourceClient<KindMap[K]> {
    return new HttpResourceClient<KindMap[K]>(this.transport, registeredType(kind), this.calls);
  }

  protected createPodClient(): PodClient {
    return new HttpPodClient(this.transport, registeredType("Pod"), this.calls);
  }
}

function registeredType(kind: KindName): ResourceType {
  const type = resourceForKind(kind);
  if (type === undefined) throw new Error(`HttpClient: kind ${kind} is not in the resource registry`);
  return type;
}

interface ListBody<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

function listQuery(options: ListOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.labelSelector) query.set("labelSelector", options.labelSelector);
  if (options.fieldSelector) query.set("fieldSelector", options.fieldSelector);
  if (options.resourceVersion) query.set("resourceVersion", options.resourceVersion);
  if (options.limit !== undefined) query.set("limit", String(options.limit));
  if (options.continue) query.set("continue", options.continue);
  return query;
}

function namespaceOf(object: ApiObject): string {
  return object.metadata?.namespace ?? "";
}

function nameOf(object: ApiObject): string {
  return object.metadata?.name ?? "";
}

class HttpResourceClient<T extends ApiObject> implements ResourceClient<T> {
  readonly type: ResourceType;
  protected readonly transport: HttpTransport;
  protected readonly calls: CallCounter;

  constructor(transport: HttpTransport, type: ResourceType, calls: CallCounter) {
    this.transport = transport;
    this.type = type;
    this.calls = calls;
  }

  async get(namespace: string, name: string): Promise<T> {
    this.count("get");
    return this.object({ method: "GET", path: resourcePath(this.type, namespace, name) });
  }

  async list(options: ListOptions = {}): Promise<ObjectList<T>> {
    this.count("list");
    const path = resourcePath(this.type, options.namespace ?? "");
    const body = await this.transport.json<ListBody<T>>({ method: "GET", path, query: listQuery(options) });
    const list: ObjectList<T> = {
      items: (body.items ?? []).map((item) => deepFreeze(this.withTypeMeta(item))),
      resourceVersion: body.metadata?.resourceVersion ?? "",
    };
    if (body.metadata?.continue) list.continue = body.metadata.continue;
    return list;
  }

  create(object: T): Promise<T> {
    this.count("create");
    // Kubernetes creates namespaced objects only under a namespace; the store's default is "default".
    const namespace = namespaceOf(object) || (this.type.namespaced ? "default" : "");
    const path = resourcePath(this.type, namespace);
    return this.object({ method: "POST", path, body: this.withTypeMeta(object) });
  }

  update(object: T, options: UpdateOptions = {}): Promise<T> {
    this.count("update");
    const path = resourcePath(this.type, namespaceOf(object), nameOf(object), options.subresource ?? "");
    return this.object({ method: "PUT", path, body: this.withTypeMeta(object) });
  }

  updateStatus(object: T): Promise<T> {
    this.count("update", "status");
    const path = resourcePath(this.type, namespaceOf(object), nameOf(object), "status");
    return this.object({ method: "PUT", path, body: this.withTypeMeta(object) });
  }

  /** The server applies the merge patch and retries a lost race itself, unless the patch pins resourceVersion. */
  patch(namespace: string, name: string, patch: MergePatch<T>, options: PatchOptions = {}): Promise<T> {
    this.count("patch", options.subresource);
    const path = resourcePath(this.type, namespace, name, options.subresource ?? "");
    return this.object({ method: "PATCH", path, body: patch, contentType: "application/merge-patch+json" });
  }

  mutate(namespace: string, name: string, fn: MutateFn<T>, options: MutateOptions = {}): Promise<T> {
    return mutateWithRetry(this, namespace, name, fn, options);
  }

  delete(namespace: string, name: string, options: DeleteOptions = {}): Promise<T> {
    this.count("delete");
    const { dryRun, ...rest } = options;
    // On the wire dryRun is a list of stages; "All" is the only one Kubernetes defines.
    const body = { kind: "DeleteOptions", apiVersion: "v1", ...rest, ...(dryRun ? { dryRun: ["All"] } : {}) };
    return this.object({ method: "DELETE", path: resourcePath(this.type, namespace, name), body });
  }

  async watch(options: WatchOptions, onEvent: (event: WatchEvent<T>) => void): Promise<Watch> {
    this.count("watch");
    const { limit: _limit, continue: _continue, ...watchable } = options;
    const query = listQuery(watchable);
    query.set("watch", "1");
    if (options.allowBookmarks) query.set("allowWatchBookmarks", "true");
    const abort = new AbortController();
    const path = resourcePath(this.type, options.namespace ?? "");
    const response = await this.transport.send({ method: "GET", path, query, signal: abort.signal });
    const watch = new HttpWatch<T>(abort, onEvent);
    void watch.consume(response);
    return watch;
  }

  /** Kubernetes requires kind and apiVersion in a body; in-process callers may leave them out. */
  private withTypeMeta(object: T): T {
    return { ...object, apiVersion: object.apiVersion || apiVersionOf(this.type), kind: object.kind || this.type.kind };
  }

  private async object(request: Parameters<HttpTransport["json"]>[0]): Promise<T> {
    return deepFreeze(await this.transport.json<T>(request));
  }

  protected count(verb: ApiVerb, subresource?: "status"): void {
    this.calls.record(verb, subresource === "status" ? `${this.type.plural}/status` : this.type.plural);
  }
}

/** The pods client: the generic calls plus `pods/binding`, counted as `create pods/binding`. */
class HttpPodClient extends HttpResourceClient<Pod> implements PodClient {
  async bind(namespace: string, name: string, nodeName: string, options: PodBindingOptions = {}): Promise<void> {
    this.calls.record("create", "pods/binding");
    const metadata = {
      name,
      namespace,
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    };
    const body = {
      apiVersion: "v1",
      kind: "Binding",
      metadata,
      target: { apiVersion: "v1", kind: "Node", name: nodeName },
    };
    await this.transport.discard({ method: "POST", path: resourcePath(this.type, namespace, name, "binding"), body });
  }
}
