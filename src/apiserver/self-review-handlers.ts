/**
 * Answers to the self reviews (`self-review-paths.ts`): the request comes back with a `status`,
 * as kube-apiserver answers it, and nothing is stored.
 * - SelfSubjectAccessReview: `status.allowed` from kvol's authorizer (`kubectl auth can-i`).
 * - SelfSubjectRulesReview: the rules the user holds (`kubectl auth can-i --list`).
 * - SelfSubjectReview: the user's name, uid and groups (`kubectl auth whoami`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, invalid } from "../api/errors.ts";
import { required } from "../api/validation/field-errors.ts";
import { allowsAllNonResourceUrls, authorize, rulesOf } from "./auth/authorizer.ts";
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

function accessReviewStatus(user: UserInfo | undefined, spec: Json): Json {
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (isPlainObject(resource)) {
    const decision = authorize(user, {
      verb: text(resource.verb),
      group: text(resource.group),
      resource: text(resource.resource),
      subresource: text(resource.subresource),
      namespace: text(resource.namespace),
      name: text(resource.name),
    });
    return { allowed: decision.allowed, ...(decision.reason === "" ? {} : { reason: decision.reason }) };
  }
  if (isPlainObject(nonResource)) return { allowed: allowsAllNonResourceUrls(user) };
  throw invalid("SelfSubjectAccessReview", "authorization.k8s.io", "", [
    required("spec.resourceAttributes", "exactly one of nonResourceAttributes or resourceAttributes must be specified"),
  ]);
}

function rulesReviewStatus(user: UserInfo | undefined): Json {
  return {
    resourceRules: rulesOf(user).map((rule) => ({ ...rule })),
    nonResourceRules: allowsAllNonResourceUrls(user) ? [{ verbs: ["*"], nonResourceURLs: ["*"] }] : [],
    incomplete: false,
  };
}

function userInfoOf(user: UserInfo | undefined): Json {
  // A server without authentication serves everyone as the administrator.
  const who = user ?? { name: adminUserName, uid: "", groups: ["system:masters"] };
  const groups = who.groups.includes(authenticatedGroup) ? who.groups : [...who.groups, authenticatedGroup];
  return { username: who.name, ...(who.uid === "" ? {} : { uid: who.uid }), groups };
}

function reviewStatus(review: ReviewResource, user: UserInfo | undefined, spec: Json): Json {
  switch (review.kind) {
    case "SelfSubjectAccessReview":
      return accessReviewStatus(user, spec);
    case "SelfSubjectRulesReview":
      return rulesReviewStatus(user);
    default:
      return { userInfo: userInfoOf(user) };
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
  const status = reviewStatus(review, server.user, spec);
  sendJson(response, 201, {
    kind: review.kind,
    apiVersion,
    metadata: { creationTimestamp: null },
    spec,
    status,
  });
}
