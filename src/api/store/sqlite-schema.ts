/**
 * The SQLite file behind `kvol up`: its pragmas, tables and statements.
 *
 * Durability: WAL journal, and every commit is fsynced to the WAL before any write of it is
 * acknowledged or visible — by the backend, on libuv's thread pool (sqlite-wal-sync.ts), not by
 * SQLite inside the commit: `synchronous=NORMAL` writes a commit's frames without syncing (and still
 * syncs around checkpoints and when the WAL is rewound), so the event loop is not blocked while the
 * disk works, and the commits made during one fsync share the next. An acknowledged write is as
 * durable as with `synchronous=FULL`: it survives a kill -9 and a power cut or kernel crash — the
 * "node crash" this project exists to reproduce — after which controllers may have acted on it. A
 * commit whose fsync had not returned may be lost by a power cut; it was never acknowledged or shown.
 *
 * A failed fsync makes its writes' errors ambiguous, as etcd's are when a request times out: their
 * rows stay in the file and may or may not be on disk, so after a restart they may be there or not.
 * The client must read again to know. The store cannot tell which either, so it fails every later
 * read and write until kvol is restarted. A restart alone does not make the file trustworthy again:
 * after a failed write-back Linux marks the pages clean while keeping their new contents cached and
 * reports the error only once, so the fsync a restarted kvol does at open (before reading anything,
 * which covers a kill between commit and fsync) can succeed over data that never reached the disk.
 * After a failed fsync, check the disk (and reboot or remount the host) before trusting the file.
 *
 * `locking_mode=EXCLUSIVE` makes the opening process the only reader and writer of the file, which
 * is what lets the backend keep its in-process cache and watch fan-out: a second kvol opening the
 * same file fails with "database is locked" instead of writing behind the first one's back.
 */
import Database from "better-sqlite3";

/** Bumped when the tables change incompatibly; a file of another version is refused, not migrated blindly. */
const sqliteSchemaVersion = 1;

const schema = `
  CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS objects (
    key TEXT PRIMARY KEY,
    create_rev INTEGER NOT NULL,
    mod_rev INTEGER NOT NULL,
    json TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS revisions (
    rev INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('put', 'delete')),
    create_rev INTEGER NOT NULL,
    json TEXT NOT NULL,
    prev_json TEXT
  );
  -- Keys written with a TTL (Events), so a restarted kvol still expires them; added without a
  -- version bump, as a file without it simply has no expiring keys.
  CREATE TABLE IF NOT EXISTS expiries (
    key TEXT PRIMARY KEY,
    mod_rev INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

export interface ObjectRow {
  key: string;
  create_rev: number;
  mod_rev: number;
  json: string;
}

export interface RevisionRow {
  rev: number;
  key: string;
  type: "put" | "delete";
  create_rev: number;
  json: string;
  prev_json: string | null;
}

export interface ExpiryRow {
  key: string;
  mod_rev: number;
  expires_at_ms: number;
}

export interface SqliteStatements {
  getMeta: Database.Statement<[string], { value: number }>;
  setMeta: Database.Statement<[string, number]>;
  getObject: Database.Statement<[string], ObjectRow>;
  /** A key's revision alone: an expiry sweep asks it of every queued Event and needs no JSON. */
  getModRevision: Database.Statement<[string], { mod_rev: number }>;
  rangeObjects: Database.Statement<[string, string, number], ObjectRow>;
  insertObject: Database.Statement<[string, number, number, string]>;
  updateObject: Database.Statement<[number, string, string]>;
  deleteObject: Database.Statement<[string]>;
  insertRevision: Database.Statement<[number, string, string, number, string, string | null]>;
  revisionsAfter: Database.Statement<[number, string, string], RevisionRow>;
  deleteRevisionsUpTo: Database.Statement<[number]>;
  setExpiry: Database.Statement<[string, number, number]>;
  deleteExpiry: Database.Statement<[string]>;
  allExpiries: Database.Statement<[], ExpiryRow>;
}

export function openDatabase(path: string): { db: Database.Database; statements: SqliteStatements } {
  const db = new Database(path);
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(schema);
    checkSchemaVersion(db, path);
    return { db, statements: prepareStatements(db) };
  } catch (error) {
    db.close();
    throw error;
  }
}

function checkSchemaVersion(db: Database.Database, path: string): void {
  const row = db.prepare<[string], { value: number }>("SELECT value FROM meta WHERE name = ?").get("schema_version");
  if (row === undefined) {
    db.prepare("INSERT INTO meta (name, value) VALUES ('schema_version', ?)").run(sqliteSchemaVersion);
  } else if (row.value !== sqliteSchemaVersion) {
    throw new Error(
      `${path} holds kvol store schema version ${row.value}, but this kvol reads version ${sqliteSchemaVersion}; ` +
        "use the kvol release that wrote it, or start from a new file",
    );
  }
}

function prepareStatements(db: Database.Database): SqliteStatements {
  return {
    getMeta: db.prepare("SELECT value FROM meta WHERE name = ?"),
    setMeta: db.prepare("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)"),
    getObject: db.prepare("SELECT key, create_rev, mod_rev, json FROM objects WHERE key = ?"),
    getModRevision: db.prepare("SELECT mod_rev FROM objects WHERE key = ?"),
    rangeObjects: db.prepare(
      "SELECT key, create_rev, mod_rev, json FROM objects WHERE key >= ? AND key < ? ORDER BY key LIMIT ?",
    ),
    insertObject: db.prepare("INSERT INTO objects (key, create_rev, mod_rev, json) VALUES (?, ?, ?, ?)"),
    updateObject: db.prepare("UPDATE objects SET mod_rev = ?, json = ? WHERE key = ?"),
    deleteObject: db.prepare("DELETE FROM objects WHERE key = ?"),
    insertRevision: db.prepare(
      "INSERT INTO revisions (rev, key, type, create_rev, json, prev_json) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    revisionsAfter: db.prepare(
      "SELECT rev, key, type, create_rev, json, prev_json FROM revisions WHERE rev > ? AND key >= ? AND key < ? ORDER BY rev",
    ),
    deleteRevisionsUpTo: db.prepare("DELETE FROM revisions WHERE rev <= ?"),
    setExpiry: db.prepare("INSERT OR REPLACE INTO expiries (key, mod_rev, expires_at_ms) VALUES (?, ?, ?)"),
    deleteExpiry: db.prepare("DELETE FROM expiries WHERE key = ?"),
    allExpiries: db.prepare("SELECT key, mod_rev, expires_at_ms FROM expiries ORDER BY expires_at_ms, key"),
  };
}
