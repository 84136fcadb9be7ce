/**
 * A live cluster as the UI sees it: each kind listed then watched (a watch that ends is started
 * again from a fresh list), the debug endpoints and the selected object's `kvol why` read every
 * poll, and the timeline built from Events, from the objects' status changes seen on the watches
 * and from the components' debug states as they change (the same diff the simulator records).
 */
import { type LaneEntry, laneOf } from "../../../src/api/debug/lanes.ts";
import { type ComponentStates, noComponentStates, stateChanges } from "../../../src/api/debug/state-changes.ts";
import type {
  Event,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  VolumeAttachment,
} from "../../../src/api/objects.ts";
import { type GraphKind, type GraphObject, graphObjects } from "../../../src/cli/webui/graph-objects.ts";
import { type WhyJson, whyPath } from "../../../src/cli/webui/ui-data.ts";
import { type Api, ApiFailure } from "./api.ts";
import type { FaultOffer, ViewData } from "./view.ts";

const pollPeriodMs = 2000;
const rewatchDelayMs = 1000;
/** The live timeline keeps this many entries, the newest. */
const maxEntries = 2000;

interface Kind {
  path: string;
  items: Map<string, unknown>;
}

interface Listed {
  metadata?: { resourceVersion?: string };
  items?: { metadata?: { uid?: string } }[];
}

const kindPaths = {
  pods: "/api/v1/pods",
  claims: "/api/v1/persistentvolumeclaims",
  volumes: "/api/v1/persistentvolumes",
  attachments: "/apis/storage.k8s.io/v1/volumeattachments",
  nodes: "/api/v1/nodes",
  events: "/api/v1/events",
} as const;

type KindName = keyof typeof kindPaths;

/**
 * A browser opens at most six HTTP/1.1 connections to a server and a watch holds one: the kinds
 * whose changes drive the story are watched, nodes and events are listed each poll, so two
 * connections stay free for the debug endpoints and `why`.
 */
const watchedKinds: readonly KindName[] = ["pods", "claims", "volumes", "attachments"];
const polledKinds: readonly KindName[] = ["nodes", "events"];

const statusLanes: Readonly<Record<GraphKind, LaneEntry["lane"]>> = {
  Pod: "kubelet",
  PersistentVolumeClaim: "pv-controller",
  PersistentVolume: "pv-controller",
  Attachment: "attachdetach",
  Node: "cluster",
};

const objectWords: Readonly<Record<GraphKind, string>> = {
  Pod: "pod",
  PersistentVolumeClaim: "pvc",
  PersistentVolume: "pv",
  Attachment: "volumeattachment",
  Node: "node",
};

function eventTimeMs(event: Event): number {
  const text = event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp;
  return text === undefined ? 0 : Date.parse(text);
}

function eventEntry(event: Event): LaneEntry {
  const { kind = "", namespace, name = "" } = event.involvedObject;
  const word = kind === "PersistentVolumeClaim" ? "pvc" : kind === "PersistentVolume" ? "pv" : kind.toLowerCase();
  const count = (event.count ?? 1) > 1 ? ` (x${event.count})` : "";
  return {
    atMs: eventTimeMs(event),
    lane: laneOf(event.source?.component || event.reportingComponent || ""),
    kind: event.type === "Warning" ? "warning" : "event",
    object: `${word} ${namespace ? `${namespace}/` : ""}${name}`,
    message: `${event.reason ?? ""}: ${event.message ?? ""}${count}`,
  };
}

export class LiveCluster {
  private readonly kinds = new Map<KindName, Kind>(
    Object.entries(kindPaths).map(([name, path]) => [name as KindName, { path, items: new Map() }]),
  );
  private readonly stop = new AbortController();
  private objects: GraphObject[] = [];
  private states: ComponentStates = noComponentStates;
  private unreadable: string[] = [];
  private stateEntries: LaneEntry[] = [];
  private why: ViewData["why"];
  private faults: FaultOffer[] | undefined;
  private selected = "";
  private clusterMs = Date.now();
  private clusterReadAt = Date.now();
  private speed = 1;
  private firstMs: number | undefined;
  private connection = "connecting…";
  private pollTimer: number | undefined;

