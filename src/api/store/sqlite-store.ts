/**
 * A Store kept in a SQLite file: `kvol up`'s default, surviving restarts and crashes.
 */
import type { Clock } from "../../runtime/clock.ts";
import { KubeStore, type StoreRandom, type Validator } from "./kube-store.ts";
import { SqliteBackend } from "./sqlite-backend.ts";

interface SqliteStoreOptions {
  /** The store file; created when missing (its directory must exist). */
  path: string;
  clock: Clock;
  random: StoreRandom;
  /** Revisions of history kept for watches from the past (default `historyWindowRevisions`). */
  historyWindowRevisions?: number;
  validate?: Validator;
  /** How long an Event is kept after its last write (`--event-ttl`); default `defaultEventTtlSeconds`. */
  eventTtlSeconds?: number;
}

export function openSqliteStore(options: SqliteStoreOptions): KubeStore {
  const backend = SqliteBackend.open(options.path, {
    clock: options.clock,
    ...(options.historyWindowRevisions === undefined ? {} : { historyWindowRevisions: options.historyWindowRevisions }),
  });
  return new KubeStore({
    backend,
    clock: options.clock,
    random: options.random,
    ...(options.validate ? { validate: options.validate } : {}),
    ...(options.eventTtlSeconds === undefined ? {} : { eventTtlSeconds: options.eventTtlSeconds }),
  });
}
