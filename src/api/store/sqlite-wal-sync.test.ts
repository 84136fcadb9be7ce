import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { WalSync } from "./sqlite-wal-sync.ts";

describe("WalSync", () => {
  it("answers every caller once the WAL is synced, and is idle after", async () => {
    const directory = mkdtempSync(join(tmpdir(), "kvol-wal-sync-"));
    try {
      const path = join(directory, "store.db");
      writeFileSync(`${path}-wal`, "frames");
      const sync = new WalSync(path);
      await Promise.all([sync.sync(), sync.sync(), sync.sync()]);
      assert.equal(sync.pending(), false);
      await sync.idle();
      sync.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("fails, naming the file, when the WAL cannot be synced, and keeps failing after", async () => {
    const directory = mkdtempSync(join(tmpdir(), "kvol-wal-sync-"));
    try {
      const sync = new WalSync(join(directory, "store.db"));
      await assert.rejects(sync.sync(), /cannot sync .*store\.db-wal to disk: ENOENT/);
      writeFileSync(join(directory, "store.db-wal"), "frames");
      await assert.rejects(sync.sync(), /cannot sync .*store\.db-wal to disk/, "a failed sync is never forgotten");
      sync.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
