/**
 * The etcd KVBackend (`kvol server --etcd-servers`): objects live in etcd under Kubernetes' keys,
 * a resourceVersion is the key's etcd mod revision, and every write is one etcd transaction that
 * compares the mod revision (0 for a create: the key must not exist), so several API servers can
 * share one etcd cluster without locks.
 *
 * Like kube-apiserver's watch cache, each backend keeps one etcd watch on the whole key space
 * (with previous values) and serves its own watches from it, so a watch sees writes made through
 * any API server in revision order. Its own writes are published as soon as etcd acknowledges
 * them when no earlier revision is still missing; the etcd watch fills any gap (a write through
 * another server) and later repeats them, which is skipped. The recent events are kept (the
 * history window) so a watch can start from a past revision; older ones are Gone. etcd's own
 * history is compacted every `etcdCompactionIntervalMs` and on `compact`. A write with a TTL
 * (Events) is attached to an etcd lease (etcd-leases.ts); etcd removes the key when it runs out.
 */
import { Etcd3, type IKeyValue, type IWatchResponse, type Watcher } from "etcd3";
import type { Clock, Timer } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { gone } from "../errors.ts";
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
  etcdCompactionIntervalMs,
  etcdDialTimeoutMs,
  etcdMaxReceiveMessageBytes,
  historyWindowRevisions,
} from "./constants.ts";
import { EtcdHistory } from "./etcd-history.ts";
import { EtcdLeases } from "./etcd-leases.ts";
import { type EtcdTls, etcdTlsHint } from "./etcd-tls.ts";
import { type StorageOperation, storageError } from "./etcd-unavailable.ts";
import { freezeParsed, sealAtRevision, sealUnversioned } from "./frozen.ts";
import { reportHandlerError } from "./handler-errors.ts";
import { tooLargeResourceVersion } from "./revision-checks.ts";
import { WatchHub } from "./watch-hub.ts";

interface EtcdBackendOptions {
  /** Client URLs of the etcd members (`http://127.0.0.1:2379`). */
  endpoints: readonly string[];
  /** Revisions of history kept for watches from the past (default `historyWindowRevisions`). */
  historyWindowRevisions?: number;
  /**
   * When given, etcd's history is compacted every `etcdCompactionIntervalMs` of this clock, and
   * writes with a TTL share leases as kube-apiserver's do (without it each gets its own lease).
   */
  clock?: Clock;
  /** Client TLS (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`) for `https://` endpoints. */
  tls?: EtcdTls;
}

/** etcd's messages for a read below the compacted revision and above the current one. */
const compactedMessage = "required revision has been compacted";
const futureMessage = "required revision is a future revision";

/** etcd's range end for "every key from here on". */
const allKeysEnd = Buffer.from([0]);

function prefixEnd(prefix: string): Buffer {
  const bytes = Buffer.from(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    if ((bytes[i] as number) < 0xff) {
      const end = bytes.subarray(0, i + 1);
      end[i] = (bytes[i] as number) + 1;
      return end;
    }
  }
  return allKeysEnd;
}

function parseAt(value: Buffer, revision: number): KObject {
  const parsed = JSON.parse(value.toString("utf8")) as KObject;
  parsed.metadata = { ...(parsed.metadata ?? {}), resourceVersion: String(revision) };
  return freezeParsed(parsed);
}

function entryOf(kv: IKeyValue): BackendEntry {
  const modRevision = Number(kv.mod_revision);
  return {
    key: kv.key.toString("utf8"),
    object: parseAt(kv.value, modRevision),
    createRevision: Number(kv.create_revision),
    modRevision,
  };
}

/** A put sent to etcd and not yet answered. */
interface InFlightPut {
  value: Buffer;
  /** The frozen object `value` encodes, without a resourceVersion. */
  object: KObject;
}

