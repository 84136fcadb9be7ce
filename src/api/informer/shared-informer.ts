/**
 * client-go's SharedIndexInformer: one list+watch per kind feeding an indexed cache and any number
 * of event handlers. Every controller that needs pods shares the same informer, so the cache holds
 * one frozen copy of each pod however many controllers read it.
 *
 * Handlers run synchronously, in registration order, right after the cache has applied the change:
 * inside a handler the cache already shows the new state. A handler that throws is logged and the
 * others still run. A handler added after the cache is filled first receives an add for every
 * cached object. Every `resyncPeriodMs` each handler receives `onUpdate(obj, obj)` for every cached
 * object, so level-triggered controllers revisit everything (as client-go's resync).
 */
import type { Clock, Timer } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Rng } from "../../runtime/rng.ts";
import type { ApiObject, ResourceClient, WatchEvent } from "../client/client.ts";
import { objectKey } from "../objects.ts";
import { Indexer, type IndexFunc } from "./indexer.ts";
import { Lister } from "./lister.ts";
import { Reflector, type ReflectorSink } from "./reflector.ts";

export interface ResourceEventHandler<T> {
  /** `isInInitialList`: the object came from the first list (or the catch-up of a late handler). */
  onAdd?(object: T, isInInitialList: boolean): void;
  /** `oldObject === newObject` for a resync. */
  onUpdate?(oldObject: T, newObject: T): void;
  /** The object's last state: from the DELETED event, or the last cached one when a relist found it gone. */
  onDelete?(object: T): void;
}

export interface HandlerRegistration {
  /** Stops delivering to this handler. */
  remove(): void;
}

interface SharedInformerOptions {
  clock: Clock;
  rng: Rng;
  logger: Logger;
  /** How often every cached object is redelivered as an update; 0 disables resync. */
  resyncPeriodMs: number;
}

export class SharedInformer<T extends ApiObject> implements ReflectorSink<T> {
  readonly indexer: Indexer<T>;
  readonly lister: Lister<T>;
  private readonly kindLabel: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly resyncPeriodMs: number;
  private readonly reflector: Reflector<T>;
  /** Replaced (never mutated) on add and remove, so a delivery loop keeps a stable list. */
  private handlers: readonly ResourceEventHandler<T>[] = [];
  private synced = false;
  private stopped = false;
  private started = false;
  private resyncTimer: Timer | undefined;
  private syncWaiters: ((synced: boolean) => void)[] = [];

  constructor(resource: ResourceClient<T>, options: SharedInformerOptions) {
    if (!Number.isFinite(options.resyncPeriodMs) || options.resyncPeriodMs < 0) {
      throw new RangeError(
        `SharedInformer: resyncPeriodMs must be a finite number >= 0, got ${options.resyncPeriodMs}`,
      );
    }
    this.kindLabel = resource.type.plural;
    this.clock = options.clock;
    this.logger = options.logger;
    this.resyncPeriodMs = options.resyncPeriodMs;
    this.indexer = new Indexer<T>();
    this.lister = new Lister(this.indexer);
    this.reflector = new Reflector(resource, this, options);
  }

  /**
   * Adds indexes (see `indexes.ts`); allowed at any time, existing objects are filed at once.
   * Registering an index that is already there with the same function is a no-op.
   */
  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void {
    for (const [name, indexFunc] of Object.entries(indexers)) this.indexer.ensureIndex(name, indexFunc);
  }

  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    this.handlers = [...this.handlers, handler];
    for (const object of this.indexer.listAll()) {
      try {
        handler.onAdd?.(object, true);
      } catch (error) {
        this.reportHandlerError("onAdd", error);
      }
    }
    return {
      remove: () => {
        this.handlers = this.handlers.filter((registered) => registered !== handler);
      },
    };
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.reflector.start();
  }

  /** Stops watching and resyncing; the cache keeps its last contents. An informer cannot be restarted. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.reflector.stop();
    this.resyncTimer?.cancel();
    this.resyncTimer = undefined;
    this.settleSyncWaiters(false);
  }

  /** True once the first list is in the cache and has been delivered to the handlers. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once synced, or false if the informer is stopped first (client-go's WaitForCacheSync). */
  waitForSync(): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  /** From the reflector after every (re)list: reconcile the cache with the complete list. */
  replace(items: readonly T[]): void {
    const isInitialList = !this.synced;
    const listed = new Set<string>();
    for (const object of items) {
      listed.add(objectKey(object));
      const previous = this.indexer.upsert(object);
      if (previous === undefined) this.deliverAdd(object, isInitialList);
      else if (previous.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
        this.deliverUpdate(previous, object);
      }
    }
    this.removeVanished(listed);
    if (isInitialList) this.markSynced();
  }

  /** From the reflector for every watch event, in revision order. */
  apply(event: WatchEvent<T>): void {
    const object = event.object;
    if (event.type === "DELETED") {
      this.indexer.delete(objectKey(object));
      this.deliverDelete(object);
      return;
    }
    const previous = this.indexer.upsert(object);
    if (previous === undefined) this.deliverAdd(object, false);
    else this.deliverUpdate(previous, object);
  }

  /** Objects cached but missing from a relist were deleted while the watch was down (DeletedFinalStateUnknown). */
  private removeVanished(listed: ReadonlySet<string>): void {
    if (listed.size === this.indexer.size) return;
    const vanished = [...this.indexer.keys()].filter((key) => !listed.has(key));
    for (const key of vanished) {
      const lastKnown = this.indexer.delete(key);
      if (lastKnown !== undefined) this.deliverDelete(lastKnown);
    }
  }

  private markSynced(): void {
    this.synced = true;
    this.settleSyncWaiters(true);
    this.scheduleResync();
  }

  private settleSyncWaiters(synced: boolean): void {
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const resolve of waiters) resolve(synced);
  }

  private scheduleResync(): void {
    if (this.resyncPeriodMs === 0 || this.stopped) return;
    this.resyncTimer = this.clock.setTimer(this.resyncPeriodMs, () => {
      this.scheduleResync();
      this.resync();
    });
  }

  private resync(): void {
    for (const object of this.indexer.listAll()) this.deliverUpdate(object, object);
  }

  // The three deliver methods repeat their loop instead of sharing a closure-taking helper: they run
  // for every event and every handler, and a closure per call is measurable at that volume.
  private deliverAdd(object: T, isInInitialList: boolean): void {
    for (const handler of this.handlers) {
      try {
        handler.onAdd?.(object, isInInitialList);
      } catch (error) {
        this.reportHandlerError("onAdd", error);
      }
    }
  }

  private deliverUpdate(oldObject: T, newObject: T): void {
    for (const handler of this.handlers) {
      try {
        handler.onUpdate?.(oldObject, newObject);
      } catch (error) {
        this.reportHandlerError("onUpdate", error);
      }
    }
  }

  private deliverDelete(object: T): void {
    for (const handler of this.handlers) {
      try {
        handler.onDelete?.(object);
      } catch (error) {
        this.reportHandlerError("onDelete", error);
      }
    }
  }

  /** A throwing handler is logged, so one broken handler cannot starve the others or stop the informer. */
  private reportHandlerError(callback: keyof ResourceEventHandler<T>, error: unknown): void {
    const why = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.logger.error("event handler threw; delivery continues", { resource: this.kindLabel, callback, error: why });
  }
}
