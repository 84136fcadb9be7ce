/**
 * Store benchmarks: write rate, watch fan-out and memory per stored pod, for the memory and
 * SQLite backends, each beside a baseline of the bare data structure it is built on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { InProcessClient } from "../src/api/client/in-process-client.ts";
import type { KubeStore } from "../src/api/store/kube-store.ts";
import { createMemoryStore } from "../src/api/store/memory-store.ts";
import { openSqliteStore } from "../src/api/store/sqlite-store.ts";
import { RealClock } from "../src/runtime/real-clock.ts";
import { Rng } from "../src/runtime/rng.ts";
import { benchPod } from "./fixtures.ts";
import { type Row, ratePerSecond, retainedBytes } from "./measure.ts";

const memoryWrites = 50_000;
const sqliteWrites = 2_000;
const fanOutWatchers = 100;
const fanOutWrites = 2_000;
const memoryPods = 100_000;

function memoryStore(): KubeStore {
  return createMemoryStore({ clock: new RealClock(), random: new Rng(1), historyWindowRevisions: 1_000 });
}

/** Writes through the typed client every component uses, so its cost is part of the figure. */
async function createPods(store: KubeStore, count: number, offset = 0): Promise<void> {
  const client = new InProcessClient(store);
  for (let i = 0; i < count; i++) await client.pods.create(benchPod(offset + i));
}

async function memoryWriteRows(): Promise<Row[]> {
  const baseline = await ratePerSecond(memoryWrites, () => {
    const map = new Map<string, unknown>();
    for (let i = 0; i < memoryWrites; i++) {
      const pod = benchPod(i);
      map.set(`/registry/pods/default/${pod.metadata?.name}`, Object.freeze(pod));
    }
  });
  const store = memoryStore();
  const value = await ratePerSecond(memoryWrites, () => createPods(store, memoryWrites));
  await store.close();
  return [
    {
      group: "memory",
      measure: "pod creates",
      value,
      unit: "writes/s",
      baselineName: "bare Map.set",
      baseline,
      better: "higher",
    },
  ];
}

async function sqliteWriteRows(dir: string): Promise<Row[]> {
  const raw = new Database(join(dir, "baseline.db"));
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = FULL");
  raw.exec("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  const insert = raw.prepare("INSERT INTO kv (key, value) VALUES (?, ?)");
  const baseline = await ratePerSecond(sqliteWrites, () => {
    for (let i = 0; i < sqliteWrites; i++) insert.run(`/registry/pods/default/web-${i}`, JSON.stringify(benchPod(i)));
  });
  raw.close();
  const store = openSqliteStore({ path: join(dir, "store.db"), clock: new RealClock(), random: new Rng(1) });
  const value = await ratePerSecond(sqliteWrites, () => createPods(store, sqliteWrites));
  await store.close();
  return [
    {
      group: "sqlite",
      measure: "pod creates (synchronous=FULL)",
      value,
      unit: "writes/s",
      baselineName: "bare INSERT loop",
      baseline,
      better: "higher",
    },
  ];
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** Writes with `fanOutWatchers` watchers on pods; counts deliveries per second until all arrive. */
async function fanOutRows(): Promise<Row[]> {
  const deliveries = fanOutWatchers * fanOutWrites;
  const baseline = await ratePerSecond(deliveries, () => {
    let seen = 0;
    const handlers = Array.from({ length: fanOutWatchers }, () => () => {
      seen++;
    });
    for (let i = 0; i < fanOutWrites; i++) {
      const event = { type: "ADDED", object: Object.freeze(benchPod(i)) };
      for (const handler of handlers) handler.call(event);
    }
    if (seen !== deliveries) throw new Error("baseline lost deliveries");
  });
  const store = memoryStore();
  let seen = 0;
  const { promise: done, resolve: allSeen } = deferred();
  const watches = [];
  for (let w = 0; w < fanOutWatchers; w++) {
    watches.push(
      await new InProcessClient(store).pods.watch({ resourceVersion: String(store.revision()) }, () => {
        if (++seen === deliveries) allSeen();
      }),
    );
  }
  const value = await ratePerSecond(deliveries, async () => {
    await createPods(store, fanOutWrites);
    await done;
  });
  for (const watch of watches) watch.stop();
  await store.close();
  return [
    {
      group: "memory",
      measure: `watch fan-out to ${fanOutWatchers} watchers`,
      value,
      unit: "events/s",
      baselineName: "plain callback loop",
      baseline,
      better: "higher",
    },
  ];
}

async function memoryPerPodRows(dir: string): Promise<Row[]> {
  const perPod = (bytes: number) => bytes / memoryPods;
  const baseline = perPod(
    await retainedBytes(() => {
      const map = new Map<string, unknown>();
      for (let i = 0; i < memoryPods; i++) map.set(`web-${i}`, Object.freeze(benchPod(i)));
      return map;
    }),
  );
  const rows: Row[] = [];
  for (const [group, open] of [
    ["memory", () => memoryStore()],
    ["sqlite", () => openSqliteStore({ path: join(dir, "memory.db"), clock: new RealClock(), random: new Rng(1) })],
  ] as const) {
    let store: KubeStore | undefined;
    const bytes = await retainedBytes(async () => {
      store = open();
      await createPods(store, group === "memory" ? memoryPods : memoryPods / 10);
      return store;
    });
    await store?.close();
    const count = group === "memory" ? memoryPods : memoryPods / 10;
    rows.push({
      group,
      measure: `heap per stored pod (${count.toLocaleString("en")} pods)`,
      value: bytes / count,
      unit: "bytes",
      baselineName: "frozen pods in a Map",
      baseline,
      better: "lower",
    });
  }
  return rows;
}

export async function storeBenchmarks(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "kvol-bench-"));
  try {
    return [
      ...(await memoryWriteRows()),
      ...(await fanOutRows()),
      ...(await sqliteWriteRows(dir)),
      ...(await memoryPerPodRows(dir)),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
