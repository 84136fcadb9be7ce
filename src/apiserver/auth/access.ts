/**
 * Who may do what, decided once per request before it is routed: the bearer token names the user
 * (401 without a known one), `Impersonate-User` may put another in its place (`impersonation.ts`),
 * and the server's authorizers in union (`authorizer.ts`: administrators, node agents, RBAC)
 * decide; a refusal is a 403 worded as Kubernetes words it. Node agents reach the store through
 * node restriction (`admission/node-restriction.ts`), other users through the RBAC escalation
 * check. Health checks and `/version` answer without credentials, as kube-apiserver's public-info
 * role allows. Extensions (kvol's own endpoints) receive the authenticated user and decide for
 * themselves.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeRestrictedStore } from "../admission/node-restriction.ts";
import type { AuditSink } from "../audit/audit-log.ts";
import type { ServerContext } from "../request-context.ts";
import { isSelfReviewPath } from "../self-review-paths.ts";
import type { ServerAuthorizer } from "./authorizer.ts";
import { nodeRulesAllow } from "./authorizer.ts";
import { forbiddenRequest } from "./forbidden.ts";
import { impersonatedUser } from "./impersonation.ts";
import { checkTokenTransport } from "./plain-http-tokens.ts";
import { RbacEscalationStore } from "./rbac-escalation.ts";
import { requestAttributes } from "./request-attributes.ts";
import type { Authenticator } from "./token-authenticator.ts";
import { isAdmin, nodeNameOf, type UserInfo } from "./user-info.ts";

/** What an extension may use of the server it runs in. */
export interface ExtensionServer {
  /** The server's store, clock, kubelets and controllers, as the requesting user. */
  context: ServerContext;
  /**
   * Authorizes `method path` for the requesting user exactly as the server would if the same
   * client (its token, its impersonation headers, its connection) had sent it; resolves with the
   * context to serve it with, or throws the 401 or 403 the server would answer.
   */
  authorizeAs(method: string, path: string): Promise<ServerContext>;
}

/** An endpoint served next to the Kubernetes API, after authentication. */
export interface ServerExtension {
  /** Served without credentials too (files that hold no cluster data, like the web UI's). */
  readonly public?: boolean;
  handles(pathname: string): boolean;
  /** `user` is undefined only when the server runs without authentication. */
  serve(
    request: IncomingMessage,
    response: ServerResponse,
    user: UserInfo | undefined,
    server: ExtensionServer,
  ): Promise<void>;
}

export interface AccessOptions {
  /** Absent: every request is served as an administrator's (tests, a server on a private socket). */
  authenticator?: Authenticator;
  authorizer: ServerAuthorizer;
  /** Accept bearer tokens over plain HTTP (`--insecure-http-tokens`); else only over TLS. */
  insecureHttpTokens?: boolean;
  /** The audit log of writes; none: not audited. */
  audit?: AuditSink;
  extensions: readonly ServerExtension[];
}

interface AuthorizedRequest {
  user: UserInfo | undefined;
  /** The server context with the store this user may reach. */
  context: ServerContext;
  extension?: ServerExtension;
}

/** The server's view of `method path` sent by the same client as `request` (same headers and connection). */
export function extensionServer(
  access: AccessOptions,
  context: ServerContext,
  request: IncomingMessage,
): ExtensionServer {
  return {
    context,
    async authorizeAs(method, path) {
      // A request of its own: the client's headers and socket, another method and path.
      const probe = Object.create(request, {
        method: { value: method },
        url: { value: path },
      }) as IncomingMessage;
      return (await authorizeRequest(access, context, probe)).context;
    },
  };
}

/** Paths anyone may read, with or without credentials (a bad token is still a 401). */
const publicPaths = new Set(["/healthz", "/livez", "/readyz", "/version"]);

/** Who a request came from and is served as, filled in as soon as known (the audit log reads it, refusals included). */
export interface RequestIdentity {
  sender?: UserInfo;
  user?: UserInfo;
}

export async function authorizeRequest(
  access: AccessOptions,
  context: ServerContext,
  request: IncomingMessage,
  identity: RequestIdentity = {},
): Promise<AuthorizedRequest> {
  const url = new URL(request.url ?? "/", "http://apiserver");
  const pathname = url.pathname;
  const extension = access.extensions.find((candidate) => candidate.handles(pathname));
  const withExtension = extension === undefined ? {} : { extension };
  if (access.authenticator === undefined) return { user: undefined, context, ...withExtension };
  const authorization = request.headers.authorization;
  if (authorization === undefined && publicPaths.has(pathname)) return { user: undefined, context };
  if (authorization === undefined && extension?.public === true) return { user: undefined, context, extension };
  checkTokenTransport(request, access.insecureHttpTokens === true);
  const sender = access.authenticator.authenticate(authorization);
  identity.sender = sender;
  const allows = async (who: UserInfo, attributes: ReturnType<typeof requestAttributes>) =>
    (await access.authorizer.authorize(who, attributes)).allowed;
  const user = await impersonatedUser(request, sender, allows);
  identity.user = user;
  if (extension !== undefined || isAdmin(user)) return { user, context: { ...context, user }, ...withExtension };
  // Every authenticated user may ask who it is and what it may do, as Kubernetes' basic-user role allows.
  if (isSelfReviewPath(pathname)) return { user, context: { ...context, user } };
  const attributes = requestAttributes(request.method ?? "GET", url);
  const nodeName = nodeNameOf(user);
  // A node agent's own requests go through node restriction, which refuses in the node authorizer's words.
  if (nodeName !== undefined && (nodeRulesAllow(attributes) || !attributes.resourceRequest)) {
    return { user, context: { ...context, user, store: new NodeRestrictedStore(context.store, nodeName) } };
  }
  const decision = await access.authorizer.authorize(user, attributes);
  if (!decision.allowed) {
    if (nodeName !== undefined) {
      return { user, context: { ...context, user, store: new NodeRestrictedStore(context.store, nodeName) } };
    }
    throw forbiddenRequest(user.name, attributes, decision.reason);
  }
  return {
    user,
    context: { ...context, user, store: new RbacEscalationStore(context.store, user, access.authorizer) },
  };
}