export class EtcdBackend implements KVBackend {
  readonly kind = "etcd";
  private readonly client: Etcd3;
  private readonly endpoints: string;
  private readonly windowRevisions: number;
  private readonly history: EtcdHistory;
  private readonly hub: WatchHub;
  private readonly leases: EtcdLeases;
  /** Events acknowledged to this backend's writes, waiting for an earlier revision to arrive. */
  private readonly early = new Map<number, BackendEvent[]>();
  /**
   * This backend's puts in flight, by key: the bytes sent and the frozen object they encode. The
   * etcd watch often repeats a write before its acknowledgement arrives; this spares parsing it.
   */
  private readonly inFlight = new Map<string, InFlightPut[]>();
  private watcher: Watcher | undefined;
  private compactionTimer: Timer | undefined;
  /** The revision compacted at the next periodic compaction (seen one interval ago). */
  private nextCompactionRevision = 0;
  /** Every event up to this revision has been published to the watches. */
  private published: number;
  /** The highest revision etcd has reported (>= published). */
  private known: number;
  private caughtUp: { revision: number; resolve: () => void } | undefined;
  private closed = false;

  /** Connects to etcd and loads the history window before returning. */
  static async open(options: EtcdBackendOptions): Promise<EtcdBackend> {
    const windowRevisions = options.historyWindowRevisions ?? historyWindowRevisions;
    if (!Number.isInteger(windowRevisions) || windowRevisions < 1) {
      throw new RangeError(`historyWindowRevisions must be a positive integer, got ${windowRevisions}`);
    }
    if (options.endpoints.length === 0) throw new RangeError("at least one etcd endpoint is needed");
    const client = new Etcd3({
      hosts: [...options.endpoints],
      dialTimeout: etcdDialTimeoutMs,
      grpcOptions: { "grpc.max_receive_message_length": etcdMaxReceiveMessageBytes },
      ...(options.tls === undefined ? {} : { credentials: options.tls.credentials }),
    });
    try {
      const current = Number((await client.kv.range({ key: allKeysEnd, limit: 1 })).header.revision);
      const compacted = await oldestReadableRevision(client, current);
      const start = Math.max(compacted, current - windowRevisions);
      const backend = new EtcdBackend(client, options, windowRevisions, start, current);
      await backend.startWatching(current);
      if (options.clock) backend.startCompacting(options.clock);
      return backend;
    } catch (error) {
      client.close();
      const message = errorMessage(error);
      const hint = etcdTlsHint(message, options.tls);
      throw new Error(
        `cannot use etcd at ${options.endpoints.join(",")}: ${hint === undefined ? "" : `${hint}: `}${message}`,
        {
          cause: error,
        },
      );
    }
  }

  private constructor(
    client: Etcd3,
    options: EtcdBackendOptions,
    windowRevisions: number,
    start: number,
    current: number,
  ) {
    this.client = client;
    this.endpoints = options.endpoints.join(",");
    this.windowRevisions = windowRevisions;
    this.history = new EtcdHistory(start);
    this.hub = new WatchHub(start);
    this.leases = new EtcdLeases(client, options.clock);
    this.published = start;
    this.known = current;
  }

  revision(): number {
    return this.known;
  }

  compactedRevision(): number {
    return this.history.start;
  }

  async get(key: string): Promise<BackendEntry | undefined> {
    this.checkOpen();
    const response = await this.etcd("get", key, () => this.client.kv.range({ key: Buffer.from(key) }));
    this.learn(Number(response.header.revision));
    const kv = response.kvs[0];
    return kv === undefined ? undefined : entryOf(kv);
  }

  async list(prefix: string, atRevision?: number, page: BackendPage = {}): Promise<BackendList> {
    this.checkOpen();
    if (atRevision !== undefined && atRevision < this.history.start) throw gone(atRevision, this.history.start);
    const startKey = page.startKey !== undefined && page.startKey > prefix ? page.startKey : prefix;
    const limit = page.limit !== undefined && page.limit > 0 ? page.limit : undefined;
    try {
      const response = await this.client.kv.range({
        key: Buffer.from(startKey),
        range_end: prefixEnd(prefix),
        ...(atRevision === undefined ? {} : { revision: atRevision }),
        ...(limit === undefined ? {} : { limit }),
      });
      const headerRevision = Number(response.header.revision);
      this.learn(headerRevision);
      return {
        entries: response.kvs.map(entryOf),
        revision: atRevision ?? headerRevision,
        more: response.more,
      };
    } catch (error) {
      throw storageError("list", prefix, this.endpoints, this.readError(error, atRevision));
    }
  }

