/**
 * The SQLite backend's group commit, seen from its callers: writes that arrive together are each
 * checked against the ones before them, a write that fails (a stale revision, a taken key, a
 * statement the database refuses) fails alone, and the others keep consecutive revisions and
 * reach watchers in commit order.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import type { KObject } from "../objects.ts";
import { BackendConflict, type BackendEvent } from "./backend.ts";
import { SqliteBackend } from "./sqlite-backend.ts";

function object(name: string, data: Record<string, string> = {}): KObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

/** Lets every queued watch delivery happen (deliveries are microtasks). */
async function deliveries(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
}

function outcome(result: PromiseSettledResult<{ modRevision: number }>): string {
  if (result.status === "fulfilled") return `stored at ${result.value.modRevision}`;
  return result.reason instanceof BackendConflict ? "conflict" : `failed: ${(result.reason as Error).message}`;
}

describe("SQLite group commit", () => {
  let directory: string;
  let path: string;
  let backend: SqliteBackend;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "kvol-sqlite-group-"));
    path = join(directory, "store.db");
    backend = SqliteBackend.open(path);
  });
  afterEach(async () => {
    await backend.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("checks each write of a group against the writes before it; a refused one changes nothing", async () => {
    await backend.create("/r/taken", object("taken"));
    const c = await backend.create("/r/c", object("c"));
    const seen: string[] = [];
    backend.watch("/r/", 2, (events: readonly BackendEvent[]) => {
      for (const event of events) seen.push(`${event.revision} ${event.type} ${event.key}`);
    });
    const results = await Promise.allSettled([
      backend.create("/r/a", object("a")),
      backend.create("/r/taken", object("taken again")),
      backend.update("/r/c", object("c", { v: "stale" }), 99),
      backend.update("/r/c", object("c", { v: "2" }), c.modRevision),
      // Read before the group: the update just above has moved /r/c on.
      backend.update("/r/c", object("c", { v: "lost" }), c.modRevision),
      backend.create("/r/d", object("d")),
      backend.delete("/r/d", 5),
    ]);
    assert.deepEqual(results.map(outcome), [
      "stored at 3",
      "conflict",
      "conflict",
      "stored at 4",
      "conflict",
      "stored at 5",
      "stored at 6",
    ]);
    await deliveries();
    assert.deepEqual(seen, ["3 put /r/a", "4 put /r/c", "5 put /r/d", "6 delete /r/d"]);
    assert.equal(backend.revision(), 6);
    assert.deepEqual((await backend.get("/r/c"))?.object.data, { v: "2" });
    assert.equal((await backend.get("/r/taken"))?.object.metadata?.resourceVersion, "1");

    await backend.close();
    backend = SqliteBackend.open(path);
    assert.equal(backend.revision(), 6);
    assert.deepEqual(
      (await backend.list("/r/")).entries.map((entry) => `${entry.key}@${entry.modRevision}`),
      ["/r/a@3", "/r/c@4", "/r/taken@1"],
    );
  });

  it("rolls a write the database refuses back to its savepoint; its neighbours commit", async () => {
    await backend.create("/r/first", object("first"));
    await backend.close();
    // A trigger makes the second statement of one write fail after its first has run.
    const raw = new Database(path);
    raw.exec(`CREATE TRIGGER poison BEFORE INSERT ON revisions WHEN NEW.key = '/r/poison'
              BEGIN SELECT RAISE(ABORT, 'poisoned write'); END`);
    raw.close();
    backend = SqliteBackend.open(path);

    const results = await Promise.allSettled([
      backend.create("/r/before", object("before")),
      backend.create("/r/poison", object("poison")),
      backend.create("/r/after", object("after")),
    ]);
    assert.deepEqual(results.map(outcome), ["stored at 2", "failed: poisoned write", "stored at 3"]);

    await backend.close();
    backend = SqliteBackend.open(path);
    assert.equal(await backend.get("/r/poison"), undefined, "the refused write left no object row");
    assert.deepEqual(
      (await backend.list("/r/")).entries.map((entry) => entry.key),
      ["/r/after", "/r/before", "/r/first"],
    );
    const history: string[] = [];
    backend.watch("/r/", 0, (events) => history.push(...events.map((event) => `${event.revision} ${event.key}`)));
    await deliveries();
    assert.deepEqual(history, ["1 /r/first", "2 /r/before", "3 /r/after"]);
  });

  it("commits the writes submitted before a close", async () => {
    const pending = [backend.create("/r/a", object("a")), backend.create("/r/b", object("b"))];
    await backend.close();
    assert.deepEqual(
      (await Promise.all(pending)).map((entry) => entry.modRevision),
      [1, 2],
    );
    backend = SqliteBackend.open(path);
    assert.equal(backend.revision(), 2);
  });
});
