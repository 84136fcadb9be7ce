/**
 * The HTTP path: pod creates through the API server and the HTTP client over TLS, as every kvol
 * client speaks to `kvol up` and `kvol server` (a serving certificate signed by a CA the client
 * verifies against), against creates through the in-process client on the same kind of SQLite
 * store, one at a time and 16 in flight. Each measurement starts from a fresh store file, so both
 * sides pay the same fsync per commit. The measurements alternate over several rounds and each
 * figure is the median of its rounds, so a change in the machine's load during the run moves both
 * sides of a ratio alike. `KVOL_BENCH_HTTP_CREATES` sets the creates per round.
 *
 * What each side measures:
 * - in-process: the client, the store and its commits in the main thread (there is no transport to
 *   split them over); the store's fsync runs on libuv's thread pool.
 * - HTTPS, same thread: the HTTPS client and the API server with its store in the main thread, so
 *   every cost of both ends (TLS on both sides, request and answer encoding and parsing) is paid
 *   on one core.
 * - HTTPS, client in a worker thread: the API server and its store in the main thread as above; the
 *   HTTPS client (its TLS, encoding and parsing) in a worker thread, as a real client is another
 *   process. The rate is timed in the main thread from the request to start to the last answer.
 *   It can use a second core, which the in-process side does not need and cannot use.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { HttpClient } from "../src/api/client/http-client.ts";
import { InProcessClient } from "../src/api/client/in-process-client.ts";
import { openSqliteStore } from "../src/api/store/sqlite-store.ts";
import { startApiServer } from "../src/apiserver/server.ts";
import { testTls } from "../src/apiserver/testing/test-tls.ts";
import { Logger, type LogSink } from "../src/runtime/logger.ts";
import { RealClock } from "../src/runtime/real-clock.ts";
import { Rng } from "../src/runtime/rng.ts";
import { createPods } from "./http-load.ts";
import type { LoadRequest } from "./http-load-worker.ts";
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

const workerScript = new URL("./http-load-worker.ts", import.meta.url).href;

/** The worker thread that runs the HTTPS client of the separate-thread measurements. */
class LoadWorker {
  // The worker registers the TypeScript loader this thread runs under before loading its script.
  private readonly worker = new Worker(
    `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(workerScript)}); });`,
    { eval: true },
  );
  private readonly ready = this.next();

  /** Runs `request` in the worker; resolves once its last create has been answered. */
  async run(request: LoadRequest): Promise<void> {
    await this.ready;
    const answer = this.next();
    this.worker.postMessage(request);
    await answer;
  }

  stop(): Promise<number> {
    return this.worker.terminate();
  }

  private next(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: { error?: string }) => {
        this.worker.off("error", reject);
        if (message.error === undefined) resolve();
        else reject(new Error(`the benchmark's client thread failed: ${message.error}`));
      };
      this.worker.once("message", onMessage);
      this.worker.once("error", reject);
    });
  }
}

async function inProcessRate(path: string, concurrency: number): Promise<number> {
  const store = openSqliteStore({ path, clock: new RealClock(), random: new Rng(1) });
  try {
    const client = new InProcessClient(store);
    return await ratePerSecond(httpCreates, () => createPods(client, 0, httpCreates, concurrency));
  } finally {
    await store.close();
  }
}

/** The HTTPS rate with the client in this thread, or in `worker` when given. */
async function httpRate(path: string, concurrency: number, worker?: LoadWorker): Promise<number> {
  const clock = new RealClock();
  const store = openSqliteStore({ path, clock, random: new Rng(1) });
  const logger = new Logger({ clock, sink: discard });
  const { tls, caPem } = testTls(clock.now());
  const server = await startApiServer({ store, clock, logger, port: 0, tls });
  try {
    const url = server.secureUrl ?? server.url;
    if (worker !== undefined) {
      return await ratePerSecond(httpCreates, () =>
        worker.run({ url, caPem, first: 0, count: httpCreates, concurrency }),
      );
    }
    const client = new HttpClient({ url, caPem });
    return await ratePerSecond(httpCreates, () => createPods(client, 0, httpCreates, concurrency));
  } finally {
    await server.close();
    await store.close();
  }
}

function row(measure: string, value: number, baselineName: string, baseline: number): Row {
  return { group: "http", measure, value, unit: "writes/s", baselineName, baseline, better: "higher" };
}

/**
 * Five rows: HTTPS one at a time against the in-process store one at a time; 16 in flight against
 * the in-process store's own rate (one at a time, as `sqlite pod creates` measures it); and 16 in
 * flight against the in-process store with 16 in flight too, where group commit helps both sides
 * and the ratio is the HTTP path's own cost; then one at a time and 16 in flight again with the
 * client in a worker thread.
 */
export async function httpStoreBenchmarks(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "kvol-bench-http-"));
  const worker = new LoadWorker();
  try {
    const figures = {
      inProcessOne: [] as number[],
      httpOne: [] as number[],
      threadOne: [] as number[],
      inProcessMany: [] as number[],
      httpMany: [] as number[],
      threadMany: [] as number[],
    };
    for (let round = 0; round < rounds; round++) {
      const file = (name: string) => join(dir, `${name}-${round}.db`);
      figures.inProcessOne.push(await inProcessRate(file("in-process-1"), 1));
      figures.httpOne.push(await httpRate(file("http-1"), 1));
      figures.threadOne.push(await httpRate(file("thread-1"), 1, worker));
      figures.inProcessMany.push(await inProcessRate(file("in-process-many"), manyInFlight));
      figures.httpMany.push(await httpRate(file("http-many"), manyInFlight));
      figures.threadMany.push(await httpRate(file("thread-many"), manyInFlight, worker));
    }
    const inProcessOne = median(figures.inProcessOne);
    const inProcessMany = median(figures.inProcessMany);
    const httpMany = median(figures.httpMany);
    const many = `${manyInFlight} in flight`;
    const inProcessOneName = "in-process client, 1 at a time";
    const inProcessManyName = `in-process client, ${many}`;
    return [
      row("pod creates over HTTPS, 1 at a time", median(figures.httpOne), inProcessOneName, inProcessOne),
      row(`pod creates over HTTPS, ${many}`, httpMany, inProcessOneName, inProcessOne),
      row(`pod creates over HTTPS, ${many}`, httpMany, inProcessManyName, inProcessMany),
      row("HTTPS, client thread, 1 at a time", median(figures.threadOne), inProcessOneName, inProcessOne),
      row(`HTTPS, client thread, ${many}`, median(figures.threadMany), inProcessManyName, inProcessMany),
    ];
  } finally {
    await worker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
