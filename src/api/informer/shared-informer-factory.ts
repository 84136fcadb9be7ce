/**
 * client-go's SharedInformerFactory: hands out one shared informer per kind, so every controller in
 * a process reads the same cache and the API sees one list+watch per kind, however many readers.
 *
 * Unlike client-go, an informer requested after `start()` starts at once: a late component does not
 * depend on someone calling `start()` again.
 */
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Rng } from "../../runtime/rng.ts";
import type { Client } from "../client/client.ts";
import type { KindMap, KindName } from "../objects.ts";
import { SharedInformer } from "./shared-informer.ts";

interface SharedInformerFactoryOptions {
  /** How often informers redeliver every cached object as an update; 0 disables resync. */
  resyncPeriodMs: number;
  /** Draws the relist backoff jitter; each informer gets its own stream named after its kind. */
  rng: Rng;
  logger: Logger;
}

/** What the factory does with every informer regardless of its kind. */
interface InformerControl {
  start(): void;
  stop(): void;
  hasSynced(): boolean;
  waitForSync(): Promise<boolean>;
}

export class SharedInformerFactory {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly options: SharedInformerFactoryOptions;
  private readonly informers = new Map<KindName, InformerControl>();
  private started = false;
  private stopped = false;

  constructor(client: Client, clock: Clock, options: SharedInformerFactoryOptions) {
    this.client = client;
    this.clock = clock;
    this.options = options;
  }

  /** The informer for `kind`, created on first request and shared afterwards. */
  informerFor<K extends KindName>(kind: K): SharedInformer<KindMap[K]> {
    const existing = this.informers.get(kind);
    // Each entry was created below as a SharedInformer for the kind it is keyed by.
    if (existing !== undefined) return existing as unknown as SharedInformer<KindMap[K]>;
    const informer = new SharedInformer<KindMap[K]>(this.client.resource(kind), {
      clock: this.clock,
      rng: this.options.rng.stream(`informer/${kind}`),
      logger: this.options.logger,
      resyncPeriodMs: this.options.resyncPeriodMs,
    });
    this.informers.set(kind, informer);
    if (this.started && !this.stopped) informer.start();
    return informer;
  }

  /** Starts every informer requested so far; later ones start as they are requested. */
  start(): void {
    if (this.stopped) throw new Error("SharedInformerFactory: start() after stop(); create a new factory instead");
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
  }

  /** Resolves true once every informer requested so far has synced, false if any was stopped first. */
  async waitForCacheSync(): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((informer) => informer.waitForSync()));
    return results.every(Boolean);
  }

  /** Kinds whose informer has not synced yet, for a readable "still waiting for …" message. */
  unsyncedKinds(): KindName[] {
    return [...this.informers].filter(([, informer]) => !informer.hasSynced()).map(([kind]) => kind);
  }

  stop(): void {
    this.stopped = true;
    for (const informer of this.informers.values()) informer.stop();
  }
}
