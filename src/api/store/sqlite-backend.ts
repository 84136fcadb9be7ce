/**
 * The SQLite KVBackend: `kvol up`'s store, one file, one writer process (sqlite-schema.ts has the
 * durability and locking choices). Current objects live in `objects`; every write also appends a
 * row to `revisions` (with the previous object) that serves watches and lists from past
 * revisions, compacted automatically to the last `historyWindowRevisions`. The revision counter
 * is persisted with each write, so a restarted kvol continues above the last revision.
 *
 * Because this process is the only writer, it keeps the frozen objects it has read or written in
 * a bounded cache (a get or list of an unchanged object costs no JSON parse) and it notifies its
 * own watchers after each commit.
 *
 * Writes are group-committed (group-commit.ts): those submitted in one turn of the event loop share
 * one transaction. Each is checked against the state its predecessors in the group leave and
 * written inside its own savepoint, so a write that fails (a stale revision, a key that exists)
 * fails alone; revisions are given in submission order. The commit's fsync runs on another thread
 * (sqlite-wal-sync.ts); the event loop goes on meanwhile, and the writes submitted during it are
 * committed together once it returns, to share the next. Nothing of a group is acknowledged or
 * published to the cache or watchers until an fsync that started after its commit has returned. A
 * read that arrives meanwhile waits for that fsync, as etcd's ReadIndex waits for the commit index,
 * then reads the file as it is: it never shows a write that may not be on disk, and never answers
 * older than the state a write's checks (which see every commit) have seen. A failed fsync fails
 * its writes with an ambiguous error (they may be on disk or not, and may be back after a restart;
 * sqlite-schema.ts) and every later read and write until kvol is restarted.
 *
 * Keys written with a TTL (Events) are removed by a timer of the Clock (key-expiry.ts), with a
 * delete queued like any other write; their expiry times are stored beside them, in the same
 * transaction, so a restarted kvol removes them on time too.
 */
import type Database from "better-sqlite3";
import { deferUntilSettled } from "../../runtime/after-io.ts";
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
import {
  historyWindowRevisions,
  sqliteCompactionBatchRevisions,
  sqliteGroupCommitMaxWrites,
  sqliteObjectCacheEntries,
} from "./constants.ts";
import { freezeParsed, sealAtRevision } from "./frozen.ts";
import { GroupCommit, type WriteOutcome } from "./group-commit.ts";
import { KeyExpiry } from "./key-expiry.ts";
import { checkReadableRevision } from "./revision-checks.ts";
import { rewindEntries } from "./rewind.ts";
import { type ObjectRow, openDatabase, type RevisionRow, type SqliteStatements } from "./sqlite-schema.ts";
import { type SyncFd, type SyncPath, syncStoreFiles, WalSync } from "./sqlite-wal-sync.ts";
import { WatchHub } from "./watch-hub.ts";

interface SqliteBackendOptions {
  /** Revisions of history kept for watches and lists from the past (default `historyWindowRevisions`). */
  historyWindowRevisions?: number;
  /** Compact once this many revisions have fallen out of the window (default `sqliteCompactionBatchRevisions`). */
  compactionBatchRevisions?: number;
  /** Drives the expiry of keys written with a TTL; without it such writes are refused. */
  clock?: Clock;
  /** Syncs a file or directory at open, before anything is read (default: fsync; tests watch it). */
  syncPathOnOpen?: SyncPath;
  /** Runs the WAL's fsync on another thread (default `fs.fsync`; tests hold it to see what waits for it). */
  syncWal?: SyncFd;
}

/** SQLite's LIMIT for "no limit". */
const noLimit = -1;

/** The smallest string greater than every string starting with `prefix`. */
function prefixEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

function parseObject(json: string): KObject {
  return freezeParsed(JSON.parse(json) as KObject);
}

/** A write waiting for its group's commit. */
type Write =
  | { type: "create"; key: string; object: KObject; expiresAtMs: number | undefined }
  | { type: "update"; key: string; object: KObject; expectedModRevision: number; expiresAtMs: number | undefined }
  | { type: "delete"; key: string; expectedModRevision: number };

/** When the key a write leaves expires (epoch ms); a delete leaves nothing to expire. */
function expiryOf(write: Write): number | undefined {
  return write.type === "delete" ? undefined : write.expiresAtMs;
}