  constructor(
    private readonly api: Api,
    private readonly onChange: () => void,
  ) {}

  start(): void {
    for (const name of watchedKinds) void this.follow(name);
    void this.poll();
    this.pollTimer = window.setInterval(() => void this.poll(), pollPeriodMs);
  }

  close(): void {
    this.stop.abort();
    window.clearInterval(this.pollTimer);
  }

  select(key: string): void {
    this.selected = key;
    this.why = undefined;
    void this.readWhy().then(() => this.onChange());
  }

  /** The cluster clock now, from its last reading and its speed. */
  private nowMs(): number {
    return this.clusterMs + (Date.now() - this.clusterReadAt) * this.speed;
  }

  view(): ViewData {
    const events = [...(this.kinds.get("events")?.items.values() ?? [])].map((event) => eventEntry(event as Event));
    const entries = [...events, ...this.stateEntries].sort((a, b) => a.atMs - b.atMs).slice(-maxEntries);
    const nowMs = this.nowMs();
    const startMs = Math.min(this.firstMs ?? nowMs, entries[0]?.atMs ?? nowMs);
    return {
      mode: "live",
      title: "live cluster",
      nowMs,
      startMs,
      endMs: nowMs,
      objects: this.objects,
      states: this.states,
      unreadable: this.unreadable,
      entries,
      why: this.why,
      faults: this.faults,
      connection: this.connection,
      verdicts: [],
    };
  }

  async inject(fault: string, params: Record<string, unknown>, heal: boolean): Promise<string> {
    await this.api.json("/apis/kvol.io/v1alpha1/faults", { method: "POST", body: { fault, params, heal } });
    return `${heal ? "healed" : "injected"} ${fault} ${Object.entries(params)
      .map(([key, value]) => `${key}=${String(value)}`)
      .join(" ")}`;
  }

  /** List, then watch from the list's revision; again after a pause when the watch ends. */
  private async follow(name: KindName): Promise<void> {
    const kind = this.kinds.get(name);
    if (kind === undefined) return;
    while (!this.stop.signal.aborted) {
      try {
        const list = await this.api.json<Listed>(kind.path);
        kind.items.clear();
        for (const item of list.items ?? []) kind.items.set(item.metadata?.uid ?? "", item);
        this.objectsChanged();
        this.connection = "live";
        const revision = list.metadata?.resourceVersion ?? "";
        await this.api.watch(
          `${kind.path}?watch=true&allowWatchBookmarks=true&resourceVersion=${revision}`,
          (line) => this.onWatchEvent(kind, line as { type: string; object: { metadata?: { uid?: string } } }),
          this.stop.signal,
        );
      } catch (error) {
        if (this.stop.signal.aborted) return;
        this.connection = error instanceof ApiFailure ? error.message : `disconnected (${String(error)})`;
        this.onChange();
      }
      await new Promise((resolve) => window.setTimeout(resolve, rewatchDelayMs));
    }
  }

  private async relist(name: KindName): Promise<void> {
    const kind = this.kinds.get(name);
    if (kind === undefined) return;
    try {
      const list = await this.api.json<Listed>(kind.path);
      kind.items.clear();
      for (const item of list.items ?? []) kind.items.set(item.metadata?.uid ?? "", item);
      this.objectsChanged();
    } catch (error) {
      this.connection = error instanceof ApiFailure ? error.message : `disconnected (${String(error)})`;
    }
  }

  private onWatchEvent(kind: Kind, event: { type: string; object: { metadata?: { uid?: string } } }): void {
    if (event.type === "BOOKMARK") return;
    const uid = event.object.metadata?.uid ?? "";
    if (event.type === "DELETED") kind.items.delete(uid);
    else kind.items.set(uid, event.object);
    this.objectsChanged();
  }

  private items<T>(name: KindName): T[] {
    return [...(this.kinds.get(name)?.items.values() ?? [])] as T[];
  }

