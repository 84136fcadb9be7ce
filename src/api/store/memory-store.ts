/**
 * A Store kept in memory: the simulator's store and the test fixture of every component.
 */
import type { Clock } from "../../runtime/clock.ts";
import { KubeStore, type StoreRandom, type Validator } from "./kube-store.ts";
import { MemoryBackend } from "./memory-backend.ts";

interface MemoryStoreOptions {
  clock: Clock;
  /** uids and generated names; pass the run's seeded Rng (or a stream of it). */
  random: StoreRandom;
  /** Revisions of history kept for watches from the past (default `historyWindowRevisions`). */
  historyWindowRevisions?: number;
  validate?: Validator;
  /** How long an Event is kept after its last write (`--event-ttl`); default `defaultEventTtlSeconds`. */
  eventTtlSeconds?: number;
}

export function createMemoryStore(options: MemoryStoreOptions): KubeStore {
  const backend = new MemoryBackend({
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
