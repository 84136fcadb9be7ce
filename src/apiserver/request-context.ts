/**
 * What every resource handler receives: the store and clock of the server, and one request's
 * parsed address, query and response.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Store } from "../api/store/store.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Metrics } from "../runtime/metrics.ts";
import type { ServerAuthorizer } from "./auth/authorizer.ts";
import type { ServiceAccountTokens } from "./auth/service-account-tokens.ts";
import type { UserInfo } from "./auth/user-info.ts";
import type { ControllerStates } from "./debug-endpoints.ts";
import type { KubeletConnections } from "./kubelet-connection.ts";
import type { ResourcePath } from "./request-path.ts";

export interface ServerContext {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Decides access reviews (`kubectl auth can-i`); absent: administrators and node agents only. */
  authorizer?: ServerAuthorizer;
  /** Who sent the request; undefined when the server runs without authentication (everyone is an administrator). */
  user?: UserInfo;
  /**
   * Times how long a client's connection (a watch) stays open. The client runs in real time, so
   * when `clock` runs faster than the wall clock (`kvol up --speed`) this is the wall clock;
   * absent, `clock`.
   */
  connectionClock?: Clock;
  /** The kubelets the server can reach (for `pods/log`); none: logs are refused with a message saying why. */
  kubelets?: KubeletConnections;
  /**
   * The token of a user (`system:node:<name>`): the API server presents a node's own token to that
   * node's kubelet. Absent on a server without authentication, which cannot reach remote kubelets.
   */
  kubeletCredential?: (userName: string) => string | undefined;
  /** The controllers' debug states (`/debug/controllers/<name>`); absent: none run with this server. */
  controllerStates?: ControllerStates;
  /** Issues service account tokens (TokenRequest); absent on a server without authentication. */
  tokens?: ServiceAccountTokens;
  /** The metrics served on `/metrics` (the control plane's registry); absent: `/metrics` is not found. */
  metrics?: Metrics;
}

export interface ResourceRequest {
  server: ServerContext;
  path: ResourcePath;
  query: URLSearchParams;
  request: IncomingMessage;
  response: ServerResponse;
}
