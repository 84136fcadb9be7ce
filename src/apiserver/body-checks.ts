/**
 * Checks of a request's object against the URL it was sent to, before anything reaches the store:
 * a kind the server does not know, a namespace or name that differs from the URL's. Each is a
 * BadRequest with kube-apiserver's wording. The store itself refuses a kind or apiVersion that
 * does not match the resource.
 */
import { badRequest } from "../api/errors.ts";
import type { KObject, ObjectMeta } from "../api/objects.ts";
import { resourceForKind } from "../api/resources.ts";
import { isPlainObject } from "./request-body.ts";
import type { ResourcePath } from "./request-path.ts";

function checkKnownKind(body: Record<string, unknown>): void {
  const kind = body.kind;
  if (kind === undefined || kind === "") return;
  if (typeof kind !== "string") throw badRequest(`the field "kind" must be a string, not ${JSON.stringify(kind)}`);
  if (resourceForKind(kind) === undefined) {
    throw badRequest(`no kind "${kind}" is registered for version "${String(body.apiVersion ?? "")}"`);
  }
}

function metadataOf(body: Record<string, unknown>): ObjectMeta {
  const metadata = body.metadata;
  if (metadata === undefined || metadata === null) return {};
  if (!isPlainObject(metadata)) throw badRequest('the field "metadata" must be an object');
  return metadata as ObjectMeta;
}

/**
 * The object to hand to the store: the body, with the URL's namespace filled in when the body has
 * none. A body naming another namespace or (for updates) another name than the URL is refused.
 */
export function objectForPath(path: ResourcePath, body: Record<string, unknown>): KObject {
  checkKnownKind(body);
  const metadata = metadataOf(body);
  if (path.type.namespaced && path.namespace !== "") {
    if (metadata.namespace !== undefined && metadata.namespace !== "" && metadata.namespace !== path.namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
  }
  if (path.name !== "" && metadata.name !== undefined && metadata.name !== path.name) {
    throw badRequest(`the name of the object (${metadata.name}) does not match the name on the URL (${path.name})`);
  }
  const filled: ObjectMeta = { ...metadata };
  if (path.type.namespaced && path.namespace !== "" && !filled.namespace) filled.namespace = path.namespace;
  if (path.name !== "" && !filled.name) filled.name = path.name;
  return { ...body, metadata: filled };
}

/**
 * A patched object must still be the object of the URL (kube-apiserver's `checkName` after the
 * patch is applied): a patch cannot rename an object or move it to another namespace.
 */
export function checkPatchedIdentity(path: ResourcePath, patched: KObject): void {
  const name = patched.metadata?.name ?? "";
  if (name !== path.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${path.name})`);
  }
  const namespace = patched.metadata?.namespace ?? "";
  if (path.namespace !== "" && namespace !== "" && namespace !== path.namespace) {
    throw badRequest(
      `the namespace of the object (${namespace}) does not match the namespace on the request (${path.namespace})`,
    );
  }
}