/** A write done inside its group's transaction: its entry, the event watchers get, the JSON stored. */
interface Written {
  entry: BackendEntry;
  event: BackendEvent;
  json: string;
}

/** A group written into the file: each write's outcome, and the last revision the file holds with it. */
interface Committed {
  outcomes: WriteOutcome<Written>[];
  revision: number;
}

/** A key's entry and stored JSON as the writes before it in its group leave it; null once deleted. */
type Staged = { entry: BackendEntry; json: string } | null;

function eventFromRow(row: RevisionRow): BackendEvent {
  return {
    type: row.type,
    key: row.key,
    revision: row.rev,
    object: parseObject(row.json),
    previous: row.prev_json === null ? undefined : parseObject(row.prev_json),
    createRevision: row.create_rev,
  };
}

export class SqliteBackend implements KVBackend {
  readonly kind = "sqlite";
  readonly path: string;
  private readonly db: Database.Database;
  private readonly statements: SqliteStatements;
  private readonly inTransaction: (work: () => void) => void;
  private readonly cache = new Map<string, BackendEntry>();
  private readonly writes: GroupCommit<Write, Written>;
  private readonly hub: WatchHub;
  private readonly windowRevisions: number;
  private readonly compactionBatchRevisions: number;
  private readonly expiry: KeyExpiry;
  private readonly walSync: WalSync;
  /** The last durable revision: what reads, watches and `revision()` answer as of. */
  private currentRevision: number;
  /** The last revision the file holds, durable or still waiting for its fsync. */
  private committedRevision: number;
  private compacted: number;
  /** Settles once the latest commit into the file is durable (or its fsync failed). */
  private latestDurable: Promise<void> = Promise.resolve();
  private closed = false;
  /** Set when an fsync failed: what the file holds past `currentRevision` may not be on disk. */
  private syncFailure: Error | undefined;

  /** Opens (or creates) the store file at `path`. */
  static open(path: string, options: SqliteBackendOptions = {}): SqliteBackend {
    return new SqliteBackend(path, options);
  }

  private constructor(path: string, options: SqliteBackendOptions) {
    this.path = path;
    this.windowRevisions = positiveInteger(
      "historyWindowRevisions",
      options.historyWindowRevisions ?? historyWindowRevisions,
    );
    this.compactionBatchRevisions = positiveInteger(
      "compactionBatchRevisions",
      options.compactionBatchRevisions ?? sqliteCompactionBatchRevisions,
    );
    try {
      syncStoreFiles(path, options.syncPathOnOpen);
      ({ db: this.db, statements: this.statements } = openDatabase(path));
    } catch (error) {
      throw new Error(`cannot open the kvol store file ${path}: ${(error as Error).message}`, { cause: error });
    }
    // Called inside another transaction, better-sqlite3 runs `work` in a savepoint instead.
    this.inTransaction = this.db.transaction((work: () => void) => work());
    this.writes = new GroupCommit((group) => this.commitGroup(group), sqliteGroupCommitMaxWrites);
    this.walSync = new WalSync(path, options.syncWal);
    this.currentRevision = this.readMeta("revision");
    this.committedRevision = this.currentRevision;
    this.compacted = this.readMeta("compacted");
    this.hub = new WatchHub(this.currentRevision);
    this.expiry = new KeyExpiry(options.clock, this.kind, {
      expire: (key, modRevision) => this.expire(key, modRevision),
      isAt: (key, modRevision) => this.isAt(key, modRevision),
    });
    this.restoreExpiries(options.clock);
  }

