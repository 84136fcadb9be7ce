/**
 * The in-memory KVBackend (simulation, tests, `kvol up --ephemeral`). Current entries live in a Map
 * with a sorted key index beside it, so a list by prefix (the pods of one namespace) reads only the
 * keys it returns. History is a revision log of events that carry the previous object, which
 * serves watches and lists from past revisions back to the compaction point; the log is compacted
 * automatically to the last `historyWindowRevisions` revisions so memory stays bounded. Keys
 * written with a TTL (Events) are removed by a timer of the Clock (key-expiry.ts).
 */

import type { Clock } from "../../runtime/clock.ts";
import type { KObject } from "../objects.ts";
import {
  BackendConflict,
  type BackendEntry,
  type BackendEvent,
  type BackendList,
  type BackendPage,
  type BackendWatch,
  type BackendWatchOptions,
  type BackendWriteOptions,
  type KVBackend,
} from "./backend.ts";
import { historyWindowRevisions } from "./constants.ts";
import { sealAtRevision } from "./frozen.ts";
import { KeyExpiry } from "./key-expiry.ts";
import { checkReadableRevision } from "./revision-checks.ts";
import { RevisionLog } from "./revision-log.ts";
import { rewindEntries } from "./rewind.ts";
import { SortedKeys } from "./sorted-keys.ts";
import { WatchHub } from "./watch-hub.ts";

interface MemoryBackendOptions {
  /** Revisions of history kept for watches and lists from the past (default `historyWindowRevisions`). */
  historyWindowRevisions?: number;
  /** Drives the expiry of keys written with a TTL; without it such writes are refused. */
  clock?: Clock;
}

export class MemoryBackend implements KVBackend {
  readonly kind = "memory";
  private readonly entries = new Map<string, BackendEntry>();
  private readonly keys = new SortedKeys();
  private readonly log = new RevisionLog();
  private readonly hub = new WatchHub(0);
  private readonly windowRevisions: number;
  private readonly expiry: KeyExpiry;
  private currentRevision = 0;
  private closed = false;

  constructor(options: MemoryBackendOptions = {}) {
    this.windowRevisions = options.historyWindowRevisions ?? historyWindowRevisions;
    if (!Number.isInteger(this.windowRevisions) || this.windowRevisions < 1) {
      throw new RangeError(`historyWindowRevisions must be a positive integer, got ${this.windowRevisions}`);
    }
    this.expiry = new KeyExpiry(options.clock, this.kind, {
      expire: (key, modRevision) => this.expire(key, modRevision),
      isAt: (key, modRevision) => this.entries.get(key)?.modRevision === modRevision,
    });
  }

  revision(): number {
    return this.currentRevision;
  }

  compactedRevision(): number {
    return this.log.compacted;
  }

  async get(key: string): Promise<BackendEntry | undefined> {
    this.checkOpen();
    return this.entries.get(key);
  }

  async list(prefix: string, atRevision?: number, page: BackendPage = {}): Promise<BackendList> {
    this.checkOpen();
    const revision = atRevision ?? this.currentRevision;
    checkReadableRevision(revision, this.log.compacted, this.currentRevision);
    const startKey = page.startKey !== undefined && page.startKey > prefix ? page.startKey : prefix;
    const limit = page.limit !== undefined && page.limit > 0 ? page.limit : Number.POSITIVE_INFINITY;
    if (revision === this.currentRevision) return this.listCurrent(prefix, startKey, limit);
    const now = this.listCurrent(prefix, startKey, Number.POSITIVE_INFINITY).entries;
    const since = this.log.after(revision, prefix).filter((event) => event.key >= startKey);
    const then = rewindEntries(now, since.reverse());
    return { entries: then.slice(0, limit), revision, more: then.length > limit };
  }

