/**
 * Answers to the self reviews (`self-review-paths.ts`): the request comes back with a `status`,
 * as kube-apiserver answers it, and nothing is stored.
 * - SelfSubjectAccessReview: `status.allowed` from kvol's authorizers (`kubectl auth can-i`, with
 *   `--as` through impersonation); SubjectAccessReview: the same for the user its spec names.
 * - SelfSubjectRulesReview: the rules the user holds (`kubectl auth can-i --list`).
 * - SelfSubjectReview: the user's name, uid and groups (`kubectl auth whoami`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PolicyRule } from "kubernetes-types/rbac/v1.js";
import { ApiError, invalid } from "../api/errors.ts";
import { invalid as invalidField, required } from "../api/validation/field-errors.ts";
import { ServerAuthorizer } from "./auth/authorizer.ts";
import type { RequestAttributes } from "./auth/request-attributes.ts";
import { adminUserName, type UserInfo } from "./auth/user-info.ts";
import { isPlainObject, readBodyObject } from "./request-body.ts";
import type { ServerContext } from "./request-context.ts";
import { sendJson } from "./responses.ts";
import type { ReviewResource } from "./self-review-paths.ts";

type Json = Record<string, unknown>;

/** Every authenticated user is in this group too, as Kubernetes adds it. */
const authenticatedGroup = "system:authenticated";

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The request a review's spec describes. */
function reviewedRequest(kind: string, spec: Json): RequestAttributes {
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (isPlainObject(resource)) {
    return {
      resourceRequest: true,
      path: "",
      verb: text(resource.verb),
      group: text(resource.group),
      resource: text(resource.resource),
      subresource: text(resource.subresource),
      namespace: text(resource.namespace),
      name: text(resource.name),
    };
  }
  if (isPlainObject(nonResource))
    return { resourceRequest: false, path: text(nonResource.path), verb: text(nonResource.verb) };
  throw invalid(kind, "authorization.k8s.io", "", [
    required("spec.resourceAttributes", "exactly one of nonResourceAttributes or resourceAttributes must be specified"),
  ]);
}

async function accessReviewStatus(authorizer: ServerAuthorizer, user: UserInfo | undefined, kind: string, spec: Json) {
  const decision = await authorizer.authorize(user, reviewedRequest(kind, spec));
  return { allowed: decision.allowed, ...(decision.reason === "" ? {} : { reason: decision.reason }) };
}

/** SubjectAccessReview: the user the spec names (by name and groups), not the sender. */
function subjectOf(spec: Json): UserInfo {
  const name = text(spec.user);
  const groups = texts(spec.groups);
  if (name === "" && groups.length === 0) {
    throw invalid("SubjectAccessReview", "authorization.k8s.io", "", [
      invalidField("spec.user", name, "at least one of user or group must be specified"),
    ]);
  }
  return { name, uid: text(spec.uid), groups };
}

async function rulesReviewStatus(authorizer: ServerAuthorizer, user: UserInfo | undefined, spec: Json): Promise<Json> {
  const { rules, errors } = await authorizer.rulesOf(user, text(spec.namespace));
  const isUrlRule = (rule: PolicyRule) => (rule.nonResourceURLs ?? []).length > 0;
  return {
    resourceRules: rules.filter((rule) => !isUrlRule(rule)).map(({ nonResourceURLs: _, ...rule }) => rule),
    nonResourceRules: rules
      .filter(isUrlRule)
      .map((rule) => ({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs })),
    incomplete: errors.length > 0,
    ...(errors.length === 0 ? {} : { evaluationError: errors.join(", ") }),
  };
}

function userInfoOf(user: UserInfo | undefined): Json {
  // A server without authentication serves everyone as the administrator.
  const who = user ?? { name: adminUserName, uid: "", groups: ["system:masters"] };
  const groups = who.groups.includes(authenticatedGroup) ? who.groups : [...who.groups, authenticatedGroup];
  return { username: who.name, ...(who.uid === "" ? {} : { uid: who.uid }), groups };
}

async function reviewStatus(review: ReviewResource, server: ServerContext, spec: Json): Promise<Json> {
  const authorizer = server.authorizer ?? new ServerAuthorizer();
  switch (review.kind) {
    case "SelfSubjectAccessReview":
      return accessReviewStatus(authorizer, server.user, review.kind, spec);
    case "SubjectAccessReview":
      return accessReviewStatus(authorizer, subjectOf(spec), review.kind, spec);
    case "SelfSubjectRulesReview":
      return rulesReviewStatus(authorizer, server.user, spec);
    default:
      return { userInfo: userInfoOf(server.user) };
  }
}

export async function handleSelfReview(
  review: ReviewResource,
  server: ServerContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method !== "POST") {
    throw new ApiError(
      "MethodNotAllowed",
      `the server does not allow this method on the requested resource (${request.method ?? ""} ${request.url ?? ""})`,
    );
  }
  const apiVersion = `${review.group}/${review.version}`;
  const body = await readBodyObject(request, { protobuf: true, expected: { apiVersion, kind: review.kind } });
  const spec = isPlainObject(body.spec) ? body.spec : {};
  const status = await reviewStatus(review, server, spec);
  sendJson(response, 201, {
    kind: review.kind,
    apiVersion,
    metadata: { creationTimestamp: null },
    spec,
    status,
  });
}
