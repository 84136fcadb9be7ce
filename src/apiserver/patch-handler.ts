/**
 * PATCH with a JSON merge patch (RFC 7386) or a JSON Patch (RFC 6902), applied to the stored object
 * and written back with its resourceVersion. A concurrent writer makes the write Conflict; then the
 * patch is applied again to the newer object (as kube-apiserver's GuaranteedUpdate does), unless
 * the patch itself set `metadata.resourceVersion`, which makes it a precondition.
 * Strategic merge patch and server-side apply are not served yet (415).
 */

import { applyMergePatch } from "../api/client/merge-patch.ts";
import { conflictRetryMaxAttempts } from "../api/client/retry-on-conflict.ts";
import { ApiError, isConflict } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import { applyJsonPatch } from "./json-patch.ts";
import { isPlainObject, mediaType, readBodyValue } from "./request-body.ts";
import type { ResourceRequest } from "./request-context.ts";
import { sendJson } from "./responses.ts";

export const mergePatchType = "application/merge-patch+json";
export const jsonPatchType = "application/json-patch+json";
const notYetServed = new Set(["application/strategic-merge-patch+json", "application/apply-patch+yaml"]);

type PatchFn = (current: KObject) => KObject;

function patchFunction(type: string, patch: unknown): PatchFn {
  if (type === jsonPatchType) return (current) => applyJsonPatch(current, patch);
  if (!isPlainObject(patch)) throw new ApiError("BadRequest", "a merge patch must be a JSON object");
  return (current) => applyMergePatch<KObject>(current, patch);
}

function checkPatchType(type: string): void {
  if (type === mergePatchType || type === jsonPatchType) return;
  const why = notYetServed.has(type)
    ? `the patch type "${type}" is not supported by this server yet`
    : `the patch type "${type}" is unknown`;
  throw new ApiError("UnsupportedMediaType", `${why}; use ${mergePatchType} or ${jsonPatchType}`);
}

/** Applies the patch to the current object and writes it, re-reading after a lost race; bounded attempts. */
async function patchWithRetry(context: ResourceRequest, patch: PatchFn): Promise<KObject> {
  const { server, path } = context;
  const options = path.subresource === "status" ? { subresource: "status" as const } : {};
  for (let attempt = 1; ; attempt++) {
    const current = await server.store.get<KObject>(path.type, path.namespace, path.name);
    const next = patch(current);
    // A patch that changes resourceVersion pins it: a Conflict then goes back to the client.
    const pinned = next.metadata?.resourceVersion !== current.metadata?.resourceVersion;
    try {
      return await server.store.update<KObject>(path.type, next, options);
    } catch (error) {
      if (!isConflict(error) || pinned || attempt >= conflictRetryMaxAttempts) throw error;
    }
  }
}

export async function handlePatch(context: ResourceRequest): Promise<void> {
  const type = mediaType(context.request);
  checkPatchType(type);
  // The patch body is JSON whatever its media type names.
  const patch = patchFunction(type, await readBodyValue(context.request, "application/json"));
  sendJson(context.response, 200, await patchWithRetry(context, patch));
}
