/**
 * A live cluster as the UI sees it: each kind listed, then all of them followed on one live stream
 * (`/apis/kvol.io/v1alpha1/livestream`, live-stream-protocol.ts) that also carries the components'
 * debug states as they change, so an operation that lasts a fraction of a second is seen, and the
 * browser keeps its other connections for `why` and the page's own requests. A dropped stream is
 * opened again from the last resourceVersion seen of each kind; a kind whose revision is gone
 * (410) is listed again. A kind the user may not read is left out and named, the rest goes on.
 * The timeline is built from Events, from the objects' status changes and from the debug states'
 * changes (the same diff the simulator records).
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
import {
  type LiveLine,
  type LiveResource,
  liveResources,
  liveStreamPath,
} from "../../../src/cli/webui/live-stream-protocol.ts";
import { type WhyJson, whyPath } from "../../../src/cli/webui/ui-data.ts";
import { type Api, ApiFailure } from "./api.ts";
import type { FaultOffer, ViewData } from "./view.ts";

/** How long to wait before opening a stream that ended in an error again. */
const reconnectDelayMs = 1000;
/** The cluster's clock and speed are read again this often (`kvol speed` may change the pace). */
const clockReadPeriodMs = 30_000;
/** `why` is told again after a change, at most this often. */
const whyMinPeriodMs = 1000;
/** The faults on offer are read again after a change, at most this often. */
const faultsMinPeriodMs = 5000;
/** The live timeline keeps this many entries, the newest. */
const maxEntries = 2000;

interface Kind {
  items: Map<string, unknown>;
  /** The last resourceVersion seen: where a new stream resumes. */
  revision: string;
  /** Listed again before the next stream (first time, or its revision is gone). */
  stale: boolean;
  /** Why this user may not read it; undefined when it may. */
  forbidden?: string;
}

interface Listed {
  metadata?: { resourceVersion?: string };
  items?: { metadata?: { uid?: string } }[];
}

/** The graph's names of the stream's resources. */
const resourceNames = Object.keys(liveResources) as LiveResource[];

