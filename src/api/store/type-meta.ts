/**
 * `kind` and `apiVersion` of a written object: filled in when absent, and a mismatch with the
 * resource written to is refused, as kube-apiserver refuses a body of another type.
 */
import { badRequest } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { apiVersionOf, type ResourceType } from "../resources.ts";

export function checkTypeMeta(type: ResourceType, object: KObject): void {
  const apiVersion = apiVersionOf(type);
  if (object.kind !== undefined && object.kind !== "" && object.kind !== type.kind) {
    throw badRequest(`the kind in the data (${object.kind}) does not match the expected kind (${type.kind})`);
  }
  if (object.apiVersion !== undefined && object.apiVersion !== "" && object.apiVersion !== apiVersion) {
    throw badRequest(
      `the API version in the data (${object.apiVersion}) does not match the expected API version (${apiVersion})`,
    );
  }
}
