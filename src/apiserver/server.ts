/**
 * The API server: Kubernetes' REST API over node:http, serving a Store. Discovery, CRUD, patch and
 * watch follow kube-apiserver closely enough that kubectl and client libraries work unchanged.
 *
 *   const server = await startApiServer({ store, clock, logger, port: 0 });
 *   // … server.url is e.g. http://127.0.0.1:41234
 *   await server.close();
 */

import { randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { withAdmission } from "../api/admission/admission-store.ts";
import { ensureSystemNamespaces } from "../api/namespaces.ts";
import type { Store } from "../api/store/store.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Metrics } from "../runtime/metrics.ts";
import { auditEvent, isAuditedWrite } from "./audit/audit-event.ts";
import type { AuditSink } from "./audit/audit-log.ts";
import {
  type AccessOptions,
  authorizeRequest,
  extensionServer,
  type RequestIdentity,
  type ServerExtension,
} from "./auth/access.ts";
import { ServerAuthorizer } from "./auth/authorizer.ts";
import { ensureBootstrapPolicy } from "./auth/bootstrap-policy.ts";
import { RbacAuthorizer } from "./auth/rbac-authorizer.ts";
import { requestAttributes } from "./auth/request-attributes.ts";
import { ServiceAccountTokens } from "./auth/service-account-tokens.ts";
import type { Authenticator } from "./auth/token-authenticator.ts";
import type { ControllerStates } from "./debug-endpoints.ts";
import type { KubeletConnections } from "./kubelet-connection.ts";
import type { ServerContext } from "./request-context.ts";
import { countRequest, requestCounter } from "./request-metrics.ts";
import { asApiError, sendError } from "./responses.ts";
import { route } from "./router.ts";
import { createDualProtocolListener, createHttpListener, type TlsIdentity } from "./tls/dual-protocol-listener.ts";
import { upgradeListener } from "./upgrade-requests.ts";

interface ApiServerOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** 0 picks a free port (read it from `url`). */
  port?: number;
  host?: string;
  /** Bearer tokens required (401 without a known one), node agents held to node restriction; none: open. */
  authenticator?: Authenticator;
  /** Paths served besides the Kubernetes API (kvol's fault endpoint), after authentication. */
  extensions?: readonly ServerExtension[];
  /** Also serve HTTPS on the same port with this certificate (kubectl sends tokens only over TLS). */
  tls?: TlsIdentity;
  /** The clock of watch timeouts when `clock` runs faster than the wall clock (ServerContext). */
  connectionClock?: Clock;
  /** The kubelets `pods/log` is read from (an in-process cluster's own nodes). */
  kubelets?: KubeletConnections;
  /** The controllers running with this server, whose state `/debug/controllers/<name>` shows. */
  controllerStates?: ControllerStates;
  /** Served on `/metrics`, with `apiserver_request_total` added (the cluster's registry). */
  metrics?: Metrics;
  /** Where every write is recorded (`--audit-log-path`); none: no audit log. */
  audit?: AuditSink;
  /** Accept bearer tokens over plain HTTP (`--insecure-http-tokens`); else only over TLS. */
  insecureHttpTokens?: boolean;
}

export interface RunningApiServer {
  /** `http://host:port`, without a trailing slash. */
  readonly url: string;
  /** `https://host:port` when the server has a certificate: the same port, over TLS. */
  readonly secureUrl?: string;
  /** Stops accepting requests and ends open connections, watches included. */
  close(): Promise<void>;
}