/** A debug component (`kubelet/NODE`, a controller's debug name) in the ComponentStates the panels draw. */
function withComponent(states: ComponentStates, component: string, state: object | undefined): ComponentStates {
  if (component.startsWith("kubelet/")) {
    const kubelets = { ...states.kubelets };
    const node = component.slice("kubelet/".length);
    if (state === undefined) delete kubelets[node];
    else kubelets[node] = state as ComponentStates["kubelets"][string];
    return { ...states, kubelets };
  }
  const field =
    component === "attachdetach-controller"
      ? "attachDetach"
      : component === "persistentvolume-controller"
        ? "persistentVolume"
        : undefined;
  if (field === undefined) return states;
  const next = { ...states };
  if (state === undefined) delete next[field];
  else (next as Record<string, unknown>)[field] = state;
  return next;
}

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
  private readonly kinds = new Map<LiveResource, Kind>(
    resourceNames.map((name) => [name, { items: new Map(), revision: "", stale: true }]),
  );
  private readonly stop = new AbortController();
  private objects: GraphObject[] = [];
  private states: ComponentStates = noComponentStates;
  /** Debug components that could not be read, with why ("" for all of them). */
  private readonly unreadable = new Map<string, string>();
  private stateEntries: LaneEntry[] = [];
  private why: ViewData["why"];
  private whyReading = false;
  private whyReadAt = 0;
  private whyAgain = false;
  private faults: FaultOffer[] | undefined;
  private selected = "";
  private clusterMs = Date.now();
  private clusterReadAt = Date.now();
  private speed = 1;
  private firstMs: number | undefined;
  private connection = "connecting…";
  private clockTimer: number | undefined;
  private pauseBeforeReconnect = false;
  private faultsReadAt = 0;

  constructor(
    private readonly api: Api,
    private readonly onChange: () => void,
  ) {}

  start(): void {
    void this.readClock();
    void this.readFaults();
    this.clockTimer = window.setInterval(() => void this.readClock(), clockReadPeriodMs);
    void this.follow();
  }

  close(): void {
    this.stop.abort();
    window.clearInterval(this.clockTimer);
  }

  select(key: string): void {
    this.selected = key;
    this.why = undefined;
    this.whyReadAt = 0;
    this.whyChanged();
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
    const forbidden = [...this.kinds]
      .filter(([, kind]) => kind.forbidden !== undefined)
      .map(([name, kind]) => `${name}: ${kind.forbidden}`);
    return {
      mode: "live",
      title: "live cluster",
      nowMs,
      startMs,
      endMs: nowMs,
      objects: this.objects,
      states: this.states,
      unreadable: [...this.unreadable.values()],
      forbidden,
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

  /** List what needs it, stream from the revisions seen; again (after a pause on an error) when the stream ends. */
  private async follow(): Promise<void> {
    while (!this.stop.signal.aborted) {
      const stream = new AbortController();
      const stopStream = () => stream.abort();
      this.stop.signal.addEventListener("abort", stopStream);
      this.pauseBeforeReconnect = false;
      let failed = false;
      try {
        await Promise.all(resourceNames.map((name) => this.listIfStale(name)));
        const watched = resourceNames.filter((name) => this.kinds.get(name)?.forbidden === undefined);
        const query = new URLSearchParams(
          watched.map((name) => ["watch", `${name}:${this.kinds.get(name)?.revision}`]),
        );
        query.set("debug", "true");
        this.connection = "live";
        this.objectsChanged();
        await this.api.watch(
          `${liveStreamPath}?${query}`,
          (line) => this.onLine(line as LiveLine, stream),
          stream.signal,
        );
      } catch (error) {
        if (this.stop.signal.aborted) return;
        if (!stream.signal.aborted) {
          failed = true;
          this.connection = error instanceof ApiFailure ? error.message : `disconnected (${String(error)})`;
          this.onChange();
        }
      } finally {
        this.stop.signal.removeEventListener("abort", stopStream);
      }
      if (failed || this.pauseBeforeReconnect)
        await new Promise((resolve) => window.setTimeout(resolve, reconnectDelayMs));
    }
  }

  private async listIfStale(name: LiveResource): Promise<void> {
    const kind = this.kinds.get(name);
    if (kind === undefined || !kind.stale || kind.forbidden !== undefined) return;
    try {
      const list = await this.api.json<Listed>(liveResources[name].listPath);
      kind.items.clear();
      for (const item of list.items ?? []) kind.items.set(item.metadata?.uid ?? "", item);
      kind.revision = list.metadata?.resourceVersion ?? "";
      kind.stale = false;
    } catch (error) {
      if (!(error instanceof ApiFailure && error.status === 403)) throw error;
      kind.forbidden = error.message;
    }
  }

  private onLine(line: LiveLine, stream: AbortController): void {
    if (line.resource === "debug") {
      this.onDebugLine(line);
      return;
    }
    const kind = this.kinds.get(line.resource);
    if (kind === undefined) return;
    if (line.type === "ERROR") {
      if (line.object.code === 403) kind.forbidden = line.object.message ?? "forbidden";
      else kind.stale = true;
      // Anything but a revision gone (410) or a refusal may happen again at once: pause first.
      if (line.object.code !== 410 && line.object.code !== 403) {
        this.pauseBeforeReconnect = true;
        this.connection = line.object.message ?? "the stream ended";
      }
      // Open the stream again: listed anew (410 Gone and other ends) or without this kind (403).
      stream.abort();
      return;
    }
    kind.revision = line.object.metadata?.resourceVersion ?? kind.revision;
    if (line.type === "BOOKMARK") return;
    const uid = line.object.metadata?.uid ?? "";
    if (line.type === "DELETED") kind.items.delete(uid);
    else kind.items.set(uid, line.object);
    this.objectsChanged();
  }

  private onDebugLine(line: Extract<LiveLine, { resource: "debug" }>): void {
    if (line.type === "UNREADABLE") {
      this.unreadable.set(line.component, line.message);
      this.onChange();
      return;
    }
    this.unreadable.delete(line.component);
    const next = withComponent(this.states, line.component, line.type === "STATE" ? line.object : undefined);
    this.stateEntries.push(...stateChanges(this.states, next, this.nowMs()));
    this.stateEntries = this.stateEntries.slice(-maxEntries);
    this.states = next;
    this.whyChanged();
    this.onChange();
  }

  private items<T>(name: LiveResource): T[] {
    return [...(this.kinds.get(name)?.items.values() ?? [])] as T[];
  }

  /** The graph again, with an entry for each object whose status changed. */
  private objectsChanged(): void {
    const before = new Map(this.objects.map((object) => [object.key, object]));
    this.objects = graphObjects({
      pods: this.items<Pod>("pods"),
      claims: this.items<PersistentVolumeClaim>("persistentvolumeclaims"),
      volumes: this.items<PersistentVolume>("persistentvolumes"),
      attachments: this.items<VolumeAttachment>("volumeattachments"),
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
    this.whyChanged();
    // The faults' targets follow the cluster's nodes, disks and claims (administrators only).
    if ((this.faults?.length ?? 0) > 0 && Date.now() - this.faultsReadAt > faultsMinPeriodMs) void this.readFaults();
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

  /** Something changed: the selected object's chain is told again, at most once a second. */
  private whyChanged(): void {
    if (this.selected === "") return;
    if (this.whyReading) {
      this.whyAgain = true;
      return;
    }
    const waitMs = this.whyReadAt + whyMinPeriodMs - Date.now();
    this.whyReading = true;
    window.setTimeout(
      () =>
        void this.readWhy().finally(() => {
          this.whyReading = false;
          this.whyReadAt = Date.now();
          this.onChange();
          if (this.whyAgain) {
            this.whyAgain = false;
            this.whyChanged();
          }
        }),
      Math.max(0, waitMs),
    );
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
    this.faultsReadAt = Date.now();
    try {
      const list = await this.api.json<{ items: FaultOffer[] }>("/apis/kvol.io/v1alpha1/faults?targets=true");
      this.faults = list.items.filter((fault) => fault.targets.length > 0);
    } catch {
      // 403 for anyone but an administrator: no fault panel.
      this.faults = [];
    }
    this.onChange();
  }
}