  /** The graph again, with an entry for each object whose status changed. */
  private objectsChanged(): void {
    const before = new Map(this.objects.map((object) => [object.key, object]));
    this.objects = graphObjects({
      pods: this.items<Pod>("pods"),
      claims: this.items<PersistentVolumeClaim>("claims"),
      volumes: this.items<PersistentVolume>("volumes"),
      attachments: this.items<VolumeAttachment>("attachments"),
      nodes: this.items<Node>("nodes"),
    });
    const atMs = this.nowMs();
    this.firstMs ??= atMs;
    for (const object of this.objects) {
      const old = before.get(object.key);
      if (old?.status === object.status) continue;
      const name = object.namespace === "" ? object.name : `${object.namespace}/${object.name}`;
      this.stateEntries.push({
        atMs,
        lane: statusLanes[object.kind],
        kind: "state",
        object: `${objectWords[object.kind]} ${name}`,
        message: old === undefined ? `${object.status}` : `${old.status} → ${object.status}`,
      });
    }
    this.stateEntries = this.stateEntries.slice(-maxEntries);
    this.onChange();
  }

  private async poll(): Promise<void> {
    await Promise.all(polledKinds.map((name) => this.relist(name)));
    await Promise.all([this.readClock(), this.readStates(), this.readWhy(), this.readFaults()]);
    this.onChange();
  }

  private async readClock(): Promise<void> {
    try {
      const answer = await this.api.json<{ time: string; speed: number }>("/apis/kvol.io/v1alpha1/speed");
      this.clusterMs = Date.parse(answer.time);
      this.clusterReadAt = Date.now();
      this.speed = answer.speed;
    } catch {
      // Another kind of cluster: its clock is taken to be this machine's.
      this.clusterMs = Date.now();
      this.clusterReadAt = Date.now();
    }
  }

  private async readStates(): Promise<void> {
    const unreadable: string[] = [];
    const read = async <T>(path: string): Promise<T | undefined> => {
      try {
        return await this.api.json<T>(path);
      } catch (error) {
        unreadable.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    };
    const nodes = this.objects.filter((object) => object.kind === "Node").map((object) => object.name);
    const kubelets: ComponentStates["kubelets"] = {};
    await Promise.all(
      nodes.map(async (node) => {
        const state = await read<ComponentStates["kubelets"][string]>(
          `/api/v1/nodes/${node}/proxy/debug/volumemanager`,
        );
        if (state !== undefined) kubelets[node] = state;
      }),
    );
    const attachDetach = await read<ComponentStates["attachDetach"]>("/debug/controllers/attachdetach-controller");
    const persistentVolume = await read<ComponentStates["persistentVolume"]>(
      "/debug/controllers/persistentvolume-controller",
    );
    const next: ComponentStates = {
      kubelets,
      ...(attachDetach === undefined ? {} : { attachDetach }),
      ...(persistentVolume === undefined ? {} : { persistentVolume }),
    };
    this.stateEntries.push(...stateChanges(this.states, next, this.nowMs()));
    this.states = next;
    this.unreadable = unreadable;
  }

  private async readWhy(): Promise<void> {
    const [word, ...rest] = this.selected.split("/");
    if (word === undefined || rest.length === 0) return;
    const kind = word === "attachment" ? "volumeattachment" : word;
    const name = rest.at(-1) ?? "";
    const namespace = rest.length > 1 ? (rest[0] ?? "") : "";
    if (kind === "volumeattachment" && name.includes("@")) {
      this.why = { error: "an in-tree attachment has no object to explain; choose its volume or pod" };
      return;
    }
    try {
      const query = new URLSearchParams({ kind, name, ...(namespace === "" ? {} : { namespace }) });
      this.why = await this.api.json<WhyJson>(`${whyPath}?${query}`);
    } catch (error) {
      this.why = { error: error instanceof Error ? error.message : String(error) };
    }
  }

  private async readFaults(): Promise<void> {
    if (this.faults !== undefined && this.faults.length === 0) return;
    try {
      const list = await this.api.json<{ items: FaultOffer[] }>("/apis/kvol.io/v1alpha1/faults?targets=true");
      this.faults = list.items.filter((fault) => fault.targets.length > 0);
    } catch {
      // 403 for anyone but an administrator: no fault panel.
      this.faults = [];
    }
  }
}
