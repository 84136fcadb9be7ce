/**
 * Every tunable of the store and its backends, in one place, with its unit in its name.
 */

/**
 * How many revisions of history a backend keeps for `watch` and `list` from an old revision.
 * Older ones are compacted automatically, so memory (or the SQLite revision log) stays bounded;
 * a watch or list from before the window gets 410 Gone and must re-list. Kubernetes' watch cache
 * keeps a few minutes of history; at a few hundred writes per second 10,000 revisions is similar,
 * and at simulation speeds it is ample for an informer to resume after a short disconnect.
 */
export const historyWindowRevisions = 10_000;

/**
 * SQLite compacts its revision log in batches of this many revisions past the window, so the
 * DELETE runs once per batch instead of once per write.
 */
export const sqliteCompactionBatchRevisions = 1_000;

/** How often a watch that asked for bookmarks receives one (Kubernetes' watch cache: about a minute). */
export const watchBookmarkIntervalMs = 60_000;

/** `generateName` appends this many random characters (Kubernetes' `names.SimpleNameGenerator`). */
export const generateNameSuffixLength = 5;

/** Kubernetes' alphabet for generated names: no vowels (no words), no 0/1/3 (no look-alikes). */
export const generateNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

/** Attempts to find an unused generated name before giving up with AlreadyExists (Kubernetes: 8). */
export const generateNameMaxAttempts = 8;

/**
 * Attempts at an unconditional update (no resourceVersion given) or a deletion when a concurrent
 * write keeps moving the object; the store re-reads and retries up to this many times.
 */
export const unconditionalWriteMaxAttempts = 16;

/** A pod deleted without a grace period and without spec.terminationGracePeriodSeconds waits this long. */
export const defaultPodTerminationGracePeriodSeconds = 30;

/**
 * The most writes the SQLite backend commits in one transaction (group-commit.ts); a longer queue
 * of concurrent writes is committed in several, so one commit never holds an unbounded batch.
 */
export const sqliteGroupCommitMaxWrites = 1_000;

/**
 * The SQLite backend keeps at most this many parsed, frozen objects in memory (a few hundred MB
 * at most for typical objects), so gets and lists of unchanged objects skip JSON parsing.
 */
export const sqliteObjectCacheEntries = 200_000;

/**
 * The etcd backend compacts etcd's history this often, to the revision it saw one interval
 * earlier (kube-apiserver's `--etcd-compaction-interval` default: 5 minutes).
 */
export const etcdCompactionIntervalMs = 5 * 60_000;

/** How long the etcd client waits for a connection to an etcd member before giving up on it. */
export const etcdDialTimeoutMs = 30_000;

/**
 * The largest etcd answer the client accepts: kube-apiserver's etcd client takes any size
 * (MaxCallRecvMsgSize = math.MaxInt32), where gRPC's default 4 MiB fails a list of a few
 * thousand pods with RESOURCE_EXHAUSTED.
 */
export const etcdMaxReceiveMessageBytes = 2 ** 31 - 1;

/**
 * How long an Event is kept after its last write: kube-apiserver's `--event-ttl` default (1h0m0s).
 * etcd removes it through a lease of this TTL; the memory and SQLite backends with a Clock timer.
 */
export const defaultEventTtlSeconds = 60 * 60;

/**
 * When the memory or SQLite backend cannot write the removal of an expired key, it tries again
 * this much later (etcd's lessor looks for expired leases every 500 ms).
 */
export const expiryRetryIntervalMs = 500;

/**
 * kube-apiserver's lease manager: a write with a TTL reuses the last etcd lease while it still
 * outlives the TTL, so a burst of Events costs one lease grant, not one each. A lease is granted
 * for the TTL plus a reuse window of this fraction of the TTL, at most
 * `etcdLeaseReuseMaxDurationSeconds` (1 h Events: a 3,660 s lease reused for a minute), and
 * carries at most `etcdLeaseMaxAttachedObjects` keys.
 */
export const etcdLeaseReuseFractionOfTtl = 0.05;
export const etcdLeaseReuseMaxDurationSeconds = 60;
export const etcdLeaseMaxAttachedObjects = 1000;
