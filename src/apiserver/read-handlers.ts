/**
 * GET of one object and of a collection (list). A collection GET with `watch=1` is a watch and is
 * served by watch-stream.ts instead.
 */
import type { KObject } from "../api/objects.ts";
import { apiVersionOf } from "../api/resources.ts";
import { listOptions } from "./query-options.ts";
import type { ResourceRequest } from "./request-context.ts";
import { sendJson } from "./responses.ts";
import { objectsAsTable } from "./table.ts";
import { tableRequestOf } from "./table-negotiation.ts";

export async function handleGet({ server, path, query, request, response }: ResourceRequest): Promise<void> {
  const table = tableRequestOf(request, query);
  const object = await server.store.get<KObject>(path.type, path.namespace, path.name);
  if (table !== undefined) {
    sendJson(response, 200, objectsAsTable([object], { kind: path.type.kind, table, nowMs: server.clock.now() }));
    return;
  }
  sendJson(response, 200, object);
}

export async function handleList({ server, path, query, request, response }: ResourceRequest): Promise<void> {
  const table = tableRequestOf(request, query);
  const list = await server.store.list<KObject>(path.type, listOptions(query, path.namespace));
  if (table !== undefined) {
    const listMeta = { resourceVersion: list.resourceVersion, ...(list.continue ? { continue: list.continue } : {}) };
    sendJson(
      response,
      200,
      objectsAsTable(list.items, { kind: path.type.kind, table, nowMs: server.clock.now(), listMeta }),
    );
    return;
  }
  sendJson(response, 200, {
    kind: `${path.type.kind}List`,
    apiVersion: apiVersionOf(path.type),
    metadata: { resourceVersion: list.resourceVersion, ...(list.continue ? { continue: list.continue } : {}) },
    items: list.items,
  });
}