  revision(): number {
    return this.currentRevision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async get(key: string): Promise<BackendEntry | undefined> {
    while (!this.readable()) await this.latestDurable;
    // The cache holds the latest version of every key it has: this process is the only writer.
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const row = this.statements.getObject.get(key);
    return row === undefined ? undefined : this.entryFromRow(row);
  }

  async list(prefix: string, atRevision?: number, page: BackendPage = {}): Promise<BackendList> {
    while (!this.readable()) await this.latestDurable;
    const revision = atRevision ?? this.currentRevision;
    checkReadableRevision(revision, this.compacted, this.currentRevision);
    const startKey = page.startKey !== undefined && page.startKey > prefix ? page.startKey : prefix;
    const end = prefixEnd(prefix);
    const limit = page.limit !== undefined && page.limit > 0 ? page.limit : undefined;
    if (revision === this.currentRevision) {
      const rows = this.statements.rangeObjects.all(startKey, end, limit === undefined ? noLimit : limit + 1);
      const more = limit !== undefined && rows.length > limit;
      const entries = (more ? rows.slice(0, limit) : rows).map((row) => this.entryFromRow(row));
      return { entries, revision, more };
    }
    // A past revision: rewind the rows the file holds now. Each
    // event undoes at most one row, so `limit + 1` rows more than there are events are enough for
    // a page, once rows past the last one read are left out (what they rewind to was not read).
    const since = this.statements.revisionsAfter.all(revision, startKey, end).map(eventFromRow);
    const readLimit = limit === undefined ? noLimit : limit + 1 + since.length;
    const rows = this.statements.rangeObjects.all(startKey, end, readLimit);
    const rewound = rewindEntries(
      rows.map((row) => this.entryFromRow(row)),
      since.reverse(),
    );
    const lastRead = rows.length === readLimit ? (rows[rows.length - 1] as ObjectRow).key : undefined;
    const then = lastRead === undefined ? rewound : rewound.filter((entry) => entry.key <= lastRead);
    return {
      entries: limit === undefined ? then : then.slice(0, limit),
      revision,
      more: limit !== undefined && then.length > limit,
    };
  }

  async create(key: string, object: KObject, options: BackendWriteOptions = {}): Promise<BackendEntry> {
    this.checkOpen();
    const expiresAtMs = this.expiryFor(options);
    return (await this.writes.submit({ type: "create", key, object, expiresAtMs })).entry;
  }

  async update(
    key: string,
    object: KObject,
    expectedModRevision: number,
    options: BackendWriteOptions = {},
  ): Promise<BackendEntry> {
    this.checkOpen();
    const expiresAtMs = this.expiryFor(options);
    return (await this.writes.submit({ type: "update", key, object, expectedModRevision, expiresAtMs })).entry;
  }

  async delete(key: string, expectedModRevision: number): Promise<BackendEntry> {
    this.checkOpen();
    return (await this.writes.submit({ type: "delete", key, expectedModRevision })).entry;
  }

  watch(
    prefix: string,
    fromRevision: number,
    onEvents: (events: readonly BackendEvent[]) => void,
    options: BackendWatchOptions = {},
  ): BackendWatch {
    this.checkOpen();
    const durable = this.currentRevision;
    return this.hub.watchFrom(
      { prefix, fromRevision, currentRevision: durable, compactedRevision: this.compacted },
      // Revisions past the durable one reach the watch when their fsync returns, as published.
      () =>
        this.statements.revisionsAfter
          .all(fromRevision, prefix, prefixEnd(prefix))
          .filter((row) => row.rev <= durable)
          .map(eventFromRow),
      onEvents,
      options.route,
    );
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    const target = Math.min(revision, this.currentRevision);
    if (target <= this.compacted) return;
    this.inTransaction(() => this.compactTo(target));
    this.compacted = target;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Writes submitted before the close are committed, not dropped, and acknowledged once durable.
    this.writes.flush();
    this.closed = true;
    await this.walSync.idle();
    this.expiry.stop();
    this.hub.stopAll();
    this.cache.clear();
    this.walSync.close();
    this.db.close();
  }

  /**
   * Writes `group` into the file in one transaction; once an fsync has made it durable, updates
   * the cache and tells the watchers, in revision order, and resolves with each write's outcome.
   * Throws, with nothing changed, when the transaction fails; rejects when the fsync does.
   */
  private commitGroup(group: readonly Write[]): Promise<WriteOutcome<Written>[]> {
    const committed = this.commitToFile(group);
    return this.trackDurable(this.whenDurable(group, committed));
  }

  /** Notes `durable` as the latest commit's fsync, which reads wait for. */
  private trackDurable<T>(durable: Promise<T>): Promise<T> {
    this.latestDurable = durable.then(
      () => undefined,
      () => undefined,
    );
    return durable;
  }

  /**
   * Whether everything the file holds is durable, so a read may answer from it now: with every write
   * whose checks it could have seen (linearizable), and none that a power cut could still take back.
   * A read waits for `latestDurable` until it is, and reads in the same synchronous step as the
   * last check: a close() flushing queued writes in between could otherwise show one not yet synced.
   * Throws when the store is closed or an fsync failed.
   */
  private readable(): boolean {
    this.checkOpen();
    return this.committedRevision <= this.currentRevision;
  }

  /**
   * Writes `group` in one transaction, each write in its own savepoint, and records the last
   * revision (and any due compaction) with it. Throws, with nothing changed, when the commit fails.
   */
  private commitToFile(group: readonly Write[]): Committed {
    if (this.closed) throw new Error(`the kvol store file ${this.path} was closed before the write was committed`);
    if (this.syncFailure !== undefined) throw this.syncFailure;
    const staged = new Map<string, Staged>();
    const outcomes: WriteOutcome<Written>[] = [];
    let revision = this.committedRevision;
    let compactTo = this.compacted;
    this.inTransaction(() => {
      for (const write of group) {
        try {
          let written: Written | undefined;
          this.inTransaction(() => {
            written = this.writeOne(write, revision + 1, staged);
          });
          const { entry, event, json } = written as Written;
          staged.set(entry.key, event.type === "delete" ? null : { entry, json });
          revision++;
          outcomes.push({ ok: true, value: written as Written });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      if (revision === this.committedRevision) return;
      this.statements.setMeta.run("revision", revision);
      // Never past the durable revision: what lies beyond it is not readable yet, nor sure to stay.
      const due = Math.min(revision - this.windowRevisions, this.currentRevision);
      if (due - this.compacted >= this.compactionBatchRevisions) {
        compactTo = due;
        this.compactTo(compactTo);
      }
    });
    this.committedRevision = revision;
    this.compacted = compactTo;
    return { outcomes, revision };
  }

  /** Waits for the fsync that makes `committed` durable, then makes it visible; groups settle in commit order. */
  private async whenDurable(group: readonly Write[], committed: Committed): Promise<WriteOutcome<Written>[]> {
    const synced = this.walSync.sync();
    deferUntilSettled(synced);
    try {
      await synced;
    } catch (error) {
      this.syncFailure ??= error as Error;
      throw error;
    }
    this.currentRevision = committed.revision;
    committed.outcomes.forEach((outcome, index) => {
      if (!outcome.ok) return;
      const { entry, event } = outcome.value;
      if (event.type === "delete") this.cache.delete(entry.key);
      else this.remember(entry);
      const expiresAtMs = expiryOf(group[index] as Write);
      // A write without a TTL keeps the key for good: the revision it leaves lapses any earlier expiry.
      if (expiresAtMs !== undefined) this.expiry.arm(entry.key, entry.modRevision, expiresAtMs);
      this.hub.publish(event);
    });
    return committed.outcomes;
  }

  /** Checks and writes one write of a group at `revision`; throws BackendConflict when its precondition fails. */
  private writeOne(write: Write, revision: number, staged: Map<string, Staged>): Written {
    const current = this.stagedRead(write.key, staged);
    if (write.type === "create") {
      if (current !== undefined) throw new BackendConflict(write.key, current.entry);
    } else if (current === undefined || current.entry.modRevision !== write.expectedModRevision) {
      throw new BackendConflict(write.key, current?.entry);
    }
    const { key } = write;
    const previous = current?.entry;
    const createRevision = previous === undefined ? revision : previous.createRevision;
    const sealed = sealAtRevision(write.type === "delete" ? (previous as BackendEntry).object : write.object, revision);
    const json = JSON.stringify(sealed);
    if (write.type === "create") this.statements.insertObject.run(key, revision, revision, json);
    else if (write.type === "update") this.statements.updateObject.run(revision, json, key);
    else this.statements.deleteObject.run(key);
    this.writeExpiry(key, revision, expiryOf(write));
    const type = write.type === "delete" ? "delete" : "put";
    this.statements.insertRevision.run(revision, key, type, createRevision, json, current?.json ?? null);
    const entry = { key, object: sealed, createRevision, modRevision: revision };
    return { entry, json, event: { type, key, revision, object: sealed, previous: previous?.object, createRevision } };
  }

  /** The entry of `key` as the earlier writes of the group being committed leave it. */
  private stagedRead(key: string, staged: Map<string, Staged>): Exclude<Staged, null> | undefined {
    const written = staged.get(key);
    if (written !== undefined) return written ?? undefined;
    // Not written by this group: what the database holds is committed, and may be cached.
    const row = this.statements.getObject.get(key);
    return row === undefined ? undefined : { entry: this.entryFromRow(row), json: row.json };
  }

  private compactTo(revision: number): void {
    this.statements.deleteRevisionsUpTo.run(revision);
    this.statements.setMeta.run("compacted", revision);
  }

  private entryFromRow(row: ObjectRow): BackendEntry {
    const cached = this.cache.get(row.key);
    if (cached !== undefined && cached.modRevision === row.mod_rev) return cached;
    const entry = {
      key: row.key,
      object: parseObject(row.json),
      createRevision: row.create_rev,
      modRevision: row.mod_rev,
    };
    // A row past the durable revision is a write still waiting for its fsync (read by a write's
    // check): not cached before it is published.
    if (row.mod_rev <= this.currentRevision) this.remember(entry);
    return entry;
  }

  /** Caches `entry`, evicting the longest-cached key when the cache is full. */
  private remember(entry: BackendEntry): void {
    if (!this.cache.has(entry.key) && this.cache.size >= sqliteObjectCacheEntries) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(entry.key, entry);
  }

  /** Inside a write's transaction: store when the key expires, or that it no longer does. */
  private writeExpiry(key: string, revision: number, expiresAtMs: number | undefined): void {
    if (expiresAtMs === undefined) this.statements.deleteExpiry.run(key);
    else this.statements.setExpiry.run(key, revision, expiresAtMs);
  }

  /** Whether `key` is committed at `modRevision`: written neither since nor deleted. */
  private isAt(key: string, modRevision: number): boolean {
    return this.statements.getModRevision.get(key)?.mod_rev === modRevision;
  }

  /**
   * A key's TTL ran out: remove it unless it was written since (that write re-armed it or kept it
   * for good) or deleted. The delete goes through the write queue like any other: expiries that come
   * due while a commit waits for its fsync share the next group, behind that fsync, so a read waiting
   * for it is answered once it returns instead of finding a newer unsynced commit each time.
   *
   * The queue's order is the order the writes were made in, as the memory backend applies them at
   * once: a write of the key submitted before the TTL ran out is applied first, re-arms (or keeps)
   * the key, and the expiry then conflicts and does nothing; one submitted after it finds the key
   * gone. etcd does the same: a lease's revocation is a proposal applied in log order with the writes,
   * so a put proposed before it has already moved the key to another lease (or none) and the key
   * stays, while one after it fails its revision check.
   */
  private async expire(key: string, modRevision: number): Promise<void> {
    if (this.closed || !this.isAt(key, modRevision)) return;
    try {
      await this.writes.submit({ type: "delete", key, expectedModRevision: modRevision });
    } catch (error) {
      // Written or deleted since it was queued: nothing left to expire.
      if (error instanceof BackendConflict) return;
      // A failed fsync is kept in syncFailure (by whenDurable) and fails every later read and write;
      // a restart re-arms the expiries the file holds. A closed store's restart does the same.
      if (this.syncFailure !== undefined || this.closed) return;
      // A commit that failed (a full disk): KeyExpiry tries again later.
      throw error;
    }
  }

  /** When a write with `options` made now expires (epoch ms), if it has a TTL. */
  private expiryFor(options: BackendWriteOptions): number | undefined {
    return options.ttlSeconds === undefined ? undefined : this.expiry.expiresAtMs(options.ttlSeconds);
  }

  /** A reopened file: arm the expiries it holds (those already past expire at the clock's next turn). */
  private restoreExpiries(clock: Clock | undefined): void {
    const rows = this.statements.allExpiries.all();
    if (rows.length === 0) return;
    if (clock === undefined) {
      this.db.close();
      throw new Error(`${this.path} holds keys that expire (Events); open it with a clock so they are removed`);
    }
    for (const row of rows) this.expiry.arm(row.key, row.mod_rev, row.expires_at_ms);
  }

  private readMeta(name: string): number {
    return this.statements.getMeta.get(name)?.value ?? 0;
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`the kvol store file ${this.path} is closed; no reads or writes are possible`);
    if (this.syncFailure !== undefined) {
      throw new Error(
        `the kvol store file ${this.path} can no longer be trusted (${this.syncFailure.message}); check the disk, then restart kvol`,
      );
    }
  }
}
