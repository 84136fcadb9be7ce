/**
 * The HTTP path: pod creates through the API server and the HTTP client (server and client in this
 * one process, so both costs count) over TLS, as every kvol client speaks to `kvol up` and `kvol
 * server` (a serving certificate signed by a CA the client verifies against), against creates through the in-process client on the same
 * kind of SQLite store, one at a time and 16 in flight. Each measurement starts from a fresh store
 * file, so both sides pay the same fsync per commit. The four measurements alternate over several
 * rounds and each figure is the median of its rounds, so a change in the machine's load during the
 * run moves both sides of a ratio alike. `KVOL_BENCH_HTTP_CREATES` sets the creates per round.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "../src/api/client/client.ts";
import { HttpClient } from "../src/api/client/http-client.ts";
import { InProcessClient } from "../src/api/client/in-process-client.ts";
import { openSqliteStore } from "../src/api/store/sqlite-store.ts";
import { startApiServer } from "../src/apiserver/server.ts";
import { testTls } from "../src/apiserver/testing/test-tls.ts";
import { Logger, type LogSink } from "../src/runtime/logger.ts";
import { RealClock } from "../src/runtime/real-clock.ts";
import { Rng } from "../src/runtime/rng.ts";
import { benchPod } from "./fixtures.ts";
import { type Row, ratePerSecond } from "./measure.ts";

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const httpCreates = Number(process.env.KVOL_BENCH_HTTP_CREATES ?? 500);
/** Rounds of the four measurements; odd, so the median is one of them. */
const rounds = 3;
/** Requests in flight at once in the concurrent measurements. */
const manyInFlight = 16;

/** The server logs every request at debug level; the benchmark keeps none of it. */
const discard: LogSink = { write: () => undefined };

/** Creates `count` pods with `concurrency` requests in flight at any time. */
async function createPods(client: Client, count: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await client.pods.create(benchPod(next++));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function inProcessRate(path: string, concurrency: number): Promise<number> {
  const store = openSqliteStore({ path, clock: new RealClock(), random: new Rng(1) });
  try {
    const client = new InProcessClient(store);
    return await ratePerSecond(httpCreates, () => createPods(client, httpCreates, concurrency));
  } finally {
    await store.close();
  }
}

async function httpRate(path: string, concurrency: number): Promise<number> {
  const clock = new RealClock();
  const store = openSqliteStore({ path, clock, random: new Rng(1) });
  const logger = new Logger({ clock, sink: discard });
  const { tls, caPem } = testTls(clock.now());
  const server = await startApiServer({ store, clock, logger, port: 0, tls });
  try {
    const client = new HttpClient({ url: server.secureUrl ?? server.url, caPem });
    return await ratePerSecond(httpCreates, () => createPods(client, httpCreates, concurrency));
  } finally {
    await server.close();
    await store.close();
  }
}

function row(measure: string, value: number, baselineName: string, baseline: number): Row {
  return { group: "http", measure, value, unit: "writes/s", baselineName, baseline, better: "higher" };
}

/**
 * Three rows: HTTP one at a time against the in-process store one at a time; 16 in flight against
 * the in-process store's own rate (one at a time, as `sqlite pod creates` measures it); and 16 in
 * flight against the in-process store with 16 in flight too, where group commit helps both sides
 * and the ratio is the HTTP path's own cost.
 */
export async function httpStoreBenchmarks(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "kvol-bench-http-"));
  try {
    const figures: Record<"inProcessOne" | "httpOne" | "inProcessMany" | "httpMany", number[]> = {
      inProcessOne: [],
      httpOne: [],
      inProcessMany: [],
      httpMany: [],
    };
    for (let round = 0; round < rounds; round++) {
      const file = (name: string) => join(dir, `${name}-${round}.db`);
      figures.inProcessOne.push(await inProcessRate(file("in-process-1"), 1));
      figures.httpOne.push(await httpRate(file("http-1"), 1));
      figures.inProcessMany.push(await inProcessRate(file("in-process-many"), manyInFlight));
      figures.httpMany.push(await httpRate(file("http-many"), manyInFlight));
    }
    const inProcessOne = median(figures.inProcessOne);
    const httpOne = median(figures.httpOne);
    const inProcessMany = median(figures.inProcessMany);
    const httpMany = median(figures.httpMany);
    const many = `${manyInFlight} in flight`;
    return [
      row("pod creates over HTTPS, 1 at a time", httpOne, "in-process client, 1 at a time", inProcessOne),
      row(`pod creates over HTTPS, ${many}`, httpMany, "in-process client, 1 at a time", inProcessOne),
      row(`pod creates over HTTPS, ${many}`, httpMany, `in-process client, ${many}`, inProcessMany),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
