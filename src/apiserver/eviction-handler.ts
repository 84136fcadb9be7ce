/**
 * POST `pods/<name>/eviction` with a policy/v1 Eviction (what `kubectl drain` sends): deletes the
 * pod with the Eviction's deleteOptions and answers a Success Status, as kube-apiserver's eviction
 * subresource does. PodDisruptionBudgets are not served by kvol, so none can refuse an eviction.
 * A missing pod is a 404; an Eviction naming another pod than the URL is a 400.
 */
import { badRequest } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import { deleteOptions } from "./query-options.ts";
import { isPlainObject, readBodyObject } from "./request-body.ts";
import type { ResourceRequest } from "./request-context.ts";
import { replyFor } from "./responses.ts";

const evictionType = { apiVersion: "policy/v1", kind: "Eviction" };

export async function handleEviction(context: ResourceRequest): Promise<void> {
  const { server, path, query, request } = context;
  const reply = replyFor(context);
  const eviction = await readBodyObject(request, { protobuf: true, expected: evictionType });
  const metadata = isPlainObject(eviction.metadata) ? eviction.metadata : {};
  if (typeof metadata.name === "string" && metadata.name !== "" && metadata.name !== path.name) {
    throw badRequest("name in URL does not match name in Eviction object");
  }
  const body = isPlainObject(eviction.deleteOptions) ? eviction.deleteOptions : undefined;
  await server.store.delete<KObject>(path.type, path.namespace, path.name, deleteOptions(query, body));
  reply(201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
}
