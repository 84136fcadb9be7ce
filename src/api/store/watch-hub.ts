/**
 * Watch fan-out for the in-process backends (memory, SQLite). A backend publishes each committed
 * write; the hub hands the events to the watches whose prefix they fall under, asynchronously
 * (never inside the write call), in revision order, batched per microtask: a burst of writes in one
 * turn reaches each watch as one array.
 *
 * Watches are grouped by prefix, and a watch with a route (backend.ts `WatchRoute`) sits in a
 * bucket of its route value: a write costs one `startsWith` per distinct watched prefix of its
 * resource, one field read per distinct route, and one call per interested watch — not one per
 * watch, nor one per watched resource (a cluster's informers watch some twenty of them).
 */
import type { KObject } from "../objects.ts";
import type { BackendEvent, BackendWatch, WatchRoute } from "./backend.ts";
import { reportHandlerError } from "./handler-errors.ts";
import { checkWatchableRevision } from "./revision-checks.ts";

type EventsHandler = (events: readonly BackendEvent[]) => void;

class HubWatch implements BackendWatch {
  stopped = false;
  /** Events the backend had before this watch started, not yet delivered. */
  backlog: BackendEvent[] | undefined;
  /** Events up to this revision are covered by the backlog (or were asked to be skipped). */
  coveredRevision: number;
  readonly prefix: string;
  readonly route: WatchRoute | undefined;
  readonly onEvents: EventsHandler;
  private readonly hub: WatchHub;

  constructor(
    hub: WatchHub,
    prefix: string,
    route: WatchRoute | undefined,
    coveredRevision: number,
    backlog: BackendEvent[],
    onEvents: EventsHandler,
  ) {
    this.hub = hub;
    this.prefix = prefix;
    this.route = route;
    this.coveredRevision = coveredRevision;
    this.backlog = backlog.length > 0 ? backlog : undefined;
    this.onEvents = onEvents;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.hub.remove(this);
  }

  progressRevision(): number {
    return this.backlog === undefined ? Math.max(this.coveredRevision, this.hub.flushedRevision) : this.coveredRevision;
  }
}

/** The watches of one route name under one prefix, by route value. */
interface RouteBuckets {
  read: (object: KObject) => string;
  byValue: Map<string, Set<HubWatch>>;
}

const registryRoot = "/registry/";

/**
 * The resource part of a key or prefix (`/registry/pods/` of `/registry/pods/default/web-0`), or
 * undefined when it has none. A key can fall under a prefix only if both have the same resource
 * part, or the prefix has none.
 */
function resourcePartOf(path: string): string | undefined {
  if (!path.startsWith(registryRoot)) return undefined;
  const end = path.indexOf("/", registryRoot.length);
  return end < 0 ? undefined : path.slice(0, end + 1);
}

/** The watches of one prefix. */
class PrefixGroup {
  readonly unrouted = new Set<HubWatch>();
  readonly routes = new Map<string, RouteBuckets>();
  /** Set when the group's last watch stopped; a flush under way skips it. */
  removed = false;

  /** `order` is the group's place in creation order, the order in which a flush visits groups. */
  constructor(
    readonly prefix: string,
    readonly order: number,
  ) {}

  add(watch: HubWatch): void {
    const route = watch.route;
    if (route === undefined) {
      this.unrouted.add(watch);
      return;
    }
    let buckets = this.routes.get(route.name);
    if (buckets === undefined) {
      buckets = { read: route.read, byValue: new Map() };
      this.routes.set(route.name, buckets);
    }
    let bucket = buckets.byValue.get(route.value);
    if (bucket === undefined) {
      bucket = new Set();
      buckets.byValue.set(route.value, bucket);
    }
    bucket.add(watch);
  }

  /** Removes `watch`; true when the group is left empty. */
  remove(watch: HubWatch): boolean {
    const route = watch.route;
    if (route === undefined) {
      this.unrouted.delete(watch);
    } else {
      const buckets = this.routes.get(route.name);
      const bucket = buckets?.byValue.get(route.value);
      bucket?.delete(watch);
      if (bucket?.size === 0) buckets?.byValue.delete(route.value);
      if (buckets?.byValue.size === 0) this.routes.delete(route.name);
    }
    return this.unrouted.size === 0 && this.routes.size === 0;
  }

  *all(): Iterable<HubWatch> {
    yield* this.unrouted;
    for (const buckets of this.routes.values()) for (const bucket of buckets.byValue.values()) yield* bucket;
  }
}

/** The events of `events` that concern each value of a route (the object's or the previous one's). */
function eventsByRouteValue(
  events: readonly BackendEvent[],
  read: (object: KObject) => string,
): Map<string, BackendEvent[]> {
  const byValue = new Map<string, BackendEvent[]>();
  const add = (value: string, event: BackendEvent): void => {
    const list = byValue.get(value);
    if (list === undefined) byValue.set(value, [event]);
    else list.push(event);
  };
  for (const event of events) {
    const now = read(event.object);
    add(now, event);
    if (event.previous !== undefined) {
      const before = read(event.previous);
      if (before !== now) add(before, event);
    }
  }
  return byValue;
}