  async create(key: string, object: KObject, options: BackendWriteOptions = {}): Promise<BackendEntry> {
    this.checkOpen();
    // What is stored in etcd is the object without its resourceVersion (the mod revision is the truth).
    const stripped = sealUnversioned(object);
    const keyBytes = Buffer.from(key);
    const value = Buffer.from(JSON.stringify(stripped));
    const lease = await this.leaseFor("create", key, options);
    // As kube-apiserver: no read on the failure branch; the rare conflict reads the key afterwards.
    const response = await this.tracked(key, { value, object: stripped }, () =>
      this.etcd("create", key, () =>
        this.client.kv.txn({
          compare: [{ key: keyBytes, target: "Mod", result: "Equal", mod_revision: 0 }],
          success: [{ request_put: { key: keyBytes, value, ...lease } }],
        }),
      ),
    );
    if (!response.succeeded) throw new BackendConflict(key, await this.get(key));
    const revision = Number(response.header.revision);
    const sealed = sealAtRevision(stripped, revision);
    this.acknowledge({ type: "put", key, revision, object: sealed, previous: undefined, createRevision: revision });
    return { key, object: sealed, createRevision: revision, modRevision: revision };
  }

  async update(
    key: string,
    object: KObject,
    expectedModRevision: number,
    options: BackendWriteOptions = {},
  ): Promise<BackendEntry> {
    this.checkOpen();
    // What is stored in etcd is the object without its resourceVersion (the mod revision is the truth).
    const stripped = sealUnversioned(object);
    const keyBytes = Buffer.from(key);
    const value = Buffer.from(JSON.stringify(stripped));
    const lease = await this.leaseFor("update", key, options);
    const response = await this.tracked(key, { value, object: stripped }, () =>
      this.etcd("update", key, () =>
        this.client.kv.txn({
          compare: [{ key: keyBytes, target: "Mod", result: "Equal", mod_revision: expectedModRevision }],
          success: [{ request_put: { key: keyBytes, value, prev_kv: true, ...lease } }],
          failure: [{ request_range: { key: keyBytes } }],
        }),
      ),
    );
    // mod_revision 0 matches a missing key; an update needs one that exists.
    const previousKv = response.responses[0]?.response_put?.prev_kv;
    if (!response.succeeded || previousKv === undefined || previousKv === null) {
      throw this.conflict(key, response.responses[0]?.response_range?.kvs[0]);
    }
    const revision = Number(response.header.revision);
    const previous = entryOf(previousKv);
    const sealed = sealAtRevision(stripped, revision);
    this.acknowledge({
      type: "put",
      key,
      revision,
      object: sealed,
      previous: previous.object,
      createRevision: previous.createRevision,
    });
    return { key, object: sealed, createRevision: previous.createRevision, modRevision: revision };
  }

  async delete(key: string, expectedModRevision: number): Promise<BackendEntry> {
    this.checkOpen();
    const keyBytes = Buffer.from(key);
    const response = await this.etcd("delete", key, () =>
      this.client.kv.txn({
        compare: [{ key: keyBytes, target: "Mod", result: "Equal", mod_revision: expectedModRevision }],
        success: [{ request_delete_range: { key: keyBytes, prev_kv: true } }],
        failure: [{ request_range: { key: keyBytes } }],
      }),
    );
    const previousKv = response.responses[0]?.response_delete_range?.prev_kvs[0];
    if (!response.succeeded || previousKv === undefined) {
      throw this.conflict(key, response.responses[0]?.response_range?.kvs[0]);
    }
    const revision = Number(response.header.revision);
    const previous = entryOf(previousKv);
    const sealed = sealAtRevision(previous.object, revision);
    this.acknowledge({
      type: "delete",
      key,
      revision,
      object: sealed,
      previous: previous.object,
      createRevision: previous.createRevision,
    });
    return { ...previous, object: sealed, modRevision: revision };
  }

