/**
 * Who may do what, decided once per request before it is routed: the bearer token names the user
 * (401 without a known one); administrators reach the store as it is, node agents through node
 * restriction (`admission/node-restriction.ts`), and any other user is refused (403). Health
 * checks and `/version` answer without credentials, as kube-apiserver's public-info role allows.
 * Extensions (kvol's own endpoints) receive the authenticated user and decide for themselves.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../../api/errors.ts";
import { NodeRestrictedStore } from "../admission/node-restriction.ts";
import type { ServerContext } from "../request-context.ts";
import { isSelfReviewPath } from "../self-review-paths.ts";
import type { Authenticator } from "./token-authenticator.ts";
import { isAdmin, nodeNameOf, type UserInfo } from "./user-info.ts";

/** An endpoint served next to the Kubernetes API, after authentication. */
export interface ServerExtension {
  /** Served without credentials too (files that hold no cluster data, like the web UI's). */
  readonly public?: boolean;
  handles(pathname: string): boolean;
  /** `user` is undefined only when the server runs without authentication. */
  serve(request: IncomingMessage, response: ServerResponse, user: UserInfo | undefined): Promise<void>;
}

export interface AccessOptions {
  /** Absent: every request is served as an administrator's (tests, a server on a private socket). */
  authenticator?: Authenticator;
  extensions: readonly ServerExtension[];
}

interface AuthorizedRequest {
  user: UserInfo | undefined;
  /** The server context with the store this user may reach. */
  context: ServerContext;
  extension?: ServerExtension;
}

/** Paths anyone may read, with or without credentials (a bad token is still a 401). */
const publicPaths = new Set(["/healthz", "/livez", "/readyz", "/version"]);

const verbForMethod: Readonly<Record<string, string>> = {
  GET: "get",
  HEAD: "get",
  POST: "create",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** The authorizer's refusal of a user who holds no role at all. */
function noRole(user: UserInfo, method: string, pathname: string): ApiError {
  const verb = verbForMethod[method] ?? method.toLowerCase();
  return new ApiError("Forbidden", `forbidden: User "${user.name}" cannot ${verb} path "${pathname}"`);
}

export function authorizeRequest(
  access: AccessOptions,
  context: ServerContext,
  request: IncomingMessage,
): AuthorizedRequest {
  const pathname = new URL(request.url ?? "/", "http://apiserver").pathname;
  const extension = access.extensions.find((candidate) => candidate.handles(pathname));
  const withExtension = extension === undefined ? {} : { extension };
  if (access.authenticator === undefined) return { user: undefined, context, ...withExtension };
  const authorization = request.headers.authorization;
  if (authorization === undefined && publicPaths.has(pathname)) return { user: undefined, context };
  if (authorization === undefined && extension?.public === true) return { user: undefined, context, extension };
  const user = access.authenticator.authenticate(authorization);
  if (extension !== undefined || isAdmin(user)) return { user, context: { ...context, user }, ...withExtension };
  // Every authenticated user may ask who it is and what it may do, as Kubernetes' basic-user role allows.
  if (isSelfReviewPath(pathname)) return { user, context: { ...context, user } };
  const nodeName = nodeNameOf(user);
  if (nodeName === undefined) throw noRole(user, request.method ?? "GET", pathname);
  return { user, context: { ...context, user, store: new NodeRestrictedStore(context.store, nodeName) } };
}
