/**
 * 403 Forbidden Status errors worded as Kubernetes words them, so kubectl users read the same
 * sentences: an admission refusal (`nodes "node-b" is forbidden: node "node-a" is not allowed to
 * modify node "node-b"`) and an authorizer refusal (`persistentvolumes is forbidden: User
 * "system:node:node-a" cannot create resource "persistentvolumes" in API group "" at the cluster scope`).
 */
import { ApiError, qualifiedResource } from "../../api/errors.ts";
import type { ResourceType } from "../../api/resources.ts";

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
