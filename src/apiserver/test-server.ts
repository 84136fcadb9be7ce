/**
 * The fixture of the API server tests: a memory store on a VirtualClock served on a free port, a
 * raw `call` helper for exact status codes and bodies, and an HttpClient pointed at the server.
 */
import { HttpClient } from "../api/client/http-client.ts";
import type { KubeStore } from "../api/store/kube-store.ts";
import { createMemoryStore } from "../api/store/memory-store.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { Rng } from "../runtime/rng.ts";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import { type RunningApiServer, startApiServer } from "./server.ts";

export interface TestServer {
  clock: VirtualClock;
  store: KubeStore;
  server: RunningApiServer;
  client: HttpClient;
  logs: MemorySink;
  /** Real time for waiting on the network; the server itself runs on the virtual clock. */
  wallClock: RealClock;
  /** Sends a request; `body` is sent as is when a string, as JSON otherwise. */
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<RawAnswer>;
  close(): Promise<void>;
}

interface RawAnswer {
  status: number;
  // Test assertions read arbitrary fields of the answer.
  body: Record<string, unknown> & { items?: Record<string, unknown>[] };
}

interface TestServerOptions {
  seed?: number;
  /** A small window makes 410 Gone easy to reach. */
  historyWindowRevisions?: number;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const clock = new VirtualClock();
  const store = createMemoryStore({
    clock,
    random: new Rng(options.seed ?? 1).stream("store"),
    ...(options.historyWindowRevisions === undefined ? {} : { historyWindowRevisions: options.historyWindowRevisions }),
  });
  const logs = new MemorySink();
  const logger = new Logger({ clock, sink: logs, level: "debug" });
  const server = await startApiServer({ store, clock, logger, port: 0 });
  const call = async (method: string, path: string, body?: unknown, contentType = "application/json") => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "Content-Type": contentType };
    }
    const response = await fetch(`${server.url}${path}`, init);
    const text = await response.text();
    return { status: response.status, body: text.startsWith("{") ? JSON.parse(text) : { text } };
  };
  return {
    clock,
    store,
    server,
    client: new HttpClient({ url: server.url }),
    logs,
    wallClock: new RealClock(),
    call,
    close: async () => {
      await server.close();
      await store.close();
    },
  };
}
