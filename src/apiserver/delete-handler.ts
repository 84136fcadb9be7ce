/**
 * DELETE of one object. Options come from the query (`gracePeriodSeconds`, `propagationPolicy`,
 * `dryRun`) and from an optional DeleteOptions body (kubectl sends one; `preconditions` only come
 * from there), the query winning. Answers the object as it now is: with deletionTimestamp while it
 * waits for finalizers (Foreground and Orphan add the garbage collector's) or its grace period.
 * Preconditions that do not match are a 409 and delete nothing; `dryRun=All` deletes nothing.
 */

import { badRequest } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import { deleteOptions } from "./query-options.ts";
import { isPlainObject, mediaType, readBodyText, readBodyValue } from "./request-body.ts";
import type { ResourceRequest } from "./request-context.ts";
import { replyFor } from "./responses.ts";

/** A DeleteOptions body may be protobuf whatever the resource (client-go encodes it so for built-in kinds). */
const deleteOptionsBody = { protobuf: true, expected: { apiVersion: "meta.k8s.io/v1", kind: "DeleteOptions" } };

async function optionalBody(context: ResourceRequest): Promise<Record<string, unknown> | undefined> {
  const hasBody =
    Number(context.request.headers["content-length"] ?? "0") > 0 || context.request.headers["transfer-encoding"];
  if (!hasBody) {
    await readBodyText(context.request);
    return undefined;
  }
  const value = await readBodyValue(context.request, mediaType(context.request), deleteOptionsBody);
  if (!isPlainObject(value)) throw badRequest("the body of a DELETE must be a DeleteOptions object");
  return value;
}

export async function handleDelete(context: ResourceRequest): Promise<void> {
  const { server, path, query } = context;
  const reply = replyFor(context);
  const options = deleteOptions(query, await optionalBody(context));
  const deleted = await server.store.delete<KObject>(path.type, path.namespace, path.name, options);
  reply(200, deleted);
}
