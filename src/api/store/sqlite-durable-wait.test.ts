/**
 * The SQLite backend while a commit waits for its fsync (held here by hand): what it compacts,
 * and what reads and writes answer meanwhile.
 */
import assert from "node:assert/strict";
import { fsync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { KObject } from "../objects.ts";
import { SqliteBackend } from "./sqlite-backend.ts";
import type { SyncFd } from "./sqlite-wal-sync.ts";

function object(name: string, data: Record<string, string> = {}): KObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

/** One turn of the event loop: the writes submitted so far are committed into the file. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("SQLite backend while an fsync is held", () => {
  let directory: string;
  let backend: SqliteBackend;
  let holding = false;
  let held: (() => void)[] = [];
  const syncWal: SyncFd = (fd, done) => {
    if (holding) held.push(() => fsync(fd, done));
    else fsync(fd, done);
  };
  /** Lets every held fsync, and those asked for from now on, run. */
  function release(): void {
    holding = false;
    for (const run of held.splice(0)) run();
  }
  function open(options: { historyWindowRevisions?: number; compactionBatchRevisions?: number } = {}): void {
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
});
