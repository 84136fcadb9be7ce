/**
 * The SQLite backend while a commit waits for its fsync (held here by hand): what it compacts,
 * and what reads and writes answer meanwhile.
 */
import assert from "node:assert/strict";
import { fsync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { Clock, Timer } from "../../runtime/clock.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { KObject } from "../objects.ts";
import { BackendConflict } from "./backend.ts";
import { SqliteBackend } from "./sqlite-backend.ts";
import type { SyncFd } from "./sqlite-wal-sync.ts";

function object(name: string, data: Record<string, string> = {}): KObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

/** One turn of the event loop: the writes submitted so far are committed into the file. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock moved by hand whose timers run as it passes them, without waiting for anything: expiries
 * can come due while an fsync is held, as under real time (a VirtualClock waits for the fsync first).
 */
class HandClock implements Clock {
  private nowMs = 0;
  private timers: { dueMs: number; fn: () => void; cancelled: boolean }[] = [];
  now(): number {
    return this.nowMs;
  }
  setTimer(delayMs: number, fn: () => void): Timer {
    const timer = { dueMs: this.nowMs + delayMs, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }
  setQuietTimer(delayMs: number, fn: () => boolean): Timer {
    return this.setTimer(delayMs, () => void fn());
  }
  sleep(): Promise<void> {
    throw new Error("HandClock: sleep is not used by the store");
  }
  every(): Timer {
    throw new Error("HandClock: every is not used by the store");
  }
  /** Moves to `timeMs`, running each timer due by then at its instant, earliest first. */
  advanceTo(timeMs: number): void {
    for (;;) {
      this.timers = this.timers.filter((timer) => !timer.cancelled);
      const due = this.timers.filter((timer) => timer.dueMs <= timeMs).sort((a, b) => a.dueMs - b.dueMs)[0];
      if (due === undefined) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.nowMs = Math.max(this.nowMs, due.dueMs);
      due.fn();
    }
    this.nowMs = timeMs;
  }
}

describe("SQLite backend while an fsync is held", () => {
  let directory: string;
  let backend: SqliteBackend;
  let holding = false;
  let held: (() => void)[] = [];
  let syncs = 0;
  const syncWal: SyncFd = (fd, done) => {
    syncs++;
    if (holding) held.push(() => fsync(fd, done));
    else fsync(fd, done);
  };
  /** Lets every held fsync, and those asked for from now on, run. */
  function release(): void {
    holding = false;
    for (const run of held.splice(0)) run();
  }
  function open(
    options: { historyWindowRevisions?: number; compactionBatchRevisions?: number; clock?: Clock } = {},
  ): void {
    backend = SqliteBackend.open(join(directory, "store.db"), { ...options, syncWal });
  }

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "kvol-sqlite-held-"));
    holding = false;
    held = [];
  });
  afterEach(async () => {
    release();
    await backend.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("compacts history only up to the durable revision", async () => {
    open({ historyWindowRevisions: 5, compactionBatchRevisions: 1 });
    await backend.create("/r/first", object("first"));
    holding = true;
    const writes = Array.from({ length: 40 }, (_, i) => backend.create(`/r/k${i}`, object(`k${i}`)));
    await turn();
    assert.equal(held.length, 1, "the 40 creates wait for one fsync");
    assert.equal(backend.revision(), 1);
    assert.ok(backend.compactedRevision() <= 1, `compacted to ${backend.compactedRevision()}, past revision 1`);
    const seen: number[] = [];
    backend.watch("/r/", 1, (events) => seen.push(...events.map((event) => event.revision)));
    release();
    await Promise.all(writes);
    await turn();
    assert.equal(seen.length, 40, "a watch from the durable revision gets every write after it");
    assert.equal(backend.revision(), 41);
  });

  it("answers a read that arrives while a delete waits for its fsync after it, consistently with the writes", async () => {
    open();
    const a = await backend.create("/r/a", object("a"));
    holding = true;
    const deleted = backend.delete("/r/a", a.modRevision);
    await turn();
    let read = false;
    const seen = backend.get("/r/a").finally(() => {
      read = true;
    });
    const update = backend.update("/r/a", object("a", { v: "x" }), a.modRevision);
    await turn();
    await turn();
    assert.equal(read, false, "the read waits for the delete's fsync");
    release();
    assert.equal(await seen, undefined, "the read sees the delete");
    await assert.rejects(update, BackendConflict);
    assert.equal((await deleted).modRevision, 2);
    assert.equal(await backend.get("/r/a"), undefined);
    assert.deepEqual((await backend.list("/r/")).entries, []);
  });

  it("answers a read that arrives while a create waits for its fsync with that create, as a second create conflicts", async () => {
    open();
    holding = true;
    const created = backend.create("/r/b", object("b"));
    await turn();
    const seen = backend.get("/r/b");
    const listed = backend.list("/r/", undefined, { limit: 1 });
    const again = backend.create("/r/b", object("b"));
    await turn();
    release();
    await assert.rejects(again, BackendConflict);
    assert.equal((await seen)?.modRevision, 1);
    assert.deepEqual(
      (await listed).entries.map((entry) => entry.modRevision),
      [1],
    );
    assert.equal((await created).modRevision, 1);
  });

  it("never answers a read with a write that a close() committed but has not synced yet", async () => {
    open();
    await backend.create("/r/a", object("a"));
    holding = true;
    const create = backend.create("/r/b", object("b"));
    // Submitted in the same turn: the close commits the queued create before the read can look.
    const read = backend.get("/r/b").then(
      (entry) => `read ${entry?.modRevision ?? "nothing"}`,
      (error: Error) => `refused: ${error.message}`,
    );
    const closing = backend.close();
    await turn();
    await turn();
    assert.equal(held.length, 1, "the create waits for its fsync");
    release();
    await closing;
    assert.equal((await create).modRevision, 2, "the create is acknowledged once synced");
    assert.match(await read, /^(read nothing|refused: .*is closed)/);
  });

  it("tells watchers of a write, and counts it in revision(), only once its fsync has returned", async () => {
    open();
    const before = await backend.create("/r/a", object("a", { v: "1" }));
    const seen: number[] = [];
    backend.watch("/r/", before.modRevision, (events) => seen.push(...events.map((event) => event.revision)));
    holding = true;
    const writes = Promise.all([
      backend.update("/r/a", object("a", { v: "2" }), before.modRevision),
      backend.create("/r/c", object("c")),
    ]);
    await turn();
    await turn();
    assert.equal(backend.revision(), 1);
    assert.deepEqual(seen, []);
    release();
    await writes;
    await turn();
    assert.deepEqual(seen, [2, 3]);
    assert.equal(backend.revision(), 3);
  });

  it("fails the writes of a failed fsync, and every later read and write until a restart", async () => {
    backend = SqliteBackend.open(join(directory, "store.db"), {
      syncWal: (_fd, done) => done(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" })),
    });
    await assert.rejects(
      backend.create("/r/a", object("a")),
      /cannot sync .*store\.db-wal to disk: EIO.*; the write may or may not have been stored/,
    );
    await assert.rejects(backend.get("/r/a"), /can no longer be trusted .*restart kvol/);
    await assert.rejects(backend.list("/r/"), /can no longer be trusted .*restart kvol/);
    await assert.rejects(backend.create("/r/b", object("b")), /can no longer be trusted .*restart kvol/);
    await backend.close();
    open();
    // Ambiguous: the failed write's row stayed in the file, synced at open, so it is there now.
    assert.equal((await backend.get("/r/a"))?.modRevision, 1);
  });

  it("fails every later read and write when the fsync of an expired key's removal fails", async () => {
    const clock = new VirtualClock();
    let failing = false;
    backend = SqliteBackend.open(join(directory, "store.db"), {
      clock,
      syncWal: (fd, done) =>
        failing ? done(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" })) : fsync(fd, done),
    });
    await backend.create("/r/event", object("event"), { ttlSeconds: 60 });
    failing = true;
    await clock.advanceBy(61_000);
    await turn();
    await assert.rejects(backend.get("/r/event"), /can no longer be trusted \(cannot sync .*EIO.*restart kvol/);
  });

  it("answers a read that waits while Events keep expiring once its fsync returns, and removes them in one commit after it", async () => {
    const clock = new HandClock();
    open({ clock });
    // Five Events written 10 ms apart, each with a 60 s TTL: they expire 10 ms apart.
    for (let i = 0; i < 5; i++) {
      clock.advanceTo(i * 10);
      await backend.create(`/r/e${i}`, object(`e${i}`), { ttlSeconds: 60 });
    }
    holding = true;
    const syncsBefore = syncs;
    const created = backend.create("/r/w", object("w"));
    await turn();
    assert.equal(held.length, 1, "the create waits for its fsync");
    let answered = false;
    const read = backend.get("/r/w").then((entry) => {
      answered = true;
      return { modRevision: entry?.modRevision, revision: backend.revision() };
    });
    for (let i = 0; i < 5; i++) {
      clock.advanceTo(60_000 + i * 10);
      await turn();
    }
    assert.equal(answered, false, "the read waits for the create's fsync");
    assert.equal(
      syncs - syncsBefore,
      1,
      "the expiries wait behind the held fsync, not committed with fsyncs of their own",
    );
    release();
    assert.deepEqual(await read, { modRevision: 6, revision: 6 }, "answered as of the fsync it waited for");
    assert.equal((await created).modRevision, 6);
    await turn();
    assert.deepEqual(
      (await backend.list("/r/")).entries.map((entry) => entry.key),
      ["/r/w"],
      "every expired Event is gone",
    );
    assert.equal(backend.revision(), 11);
    assert.equal(syncs - syncsBefore, 2, "the five removals shared one commit and one fsync");
  });

  it("applies a write of an Event queued before its TTL ran out first: the Event stays, until its new TTL runs out", async () => {
    const clock = new HandClock();
    open({ clock });
    const first = await backend.create("/r/event", object("event"), { ttlSeconds: 60 });
    holding = true;
    const other = backend.create("/r/other", object("other"));
    await turn();
    clock.advanceTo(59_000);
    const repeat = backend.update("/r/event", object("event", { count: "2" }), first.modRevision, { ttlSeconds: 60 });
    clock.advanceTo(60_000);
    await turn();
    release();
    await other;
    assert.equal((await repeat).modRevision, 3, "the update queued first is applied");
    assert.equal((await backend.get("/r/event"))?.modRevision, 3, "the expiry behind it found the Event written since");
    assert.equal(backend.revision(), 3, "the expiry wrote nothing");
    clock.advanceTo(118_999);
    await turn();
    assert.equal((await backend.get("/r/event"))?.modRevision, 3, "59 s after the update");
    clock.advanceTo(119_000);
    await turn();
    assert.equal(await backend.get("/r/event"), undefined, "60 s after the update");
  });
});
