/**
 * The fixture of the authentication and node restriction tests: a memory store served with token
 * authentication over TLS (tokens travel over TLS only), a client per user (an administrator, two
 * node agents, a user without a role), and a raw `call` helper for exact status codes and Status
 * bodies, each trusting the server's certificate authority.
 */
import { HttpClient } from "../../api/client/http-client.ts";
import type { KubeStore } from "../../api/store/kube-store.ts";
import { createMemoryStore } from "../../api/store/memory-store.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { fetchTrusting } from "../../testing/fetch-trusting.ts";
import type { AuditSink } from "../audit/audit-log.ts";
import { type RunningApiServer, startApiServer } from "../server.ts";
import { testTls } from "../testing/test-tls.ts";
import type { ServerExtension } from "./access.ts";
import { type Authenticator, StaticTokenAuthenticator } from "./token-authenticator.ts";
import type { TokenEntry } from "./token-file.ts";
import { adminGroup, adminUserName, nodeUser } from "./user-info.ts";

export const adminToken = "admin-token-0123456789";
export const nodeATokenValue = "node-a-token-0123456789";
const nodeBTokenValue = "node-b-token-0123456789";
export const nobodyToken = "nobody-token-0123456789";

const testTokens: readonly TokenEntry[] = [
  { token: adminToken, user: { name: adminUserName, uid: "admin", groups: [adminGroup] } },
  { token: nodeATokenValue, user: nodeUser("node-a") },
  { token: nodeBTokenValue, user: nodeUser("node-b") },
  { token: nobodyToken, user: { name: "nobody", uid: "nobody", groups: [] } },
];

interface RawAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface AuthTestServer {
  store: KubeStore;
  server: RunningApiServer;
  /** The server's `https://` address, and the certificate authority its certificate chains to. */
  secureUrl: string;
  caPem: string;
  logs: MemorySink;
  admin: HttpClient;
  nodeA: HttpClient;
  /** Sends a request with `Authorization: Bearer <token>` (none when token is undefined). */
  call(
    method: string,
    path: string,
    token: string | undefined,
    body?: unknown,
    contentType?: string,
    extraHeaders?: Readonly<Record<string, string>>,
  ): Promise<RawAnswer>;
  close(): Promise<void>;
}

interface AuthTestServerOptions {
  authenticator?: Authenticator;
  extensions?: readonly ServerExtension[];
  /** Served on /metrics. */
  metrics?: Metrics;
  audit?: AuditSink;
  /** A small window makes 410 Gone easy to reach. */
  historyWindowRevisions?: number;
  /** `--insecure-http-tokens`: tokens accepted over plain HTTP too. */
  insecureHttpTokens?: boolean;
}

export async function startAuthTestServer(options: AuthTestServerOptions = {}): Promise<AuthTestServer> {
  const clock = new VirtualClock();
  const store = createMemoryStore({
    clock,
    random: new Rng(1).stream("store"),
    ...(options.historyWindowRevisions === undefined ? {} : { historyWindowRevisions: options.historyWindowRevisions }),
  });
  const logs = new MemorySink();
  const logger = new Logger({ clock, sink: logs, level: "debug" });
  const { tls, caPem } = testTls(new RealClock().now());
  const server = await startApiServer({
    tls,
    ...(options.insecureHttpTokens === true ? { insecureHttpTokens: true } : {}),
    store,
    clock,
    logger,
    port: 0,
    authenticator: options.authenticator ?? new StaticTokenAuthenticator(testTokens),
    ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.audit === undefined ? {} : { audit: options.audit }),
  });
  const secureUrl = server.secureUrl ?? "";
  const trustingFetch = fetchTrusting(caPem);
  const call = async (
    method: string,
    path: string,
    token: string | undefined,
    body?: unknown,
    contentType = "application/json",
    extraHeaders: Readonly<Record<string, string>> = {},
  ): Promise<RawAnswer> => {
    const headers: Record<string, string> = { ...extraHeaders };
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      headers["Content-Type"] = contentType;
    }
    const response = await trustingFetch(`${secureUrl}${path}`, init);
    const text = await response.text();
    return { status: response.status, body: text.startsWith("{") ? JSON.parse(text) : { text } };
  };
  return {
    store,
    server,
    secureUrl,
    caPem,
    logs,
    admin: new HttpClient({ url: secureUrl, bearerToken: adminToken, caPem }),
    nodeA: new HttpClient({ url: secureUrl, bearerToken: nodeATokenValue, caPem }),
    call,
    close: async () => {
      await server.close();
      await store.close();
    },
  };
}