/**
 * The events of `events` under `prefix`, or undefined when there are none. A flush visits every
 * watched prefix (one per watched kind), and most flushes carry one write of one kind: testing
 * first, and reusing the batch when all of it matches, keeps the others from allocating an empty array each.
 */
function eventsUnder(events: BackendEvent[], prefix: string): BackendEvent[] | undefined {
  let matches = 0;
  for (const event of events) if (event.key.startsWith(prefix)) matches++;
  if (matches === 0) return undefined;
  return matches === events.length ? events : events.filter((event) => event.key.startsWith(prefix));
}

/** No groups: what a resource nobody watches has. */
const noGroups: readonly PrefixGroup[] = [];

export class WatchHub {
  /** Every published event up to this revision has been handed to the watches of its prefix. */
  flushedRevision: number;
  /** Every group, in creation order (a Map keeps insertion order), which is the order of delivery. */
  private readonly byPrefix = new Map<string, PrefixGroup>();
  /** The groups of each resource part (resourcePartOf), in creation order. */
  private readonly byResource = new Map<string, PrefixGroup[]>();
  /** The groups whose prefix has no resource part (a watch of everything), in creation order. */
  private readonly unresourced: PrefixGroup[] = [];
  private groupsCreated = 0;
  /** Set while a flush walks the group lists: removals then wait until it is done. */
  private flushing = false;
  private removedDuringFlush: PrefixGroup[] = [];
  private pending: BackendEvent[] = [];
  private withBacklog: HubWatch[] = [];
  private flushScheduled = false;
  /** Made once: a flush is queued after nearly every write, and a new closure each time was garbage. */
  private readonly flushTask = (): void => this.flush();

  constructor(startRevision: number) {
    this.flushedRevision = startRevision;
  }

  /**
   * Starts a watch. `backlog` holds the stored events under `prefix` after the watch's start
   * revision, up to `backlogRevision` (the backend's revision when it read them); later events
   * come from `publish`.
   */
  subscribe(
    prefix: string,
    backlogRevision: number,
    backlog: BackendEvent[],
    onEvents: EventsHandler,
    route?: WatchRoute,
  ): BackendWatch {
    const watch = new HubWatch(this, prefix, route, backlogRevision, backlog, onEvents);
    let group = this.byPrefix.get(prefix);
    if (group === undefined) {
      group = this.addGroup(prefix);
    }
    group.add(watch);
    if (watch.backlog !== undefined) {
      this.withBacklog.push(watch);
      this.scheduleFlush();
    }
    return watch;
  }

  /**
   * A backend's `watch`: Gone when `fromRevision` is before the compacted revision, else a watch
   * whose backlog (`readBacklog`, the stored events under `prefix` after `fromRevision`) is read
   * only when the watch starts behind the backend's `currentRevision`.
   */
  watchFrom(
    watched: { prefix: string; fromRevision: number; currentRevision: number; compactedRevision: number },
    readBacklog: () => BackendEvent[],
    onEvents: EventsHandler,
    route?: WatchRoute,
  ): BackendWatch {
    const { prefix, fromRevision, currentRevision, compactedRevision } = watched;
    checkWatchableRevision(fromRevision, compactedRevision);
    const backlog = fromRevision < currentRevision ? readBacklog() : [];
    return this.subscribe(prefix, Math.max(fromRevision, currentRevision), backlog, onEvents, route);
  }

  /** Called by the backend after a write has committed, in revision order. */
  publish(event: BackendEvent): void {
    this.pending.push(event);
    this.scheduleFlush();
  }

  /** Stops every watch (the backend is closing). */
  stopAll(): void {
    for (const group of this.byPrefix.values()) {
      for (const watch of group.all()) watch.stopped = true;
      group.removed = true;
    }
    this.byPrefix.clear();
    this.byResource.clear();
    this.unresourced.length = 0;
    this.pending = [];
    this.withBacklog = [];
  }

  remove(watch: HubWatch): void {
    const group = this.byPrefix.get(watch.prefix);
    if (group === undefined || !group.remove(watch)) return;
    this.byPrefix.delete(watch.prefix);
    group.removed = true;
    // A flush walking the lists by position would skip the group after a removed one.
    if (this.flushing) this.removedDuringFlush.push(group);
    else this.dropGroup(group);
  }

  private addGroup(prefix: string): PrefixGroup {
    const group = new PrefixGroup(prefix, this.groupsCreated++);
    this.byPrefix.set(prefix, group);
    const resource = resourcePartOf(prefix);
    if (resource === undefined) {
      this.unresourced.push(group);
      return group;
    }
    const groups = this.byResource.get(resource);
    if (groups === undefined) this.byResource.set(resource, [group]);
    else groups.push(group);
    return group;
  }

