/**
 * GET of one object and of a collection (list), in the representation the client negotiated
 * (table-negotiation.ts): a Table, the objects' metadata only, or the objects, as JSON, YAML or
 * protobuf. A collection GET with
 * `watch=1` is a watch and is served by watch-stream.ts instead.
 */
import type { KObject } from "../api/objects.ts";
import { apiVersionOf } from "../api/resources.ts";
import { metadataOfList, metadataOfObject } from "./partial-metadata.ts";
import { listOptions } from "./query-options.ts";
import type { ResourceRequest } from "./request-context.ts";
import { outputChoice, sendAs } from "./responses.ts";
import { objectsAsTable } from "./table.ts";

export async function handleGet(context: ResourceRequest): Promise<void> {
  const { server, path, response } = context;
  const choice = outputChoice(context);
  const object = await server.store.get<KObject>(path.type, path.namespace, path.name);
  if (choice.table !== undefined) {
    const table = objectsAsTable([object], { kind: path.type.kind, table: choice.table, nowMs: server.clock.now() });
    sendAs(response, 200, table, choice.serializer);
    return;
  }
  const body = choice.metadata === undefined ? object : metadataOfObject(object, choice.metadata, path.type);
  sendAs(response, 200, body, choice.serializer);
}

export async function handleList(context: ResourceRequest): Promise<void> {
  const { server, path, query, response } = context;
  const choice = outputChoice(context);
  const list = await server.store.list<KObject>(path.type, listOptions(query, path.namespace));
  const listMeta = { resourceVersion: list.resourceVersion, ...(list.continue ? { continue: list.continue } : {}) };
  if (choice.table !== undefined) {
    const options = { kind: path.type.kind, table: choice.table, nowMs: server.clock.now(), listMeta };
    sendAs(response, 200, objectsAsTable(list.items, options), choice.serializer);
    return;
  }
  const body =
    choice.metadata === undefined
      ? { kind: `${path.type.kind}List`, apiVersion: apiVersionOf(path.type), metadata: listMeta, items: list.items }
      : metadataOfList(list.items, listMeta, choice.metadata, path.type);
  sendAs(response, 200, body, choice.serializer);
}
