/**
 * The API server: Kubernetes' REST API over node:http, serving a Store. Discovery, CRUD, patch and
 * watch follow kube-apiserver closely enough that kubectl and client libraries work unchanged.
 *
 *   const server = await startApiServer({ store, clock, logger, port: 0 });
 *   // … server.url is e.g. http://127.0.0.1:41234
 *   await server.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Store } from "../api/store/store.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { ServerContext } from "./request-context.ts";
import { asApiError, sendError } from "./responses.ts";
import { route } from "./router.ts";

export interface ApiServerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** 0 picks a free port (read it from `url`). */
  port?: number;
  host?: string;
}

export interface RunningApiServer {
  /** `http://host:port`, without a trailing slash. */
  readonly url: string;
  /** Stops accepting requests and ends open connections, watches included. */
  close(): Promise<void>;
}

async function serve(context: ServerContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    await route(context, request, response);
    context.logger.debug("request served", { method: request.method, url: request.url, code: response.statusCode });
  } catch (error) {
    const apiError = asApiError(error);
    if (apiError.code >= 500)
      context.logger.error("request failed", { method: request.method, url: request.url, error: apiError.message });
    else context.logger.debug("request refused", { method: request.method, url: request.url, reason: apiError.reason });
    if (response.headersSent) response.end();
    else sendError(response, apiError);
  }
}

export async function startApiServer(options: ApiServerOptions): Promise<RunningApiServer> {
  const context: ServerContext = { store: options.store, clock: options.clock, logger: options.logger };
  const server = createServer((request, response) => {
    void serve(context, request, response);
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  options.logger.info("API server listening", { url });
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