  watch(
    prefix: string,
    fromRevision: number,
    onEvents: (events: readonly BackendEvent[]) => void,
    options: BackendWatchOptions = {},
  ): BackendWatch {
    this.checkOpen();
    return this.hub.watchFrom(
      { prefix, fromRevision, currentRevision: this.published, compactedRevision: this.history.start },
      () => this.history.after(fromRevision, prefix),
      onEvents,
      options.route,
    );
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    const target = Math.min(revision, this.known);
    if (target <= this.history.start) return;
    try {
      await this.client.kv.compact({ revision: target });
    } catch (error) {
      // Another API server compacted etcd further already: nothing is left to do there.
      if (!errorMessage(error).includes(compactedMessage)) throw error;
    }
    this.history.dropThrough(target);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactionTimer?.cancel();
    this.hub.stopAll();
    await this.watcher?.cancel();
    this.client.close();
  }

  private async startWatching(current: number): Promise<void> {
    const reached = new Promise<void>((resolve) => {
      this.caughtUp = { revision: current, resolve };
    });
    const watcher = await this.client
      .watch()
      .prefix("")
      .startRevision(String(this.history.start + 1))
      .withPreviousKV()
      .create();
    this.watcher = watcher;
    watcher.on("data", (response) => this.receive(response));
    watcher.on("error", (error) => {
      if (!this.closed) reportHandlerError(new Error(`etcd watch at ${this.endpoints} failed: ${error.message}`));
    });
    if (this.published >= current) this.caughtUp = undefined;
    else await reached;
  }

  /** kube-apiserver's compactor: each interval, compact to the revision seen one interval earlier. */
  private startCompacting(clock: Clock): void {
    this.nextCompactionRevision = this.known;
    this.compactionTimer = clock.every(etcdCompactionIntervalMs, async () => {
      const target = this.nextCompactionRevision;
      this.nextCompactionRevision = this.known;
      if (this.closed || target <= this.history.start) return;
      try {
        await this.compact(target);
      } catch (error) {
        reportHandlerError(new Error(`etcd compaction to revision ${target} failed: ${errorMessage(error)}`));
      }
    });
  }

  /** Events from the etcd watch: in revision order, each revision complete. */
  private receive(response: IWatchResponse): void {
    if (this.closed) return;
    this.learn(Number(response.header.revision));
    let batch: BackendEvent[] = [];
    for (const event of response.events) {
      const revision = Number(event.kv.mod_revision);
      if (revision <= this.published) continue;
      if (batch.length > 0 && (batch[0] as BackendEvent).revision !== revision) {
        this.publish(batch);
        batch = [];
      }
      batch.push(
        this.ownEvent(event.type, event.kv, event.prev_kv) ?? this.eventOf(event.type, event.kv, event.prev_kv),
      );
    }
    if (batch.length > 0) this.publish(batch);
    this.drainEarly();
  }

  private eventOf(type: "Put" | "Delete", kv: IKeyValue, previousKv: IKeyValue | undefined | null): BackendEvent {
    const revision = Number(kv.mod_revision);
    const previous = previousKv ? entryOf(previousKv) : undefined;
    const key = kv.key.toString("utf8");
    if (type === "Delete") {
      const object = previous ? sealAtRevision(previous.object, revision) : parseAt(Buffer.from("{}"), revision);
      return {
        type: "delete",
        key,
        revision,
        object,
        previous: previous?.object,
        createRevision: previous?.createRevision ?? 0,
      };
    }
    return {
      type: "put",
      key,
      revision,
      object: parseAt(kv.value, revision),
      previous: previous?.object,
      createRevision: Number(kv.create_revision),
    };
  }

  /**
   * The watch's copy of a write made through this backend, built from what was sent rather than
   * parsed again: the acknowledged event when it is waiting for an earlier revision, else the
   * in-flight put whose bytes are the same.
   */
  private ownEvent(
    type: "Put" | "Delete",
    kv: IKeyValue,
    previousKv: IKeyValue | undefined | null,
  ): BackendEvent | undefined {
    const revision = Number(kv.mod_revision);
    const key = kv.key.toString("utf8");
    const acknowledged = this.early.get(revision)?.[0];
    if (acknowledged !== undefined && acknowledged.key === key && acknowledged.type === type.toLowerCase()) {
      return acknowledged;
    }
    if (type !== "Put") return undefined;
    const sent = this.inFlight.get(key)?.find((put) => put.value.equals(kv.value));
    if (sent === undefined) return undefined;
    return {
      type: "put",
      key,
      revision,
      object: sealAtRevision(sent.object, revision),
      previous: previousKv ? entryOf(previousKv).object : undefined,
      createRevision: Number(kv.create_revision),
    };
  }

