/**
 * One audit.k8s.io/v1 Event at level Metadata, as kube-apiserver's log backend writes it: who
 * (user, and the impersonated user), what (verb, requestURI, objectRef), the answer's code, and
 * when (received and completed, from the server's Clock, with microseconds).
 */
import type { IncomingMessage } from "node:http";
import { formatRfc3339Micro } from "../../runtime/clock.ts";
import type { RequestAttributes } from "../auth/request-attributes.ts";
import type { UserInfo } from "../auth/user-info.ts";

/** Methods that change something: only these are audited. */
const writeMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function isAuditedWrite(method: string | undefined): boolean {
  return writeMethods.has((method ?? "GET").toUpperCase());
}

export interface AuditedRequest {
  auditId: string;
  request: IncomingMessage;
  attributes: RequestAttributes;
  /** Who sent it (undefined when authentication failed or the server has none). */
  sender: UserInfo | undefined;
  /** Whom it was served as, when that is not the sender (impersonation). */
  impersonated: UserInfo | undefined;
  code: number;
  receivedMs: number;
  completedMs: number;
}

/** Every authenticated user is in this group, as kube-apiserver's authenticators add it. */
const authenticatedGroup = "system:authenticated";

function userInfo(user: UserInfo): Record<string, unknown> {
  const groups = user.groups.includes(authenticatedGroup) ? [...user.groups] : [...user.groups, authenticatedGroup];
  return { username: user.name, ...(user.uid === "" ? {} : { uid: user.uid }), groups };
}

function objectRef(attributes: RequestAttributes, version: string): Record<string, unknown> | undefined {
  if (!attributes.resourceRequest) return undefined;
  return {
    resource: attributes.resource,
    ...(attributes.namespace === "" ? {} : { namespace: attributes.namespace }),
    ...(attributes.name === "" ? {} : { name: attributes.name }),
    ...(attributes.group === "" ? {} : { apiGroup: attributes.group }),
    apiVersion: version,
    ...(attributes.subresource === "" ? {} : { subresource: attributes.subresource }),
  };
}

/** The version segment of a resource URL (`/api/v1/…` → `v1`, `/apis/apps/v1/…` → `v1`). */
function versionOf(path: string): string {
  const segments = path.split("/").filter((segment) => segment !== "");
  return (segments[0] === "api" ? segments[1] : segments[2]) ?? "";
}

function sourceIp(request: IncomingMessage): string {
  return (request.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
}

export function auditEvent(audited: AuditedRequest): Record<string, unknown> {
  const { request, attributes, sender, impersonated } = audited;
  const reference = objectRef(attributes, versionOf(attributes.path));
  const userAgent = request.headers["user-agent"];
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: audited.auditId,
    stage: "ResponseComplete",
    requestURI: request.url ?? "/",
    verb: attributes.verb,
    user: sender === undefined ? {} : userInfo(sender),
    ...(impersonated === undefined ? {} : { impersonatedUser: userInfo(impersonated) }),
    sourceIPs: [sourceIp(request)],
    ...(userAgent === undefined ? {} : { userAgent }),
    ...(reference === undefined ? {} : { objectRef: reference }),
    responseStatus: { metadata: {}, code: audited.code },
    requestReceivedTimestamp: formatRfc3339Micro(audited.receivedMs),
    stageTimestamp: formatRfc3339Micro(audited.completedMs),
  };
}