  async create(key: string, object: KObject, options: BackendWriteOptions = {}): Promise<BackendEntry> {
    this.checkOpen();
    const existing = this.entries.get(key);
    if (existing !== undefined) throw new BackendConflict(key, existing);
    const expiresAtMs = options.ttlSeconds === undefined ? undefined : this.expiry.expiresAtMs(options.ttlSeconds);
    const revision = this.currentRevision + 1;
    const entry = { key, object: sealAtRevision(object, revision), createRevision: revision, modRevision: revision };
    this.entries.set(key, entry);
    this.keys.add(key);
    if (expiresAtMs !== undefined) this.expiry.arm(key, revision, expiresAtMs);
    this.record({ type: "put", key, revision, object: entry.object, previous: undefined, createRevision: revision });
    return entry;
  }

  async update(
    key: string,
    object: KObject,
    expectedModRevision: number,
    options: BackendWriteOptions = {},
  ): Promise<BackendEntry> {
    this.checkOpen();
    const existing = this.expect(key, expectedModRevision);
    const expiresAtMs = options.ttlSeconds === undefined ? undefined : this.expiry.expiresAtMs(options.ttlSeconds);
    const revision = this.currentRevision + 1;
    const entry = { ...existing, object: sealAtRevision(object, revision), modRevision: revision };
    this.entries.set(key, entry);
    // A write without a TTL keeps the key for good: the revision it leaves lapses any earlier expiry.
    if (expiresAtMs !== undefined) this.expiry.arm(key, revision, expiresAtMs);
    this.record({
      type: "put",
      key,
      revision,
      object: entry.object,
      previous: existing.object,
      createRevision: existing.createRevision,
    });
    return entry;
  }

  async delete(key: string, expectedModRevision: number): Promise<BackendEntry> {
    this.checkOpen();
    return this.remove(this.expect(key, expectedModRevision));
  }

  /** Removes the current entry `existing`, recording the delete at the next revision. */
  private remove(existing: BackendEntry): BackendEntry {
    const key = existing.key;
    const revision = this.currentRevision + 1;
    const entry = { ...existing, object: sealAtRevision(existing.object, revision), modRevision: revision };
    this.entries.delete(key);
    this.keys.delete(key);
    this.record({
      type: "delete",
      key,
      revision,
      object: entry.object,
      previous: existing.object,
      createRevision: existing.createRevision,
    });
    return entry;
  }

  watch(
    prefix: string,
    fromRevision: number,
    onEvents: (events: readonly BackendEvent[]) => void,
    options: BackendWatchOptions = {},
  ): BackendWatch {
    this.checkOpen();
    return this.hub.watchFrom(
      { prefix, fromRevision, currentRevision: this.currentRevision, compactedRevision: this.log.compacted },
      () => this.log.after(fromRevision, prefix),
      onEvents,
      options.route,
    );
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    this.log.compact(Math.min(revision, this.currentRevision));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.expiry.stop();
    this.hub.stopAll();
  }

  private listCurrent(prefix: string, startKey: string, limit: number): BackendList {
    const entries: BackendEntry[] = [];
    let more = false;
    this.keys.forEachFrom(startKey, (key) => {
      if (!key.startsWith(prefix)) return false;
      if (entries.length >= limit) {
        more = true;
        return false;
      }
      entries.push(this.entries.get(key) as BackendEntry);
      return true;
    });
    return { entries, revision: this.currentRevision, more };
  }

  /** The current entry of `key`, when it is at `expectedModRevision`; BackendConflict otherwise. */
  private expect(key: string, expectedModRevision: number): BackendEntry {
    const existing = this.entries.get(key);
    if (existing === undefined || existing.modRevision !== expectedModRevision) {
      throw new BackendConflict(key, existing);
    }
    return existing;
  }

  private record(event: BackendEvent): void {
    this.currentRevision = event.revision;
    this.log.append(event);
    if (this.log.length > this.windowRevisions) this.log.compact(this.currentRevision - this.windowRevisions);
    this.hub.publish(event);
  }

  /** A key's TTL ran out: remove it unless it was written since (that write re-armed it or kept it for good) or deleted. */
  private expire(key: string, modRevision: number): void {
    const existing = this.entries.get(key);
    if (this.closed || existing === undefined || existing.modRevision !== modRevision) return;
    this.remove(existing);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error("the memory store backend is closed; no reads or writes are possible");
  }
}
