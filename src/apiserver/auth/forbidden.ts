/**
 * 403 Forbidden Status errors worded as Kubernetes words them, so kubectl users read the same
 * sentences: an admission refusal (`nodes "node-b" is forbidden: node "node-a" is not allowed to
 * modify node "node-b"`) and an authorizer refusal (`persistentvolumes is forbidden: User
 * "system:node:node-a" cannot create resource "persistentvolumes" in API group "" at the cluster scope`).
 */
import { ApiError, qualifiedResource } from "../../api/errors.ts";
import type { ResourceType } from "../../api/resources.ts";
import type { RequestAttributes } from "./request-attributes.ts";

/** The API verb of a request, as authorizers name it. */
export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete";

/** admission.NewForbidden: `<resource> "<name>" is forbidden: <why>` (no name part when there is none). */
export function forbidden(type: Pick<ResourceType, "plural" | "group">, name: string, why: string): ApiError {
  const resource = qualifiedResource(type.plural, type.group);
  const subject = name === "" ? resource : `${resource} "${name}"`;
  return new ApiError("Forbidden", `${subject} is forbidden: ${why}`, { name, group: type.group, kind: type.plural });
}

interface DeniedRequest {
  user: string;
  verb: Verb;
  type: ResourceType;
  /** `status` or `binding` when the request addresses a subresource. */
  subresource?: string;
  namespace: string;
  name: string;
}

/** The authorizer's refusal of a request the user may not make at all. */
export function notAuthorized(request: DeniedRequest): ApiError {
  const { user, verb, type, subresource, namespace, name } = request;
  const resource = subresource === undefined ? type.plural : `${type.plural}/${subresource}`;
  const scope = type.namespaced && namespace !== "" ? `in the namespace "${namespace}"` : "at the cluster scope";
  return forbidden(
    type,
    name,
    `User "${user}" cannot ${verb} resource "${resource}" in API group "${type.group}" ${scope}`,
  );
}

/**
 * An authorizer's refusal of any request, worded as kube-apiserver's forbiddenMessage: by path for
 * a non-resource request, else by verb, resource, group and namespace; the authorizer's reason, if
 * any, after a colon.
 */
export function forbiddenRequest(user: string, request: RequestAttributes, reason: string): ApiError {
  const why = reason === "" ? "" : `: ${reason}`;
  if (!request.resourceRequest) {
    return new ApiError("Forbidden", `forbidden: User "${user}" cannot ${request.verb} path "${request.path}"${why}`);
  }
  const resource = request.subresource === "" ? request.resource : `${request.resource}/${request.subresource}`;
  const scope = request.namespace === "" ? "at the cluster scope" : `in the namespace "${request.namespace}"`;
  return forbidden(
    { plural: request.resource, group: request.group },
    request.name,
    `User "${user}" cannot ${request.verb} resource "${resource}" in API group "${request.group}" ${scope}${why}`,
  );
}
