/**
 * The client side of the HTTP benchmark's separate-thread measurements (http-store.bench.ts): an
 * HttpClient in a worker thread, as a real client runs in a process of its own. It says "ready"
 * once loaded, then for each request it is sent makes those pod creates against that server with
 * a new client and answers "done" (or the error). One worker serves every measurement, so its code
 * is as warm as the main thread's.
 */
import { parentPort } from "node:worker_threads";
import { HttpClient } from "../src/api/client/http-client.ts";
import { createPods } from "./http-load.ts";

export interface LoadRequest {
  url: string;
  caPem: string;
  first: number;
  count: number;
  concurrency: number;
}

const port = parentPort;
if (port === null) throw new Error("http-load-worker.ts runs as a worker thread of http-store.bench.ts");
port.on("message", (request: LoadRequest) => {
  const client = new HttpClient({ url: request.url, caPem: request.caPem });
  createPods(client, request.first, request.count, request.concurrency).then(
    () => port.postMessage({ done: true }),
    (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) }),
  );
});
port.postMessage({ ready: true });
