import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { it } from "node:test";
import { describeBackendConformance } from "./backend-conformance.ts";
import { SqliteBackend } from "./sqlite-backend.ts";

describeBackendConformance(
  "sqlite",
  async (options) => {
    const directory = mkdtempSync(join(tmpdir(), "kvol-sqlite-backend-"));
    const path = join(directory, "store.db");
    // Compact on every write past the window, so the compaction scenario needs few writes.
    const open = (): SqliteBackend => SqliteBackend.open(path, { ...options, compactionBatchRevisions: 1 });
    let backend = open();
    return {
      backend,
      async reopen() {
        await backend.close();
        backend = open();
        return backend;
      },
      async dispose() {
        await backend.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  },
  { persistent: true },
);

it("refuses a second process's worth of access to an open store file", async () => {
  const directory = mkdtempSync(join(tmpdir(), "kvol-sqlite-lock-"));
  const path = join(directory, "store.db");
  const first = SqliteBackend.open(path);
  try {
    await first.create("/r/a", { metadata: { name: "a" } });
    assert.throws(() => SqliteBackend.open(path), /cannot open the kvol store file .*database is locked/);
  } finally {
    await first.close();
    rmSync(directory, { recursive: true, force: true });
  }
});

it("names the file and the problem when it cannot open it", () => {
  assert.throws(
    () => SqliteBackend.open("/nonexistent-dir/kvol/store.db"),
    /cannot open the kvol store file \/nonexistent-dir/,
  );
});

it("syncs a reopened file's WAL, the file and its directory before reading anything from it", async () => {
  const directory = mkdtempSync(join(tmpdir(), "kvol-sqlite-reopen-"));
  const killed = mkdtempSync(join(tmpdir(), "kvol-sqlite-killed-"));
  const first = SqliteBackend.open(join(directory, "store.db"));
  try {
    await first.create("/r/a", { metadata: { name: "a" } });
    // The files as a process killed now leaves them: the commit is in the WAL, not checkpointed.
    for (const name of ["store.db", "store.db-wal"]) copyFileSync(join(directory, name), join(killed, name));
    const synced: string[] = [];
    const reopened = SqliteBackend.open(join(killed, "store.db"), {
      syncPathOnOpen: (path) => synced.push(path === killed ? "directory" : basename(path)),
    });
    try {
      assert.deepEqual(synced, ["store.db-wal", "store.db", "directory"]);
      assert.equal(reopened.revision(), 1, "the write read from the WAL was synced first");
    } finally {
      await reopened.close();
    }
  } finally {
    await first.close();
    rmSync(directory, { recursive: true, force: true });
    rmSync(killed, { recursive: true, force: true });
  }
});
