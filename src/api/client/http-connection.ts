/**
 * One HTTP exchange with an API server over node:http or node:https through keep-alive Agents:
 * each request reuses an idle connection instead of opening one, and the Agent closes an idle
 * connection before the server's advertised `Keep-Alive: timeout` runs out. A request costs about
 * a third of what it costs through `fetch`, and every controller and node agent on the HTTP path
 * pays it on each call.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { limitConnectTime } from "../../runtime/connect-deadline.ts";

export interface HttpExchange {
  method: string;
  /** The server: `https://host:port` (or `http://`), possibly with a path prefix. */
  server: URL;
  /** Path and query under the server's URL. */
  pathAndQuery: string;
  headers: Record<string, string>;
  payload?: string;
  signal?: AbortSignal;
}

/**
 * A server that neither accepts nor refuses a connection (its host is down) is given up on after
 * this long, so a client with several servers moves on (undici's connect timeout, which `fetch` had).
 */
const connectTimeoutMs = 10_000;

/** Idle connections are reused most recent first, so a quiet period lets the others expire. */
const agentOptions = { keepAlive: true, scheduling: "lifo" } as const;

/** How an `https://` server's certificate is checked. */
export interface ServerTrust {
  /**
   * The certificate authorities (PEM, one or more) the server's certificate must chain to; the
   * system's when absent. The certificate must also name the host of the URL (a DNS name or an IP
   * address in its subjectAltName).
   */
  caPem?: string;
}

/** The connections of one client, kept open between its requests. */
export class HttpAgents {
  private readonly http = new HttpAgent(agentOptions);
  private readonly https: HttpsAgent;

  constructor(trust: ServerTrust = {}) {
    this.https = new HttpsAgent({ ...agentOptions, ...(trust.caPem === undefined ? {} : { ca: trust.caPem }) });
  }

  /** Sends the exchange; resolves with the answer once its headers have arrived, its body unread. */
  async send(exchange: HttpExchange): Promise<IncomingMessage> {
    try {
      return await this.attempt(exchange);
    } catch (error) {
      // An idle connection the server closed just as it was reused: nothing was processed, and a
      // GET can go again on a new connection; another method might have been, so it fails.
      if (!(error instanceof ReusedConnectionReset) || exchange.method !== "GET") throw unwrap(error);
      return await this.attempt(exchange).catch((again: unknown) => {
        throw unwrap(again);
      });
    }
  }

  /** Closes the idle connections (an open watch keeps its own until it stops). */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  private attempt(exchange: HttpExchange): Promise<IncomingMessage> {
    const { server } = exchange;
    const secure = server.protocol === "https:";
    const send = secure ? httpsRequest : httpRequest;
    const headers = { ...exchange.headers };
    if (exchange.payload !== undefined) headers["Content-Length"] = String(Buffer.byteLength(exchange.payload));
    return new Promise((resolve, reject) => {
      const request = send({
        protocol: server.protocol,
        // URL keeps the brackets of an IPv6 address; a socket address has none.
        hostname: server.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: server.port,
        path: `${server.pathname.replace(/\/+$/, "")}${exchange.pathAndQuery}`,
        method: exchange.method,
        headers,
        agent: secure ? this.https : this.http,
        ...(exchange.signal === undefined ? {} : { signal: exchange.signal }),
      });
      request.once("socket", (socket) => limitConnectTime(request, socket, connectTimeoutMs));
      request.once("response", resolve);
      request.once("error", (error: Error & { code?: unknown }) => {
        const reset = error.code === "ECONNRESET" || error.code === "EPIPE";
        reject(reset && request.reusedSocket ? new ReusedConnectionReset(error) : error);
      });
      request.end(exchange.payload);
    });
  }
}

/** A request failed because the reused connection was gone; `send` decides whether to try again. */
class ReusedConnectionReset {
  constructor(readonly error: Error) {}
}

function unwrap(error: unknown): unknown {
  return error instanceof ReusedConnectionReset ? error.error : error;
}

/** The whole body of an answer, as text. */
export async function readBody(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8");
}