  private dropGroup(group: PrefixGroup): void {
    const resource = resourcePartOf(group.prefix);
    const groups = resource === undefined ? this.unresourced : this.byResource.get(resource);
    const at = groups?.indexOf(group) ?? -1;
    if (groups === undefined || at < 0) return;
    groups.splice(at, 1);
    if (groups.length === 0 && resource !== undefined) this.byResource.delete(resource);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(this.flushTask);
  }

  private flush(): void {
    this.flushScheduled = false;
    const events = this.pending;
    this.pending = [];
    const last = events[events.length - 1];
    if (last !== undefined) this.flushedRevision = last.revision;
    // Starting watches are rare: the empty list is kept rather than replaced on every flush.
    if (this.withBacklog.length > 0) {
      const starting = this.withBacklog;
      this.withBacklog = [];
      for (const watch of starting) this.deliverBacklog(watch);
    }
    if (last === undefined) return;
    if (events.length === 1) {
      this.flushOne(events);
      return;
    }
    // By values, not entries: destructuring entries allocates a pair per prefix per flush.
    for (const group of this.byPrefix.values()) {
      const matching = eventsUnder(events, group.prefix);
      if (matching !== undefined) this.deliverToGroup(group, matching);
    }
  }

  /**
   * A flush of one event (most of them): only the groups of its resource, and those without one,
   * can want it. They are visited in creation order, as the Map walk of a longer flush visits
   * them, a group created meanwhile included; a group removed meanwhile is skipped.
   */
  private flushOne(single: BackendEvent[]): void {
    const key = (single[0] as BackendEvent).key;
    const resource = resourcePartOf(key);
    let ofResource = (resource === undefined ? undefined : this.byResource.get(resource)) ?? noGroups;
    const unresourced = this.unresourced;
    this.flushing = true;
    try {
      let i = 0;
      let j = 0;
      for (;;) {
        // The resource's first group may be created by a delivery of this very flush.
        if (ofResource === noGroups && resource !== undefined) ofResource = this.byResource.get(resource) ?? noGroups;
        if (i >= ofResource.length && j >= unresourced.length) break;
        const a = ofResource[i];
        const b = unresourced[j];
        let group: PrefixGroup;
        if (b === undefined || (a !== undefined && a.order < b.order)) {
          group = a as PrefixGroup;
          i++;
        } else {
          group = b;
          j++;
        }
        if (!group.removed && key.startsWith(group.prefix)) this.deliverToGroup(group, single);
      }
    } finally {
      this.flushing = false;
      if (this.removedDuringFlush.length > 0) {
        const removed = this.removedDuringFlush;
        this.removedDuringFlush = [];
        for (const group of removed) this.dropGroup(group);
      }
    }
  }

  private deliverToGroup(group: PrefixGroup, events: BackendEvent[]): void {
    for (const watch of group.unrouted) this.deliverLive(watch, events);
    for (const buckets of group.routes.values()) {
      if (events.length === 1) {
        this.deliverOneRouted(buckets, events);
        continue;
      }
      for (const [value, routed] of eventsByRouteValue(events, buckets.read)) {
        const bucket = buckets.byValue.get(value);
        if (bucket !== undefined) for (const watch of bucket) this.deliverLive(watch, routed);
      }
    }
  }

  /**
   * A batch of one event (most flushes) reaches the buckets of its route values in the order
   * eventsByRouteValue gives (the object's value, then the previous one's), without the map and
   * arrays it would build for them.
   */
  private deliverOneRouted(buckets: RouteBuckets, single: BackendEvent[]): void {
    const event = single[0] as BackendEvent;
    const now = buckets.read(event.object);
    const nowBucket = buckets.byValue.get(now);
    if (nowBucket !== undefined) for (const watch of nowBucket) this.deliverLive(watch, single);
    if (event.previous === undefined) return;
    const before = buckets.read(event.previous);
    if (before === now) return;
    const beforeBucket = buckets.byValue.get(before);
    if (beforeBucket !== undefined) for (const watch of beforeBucket) this.deliverLive(watch, single);
  }

  private deliverBacklog(watch: HubWatch): void {
    const backlog = watch.backlog;
    watch.backlog = undefined;
    if (watch.stopped || backlog === undefined) return;
    this.call(watch, backlog);
  }

  private deliverLive(watch: HubWatch, events: BackendEvent[]): void {
    if (watch.stopped) return;
    // Events a watch's backlog already covered (or that precede its start) are skipped.
    const first = events[0] as BackendEvent;
    const fresh =
      first.revision > watch.coveredRevision ? events : events.filter((e) => e.revision > watch.coveredRevision);
    if (fresh.length === 0) return;
    watch.coveredRevision = (fresh[fresh.length - 1] as BackendEvent).revision;
    this.call(watch, fresh);
  }

  private call(watch: HubWatch, events: readonly BackendEvent[]): void {
    try {
      watch.onEvents(events);
    } catch (error) {
      reportHandlerError(error);
    }
  }
}
