/**
 * Everything `kvol why` reads, and only over the API a user can reach: objects, events, and the
 * components' debug endpoints (the kubelet's through `nodes/<node>/proxy`). Each read is made once
 * per run. A debug endpoint that cannot be read (another kind of cluster, a node that is down)
 * is not an error: the chain is told from the objects and events alone, and says what it lacked.
 */
import { resourcePath } from "../../api/client/http-transport.ts";
import {
  type AttachDetachControllerDebugState,
  attachDetachControllerDebugName,
  controllerDebugPathPrefix,
  type KubeletVolumeManagerDebugState,
  kubeletVolumeManagerDebugPath,
  type PersistentVolumeControllerDebugState,
  persistentVolumeControllerDebugName,
} from "../../api/debug/debug-state.ts";
import { ApiError, isNotFound } from "../../api/errors.ts";
import type { Event, KindMap, KindName, KObject } from "../../api/objects.ts";
import { resourceForKind } from "../../api/resources.ts";
import { parseRfc3339 } from "../../runtime/clock.ts";
import type { KubeApi } from "../client/kube-api.ts";

export class WhyReader {
  private readonly cache = new Map<string, Promise<unknown>>();
  /** Debug endpoints that could not be read, with why (said in the report). */
  readonly unreadable: string[] = [];

  constructor(
    private readonly api: KubeApi,
    readonly nowMs: number,
  ) {}

  /** The object, or undefined when it does not exist. */
  get<K extends KindName>(kind: K, namespace: string, name: string): Promise<KindMap[K] | undefined> {
    return this.once(`get ${kind} ${namespace}/${name}`, async () => {
      try {
        return await this.api.json<KindMap[K]>({ method: "GET", path: resourcePath(typeOf(kind), namespace, name) });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  list<K extends KindName>(kind: K, namespace = "", fieldSelector = ""): Promise<KindMap[K][]> {
    return this.once(`list ${kind} ${namespace} ${fieldSelector}`, async () => {
      const query = new URLSearchParams(fieldSelector === "" ? {} : { fieldSelector });
      const list = await this.api.json<{ items?: KindMap[K][] }>({
        method: "GET",
        path: resourcePath(typeOf(kind), namespace),
        query,
      });
      return list.items ?? [];
    });
  }

  /** The events about an object, newest last. */
  async events(kind: string, namespace: string, name: string): Promise<Event[]> {
    const selector = `involvedObject.kind=${kind},involvedObject.name=${name}`;
    const events = await this.list("Event", namespace, selector);
    return [...events].sort((a, b) => lastSeenMs(a) - lastSeenMs(b));
  }

  kubeletState(nodeName: string): Promise<KubeletVolumeManagerDebugState | undefined> {
    const path = `/api/v1/nodes/${encodeURIComponent(nodeName)}/proxy${kubeletVolumeManagerDebugPath}`;
    return this.debug(path, `the kubelet of node ${nodeName}`);
  }

  attachDetachState(): Promise<AttachDetachControllerDebugState | undefined> {
    return this.debug(`${controllerDebugPathPrefix}${attachDetachControllerDebugName}`, "the attach/detach controller");
  }

  persistentVolumeState(): Promise<PersistentVolumeControllerDebugState | undefined> {
    return this.debug(`${controllerDebugPathPrefix}${persistentVolumeControllerDebugName}`, "the PV controller");
  }

  private debug<T>(path: string, what: string): Promise<T | undefined> {
    return this.once(`debug ${path}`, async () => {
      try {
        return await this.api.json<T>({ method: "GET", path });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        this.unreadable.push(`${what} (${path}): ${error.message}`);
        return undefined;
      }
    });
  }

  private once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let answer = this.cache.get(key) as Promise<T> | undefined;
    if (answer === undefined) {
      answer = read();
      this.cache.set(key, answer);
    }
    return answer;
  }
}

function typeOf(kind: KindName) {
  const type = resourceForKind(kind);
  if (type === undefined) throw new Error(`kind ${kind} is not registered`);
  return type;
}

/** When the event was last seen (epoch ms); 0 when it carries no time. */
export function lastSeenMs(event: Event): number {
  const text = event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp;
  const ms = text === undefined ? Number.NaN : parseRfc3339(text);
  return Number.isNaN(ms) ? 0 : ms;
}

export type { KObject };
