/**
 * GET of one object and of a collection (list). A collection GET with `watch=1` is a watch and is
 * served by watch-stream.ts instead.
 */
import type { KObject } from "../api/objects.ts";
import { apiVersionOf } from "../api/resources.ts";
import { listOptions } from "./query-options.ts";
import type { ResourceRequest } from "./request-context.ts";
import { sendJson } from "./responses.ts";

export async function handleGet({ server, path, response }: ResourceRequest): Promise<void> {
  const object = await server.store.get<KObject>(path.type, path.namespace, path.name);
  sendJson(response, 200, object);
}

export async function handleList({ server, path, query, response }: ResourceRequest): Promise<void> {
  const list = await server.store.list<KObject>(path.type, listOptions(query, path.namespace));
  sendJson(response, 200, {
    kind: `${path.type.kind}List`,
    apiVersion: apiVersionOf(path.type),
    metadata: { resourceVersion: list.resourceVersion, ...(list.continue ? { continue: list.continue } : {}) },
    items: list.items,
  });
}
