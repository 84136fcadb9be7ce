/** admission.NewForbidden's wording: `<resource> "<name>" is forbidden: <why>` (403). */
import { ApiError, qualifiedResource } from "../errors.ts";
import type { ResourceType } from "../resources.ts";

export function admissionForbidden(type: Pick<ResourceType, "plural" | "group">, name: string, why: string): ApiError {
  const resource = qualifiedResource(type.plural, type.group);
  const subject = name === "" ? resource : `${resource} "${name}"`;
  return new ApiError("Forbidden", `${subject} is forbidden: ${why}`, { name, group: type.group, kind: type.plural });
}