  /** Runs a put's etcd call with the put listed as in flight. */
  private async tracked<T>(key: string, put: InFlightPut, call: () => Promise<T>): Promise<T> {
    const puts = this.inFlight.get(key);
    if (puts === undefined) this.inFlight.set(key, [put]);
    else puts.push(put);
    try {
      return await call();
    } finally {
      const remaining = (this.inFlight.get(key) ?? []).filter((other) => other !== put);
      if (remaining.length === 0) this.inFlight.delete(key);
      else this.inFlight.set(key, remaining);
    }
  }

  /** A write of this backend was acknowledged: publish it now unless an earlier revision is missing. */
  private acknowledge(event: BackendEvent): void {
    this.learn(event.revision);
    if (event.revision <= this.published) return;
    this.early.set(event.revision, [event]);
    this.drainEarly();
  }

  private drainEarly(): void {
    for (;;) {
      for (const revision of this.early.keys()) if (revision <= this.published) this.early.delete(revision);
      const next = this.early.get(this.published + 1);
      if (next === undefined) return;
      this.early.delete(this.published + 1);
      this.publish(next);
    }
  }

  private publish(events: BackendEvent[]): void {
    const revision = (events[0] as BackendEvent).revision;
    this.history.append(events);
    for (const event of events) this.hub.publish(event);
    this.published = revision;
    this.learn(revision);
    const windowStart = revision - this.windowRevisions;
    if (windowStart > this.history.start) this.history.dropThrough(windowStart);
    if (this.caughtUp !== undefined && revision >= this.caughtUp.revision) {
      this.caughtUp.resolve();
      this.caughtUp = undefined;
    }
  }

  /** The lease field of a put with a TTL (a put without one detaches the key from any lease). */
  private async leaseFor(
    operation: StorageOperation,
    key: string,
    options: BackendWriteOptions,
  ): Promise<{ lease?: string }> {
    const ttlSeconds = options.ttlSeconds;
    if (ttlSeconds === undefined) return {};
    return { lease: await this.etcd(operation, key, () => this.leases.leaseFor(ttlSeconds)) };
  }

  /** One etcd call; an outage becomes the API's 503 (or 504 for a deadline), naming the operation. */
  private async etcd<T>(operation: StorageOperation, key: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw storageError(operation, key, this.endpoints, error);
    }
  }

  private learn(revision: number): void {
    if (revision > this.known) this.known = revision;
  }

  private conflict(key: string, current: IKeyValue | undefined): BackendConflict {
    return new BackendConflict(key, current === undefined ? undefined : entryOf(current));
  }

  /** etcd's read errors as Kubernetes words them. */
  private readError(error: unknown, atRevision: number | undefined): unknown {
    if (atRevision === undefined) return error;
    const message = errorMessage(error);
    if (message.includes(compactedMessage)) return gone(atRevision, this.history.start);
    if (message.includes(futureMessage)) return tooLargeResourceVersion(atRevision, this.known);
    return error;
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`the etcd store at ${this.endpoints} is closed; no reads or writes are possible`);
  }
}

/**
 * The oldest revision etcd can still read: 1 unless it was compacted, found by bisection (etcd
 * does not report its compaction point outside a failed read).
 */
async function oldestReadableRevision(client: Etcd3, current: number): Promise<number> {
  const readable = async (revision: number): Promise<boolean> => {
    try {
      await client.kv.range({ key: allKeysEnd, limit: 1, revision });
      return true;
    } catch (error) {
      if (errorMessage(error).includes(compactedMessage)) return false;
      throw error;
    }
  };
  let low = 1;
  let high = current;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (await readable(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}
