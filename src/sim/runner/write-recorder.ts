/**
 * Records the API writes a scenario's `writes to …` conditions count: for each object of the kinds
 * they name, when each write was stored (a new resourceVersion: create, update, delete) and whether
 * it changed the object's status — a controller or kubelet updating status in a loop (a status
 * storm) shows up here as it does in the API server's audit log. It watches through the user's
 * client, so API faults do not hide writes, and keeps times only as far back as the longest window.
 */
import type { Watch } from "../../api/client/client.ts";
import { type KindName, type KObject, objectKey } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import type { WriteCounts, WriteQuery } from "../conditions/write-counts.ts";

interface WriteTimes {
  total: number;
  statusTotal: number;
  /** Clock times of recent writes, oldest first, with whether each changed status. */
  readonly recent: Array<{ readonly timeMs: number; readonly status: boolean }>;
}

interface WriteRecorderOptions {
  readonly kinds: readonly KindName[];
  /** The longest `within` window of the conditions; 0 when they count from the start only. */
  readonly longestWindowMs: number;
}

export class WriteRecorder implements WriteCounts {
  /** `kind|namespace/name` → writes, and `kind|` → the kind's total. */
  private readonly writes = new Map<string, WriteTimes>();
  private readonly lastStatus = new Map<string, string>();
  private readonly keysByKind = new Map<KindName, Set<string>>();
  private watches: Watch[] = [];

  private constructor(
    private readonly cluster: Cluster,
    private readonly options: WriteRecorderOptions,
  ) {}

  /** Starts recording every write stored from now on. */
  static async start(cluster: Cluster, options: WriteRecorderOptions): Promise<WriteRecorder> {
    const recorder = new WriteRecorder(cluster, options);
    const kinds = [...new Set(options.kinds)];
    const lists = await Promise.all(kinds.map((kind) => cluster.client.resource(kind).list()));
    // The status each existing object has now, so its first update is told apart correctly.
    kinds.forEach((kind, index) => {
      for (const object of lists[index]?.items ?? [])
        recorder.lastStatus.set(`${kind}|${objectKey(object)}`, statusOf(object));
    });
    recorder.watches = await Promise.all(
      kinds.map((kind, index) =>
        cluster.client.resource(kind).watch({ resourceVersion: lists[index]?.resourceVersion ?? "0" }, (event) => {
          if (event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED") {
            recorder.record(kind, event.object as KObject, event.type === "MODIFIED");
          }
        }),
      ),
    );
    return recorder;
  }

  stop(): void {
    for (const watch of this.watches) watch.stop();
    this.watches = [];
  }

  count(query: WriteQuery): number {
    const times = this.writes.get(`${query.kind}|${query.key ?? ""}`);
    if (times === undefined) return 0;
    if (query.sinceMs === undefined) return query.status ? times.statusTotal : times.total;
    let count = 0;
    for (let index = times.recent.length - 1; index >= 0; index--) {
      const write = times.recent[index];
      if (write === undefined || write.timeMs < query.sinceMs) break;
      if (!query.status || write.status) count++;
    }
    return count;
  }

  keysOf(kind: KindName): readonly string[] {
    return [...(this.keysByKind.get(kind) ?? [])];
  }

  private record(kind: KindName, object: KObject, modified: boolean): void {
    const key = objectKey(object);
    const status = statusOf(object);
    const statusChanged = modified && this.lastStatus.get(`${kind}|${key}`) !== status;
    this.lastStatus.set(`${kind}|${key}`, status);
    const keys = this.keysByKind.get(kind) ?? new Set<string>();
    keys.add(key);
    this.keysByKind.set(kind, keys);
    const nowMs = this.cluster.clock.now();
    for (const entry of [`${kind}|${key}`, `${kind}|`]) this.add(entry, nowMs, statusChanged);
  }

  private add(entry: string, timeMs: number, status: boolean): void {
    let times = this.writes.get(entry);
    if (times === undefined) {
      times = { total: 0, statusTotal: 0, recent: [] };
      this.writes.set(entry, times);
    }
    times.total++;
    if (status) times.statusTotal++;
    if (this.options.longestWindowMs <= 0) return;
    times.recent.push({ timeMs, status });
    // Older writes can no longer fall in any window: the list stays as long as the longest window.
    const oldestUsefulMs = timeMs - this.options.longestWindowMs;
    let drop = 0;
    while (drop < times.recent.length && (times.recent[drop]?.timeMs ?? timeMs) < oldestUsefulMs) drop++;
    if (drop > 0) times.recent.splice(0, drop);
  }
}

function statusOf(object: object): string {
  return JSON.stringify((object as { readonly status?: unknown }).status ?? null);
}