async function serve(
  context: ServerContext,
  access: AccessOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (context.metrics !== undefined) countRequest(requestCounter(context.metrics), request, response);
  const identity: RequestIdentity = {};
  if (access.audit !== undefined && isAuditedWrite(request.method))
    auditOnFinish(access.audit, context, identity, request, response);
  try {
    const authorized = await authorizeRequest(access, context, request, identity);
    if (authorized.extension !== undefined) {
      const server = extensionServer(access, context, request);
      await authorized.extension.serve(request, response, authorized.user, { ...server, context: authorized.context });
    } else await route(authorized.context, request, response);
    context.logger.debug("request served", { method: request.method, url: request.url, code: response.statusCode });
  } catch (error) {
    const apiError = asApiError(error);
    if (apiError.code >= 500)
      context.logger.error("request failed", { method: request.method, url: request.url, error: apiError.message });
    else context.logger.debug("request refused", { method: request.method, url: request.url, reason: apiError.reason });
    if (response.headersSent) response.end();
    else sendError(response, apiError, request);
  }
}

/** Records the request in the audit log once its response is complete (or its connection closed). */
function auditOnFinish(
  audit: AuditSink,
  context: ServerContext,
  identity: RequestIdentity,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const receivedMs = context.clock.now();
  const given = request.headers["audit-id"];
  const auditId = typeof given === "string" && given !== "" ? given : randomUUID();
  response.setHeader("Audit-Id", auditId);
  response.once("close", () => {
    const url = new URL(request.url ?? "/", "http://apiserver");
    const impersonated = identity.user !== identity.sender ? identity.user : undefined;
    audit.record(
      auditEvent({
        auditId,
        request,
        attributes: requestAttributes(request.method ?? "GET", url),
        sender: identity.sender,
        impersonated,
        code: response.statusCode,
        receivedMs,
        completedMs: context.clock.now(),
      }),
    );
  });
}

export async function startApiServer(options: ApiServerOptions): Promise<RunningApiServer> {
  // kube-apiserver creates the system namespaces when it starts, and admits every write.
  await ensureSystemNamespaces(options.store);
  // Service account tokens are accepted besides the configured ones.
  const tokens =
    options.authenticator === undefined ? undefined : new ServiceAccountTokens(options.clock, options.authenticator);
  const admitted = withAdmission(options.store);
  // With authentication comes authorization: RBAC's bootstrap roles, and its authorizer beside the node authorizer.
  if (tokens !== undefined) await ensureBootstrapPolicy(admitted);
  const authorizer = new ServerAuthorizer(tokens === undefined ? undefined : new RbacAuthorizer(admitted));
  const context: ServerContext = {
    authorizer,
    ...(tokens === undefined ? {} : { tokens }),
    store: admitted,
    clock: options.clock,
    logger: options.logger,
    ...(options.connectionClock === undefined ? {} : { connectionClock: options.connectionClock }),
    ...(options.kubelets === undefined ? {} : { kubelets: options.kubelets }),
    ...(options.controllerStates === undefined ? {} : { controllerStates: options.controllerStates }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.authenticator?.tokenOf === undefined
      ? {}
      : { kubeletCredential: options.authenticator.tokenOf.bind(options.authenticator) }),
  };
  const access: AccessOptions = {
    ...(tokens === undefined ? {} : { authenticator: tokens }),
    authorizer,
    ...(options.audit === undefined ? {} : { audit: options.audit }),
    ...(options.insecureHttpTokens === true ? { insecureHttpTokens: true } : {}),
    extensions: options.extensions ?? [],
  };
  const handler: RequestListener = (request, response) => {
    void serve(context, access, request, response);
  };
  const onUpgrade = upgradeListener(handler, options.logger);
  const listener =
    options.tls === undefined
      ? createHttpListener(handler, onUpgrade)
      : createDualProtocolListener(handler, options.tls, onUpgrade);
  const host = options.host ?? "127.0.0.1";
  const address = await listener.listen(options.port ?? 0, host);
  // A server on every interface is reached on the loopback address from this machine.
  const urlHost = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  const authority = `${urlHost.includes(":") ? `[${urlHost}]` : urlHost}:${address.port}`;
  const url = `http://${authority}`;
  const secureUrl = options.tls === undefined ? undefined : `https://${authority}`;
  options.logger.info("API server listening", { url, ...(secureUrl === undefined ? {} : { secureUrl }) });
  return { url, ...(secureUrl === undefined ? {} : { secureUrl }), close: () => listener.close() };
}
