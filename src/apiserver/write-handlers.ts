/**
 * POST (create, and `pods/<name>/binding`) and PUT (update, and the status subresource). The body
 * is read and checked in full before the store is called, so a refused request stores nothing.
 */
import { badRequest } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import { objectForPath } from "./body-checks.ts";
import { isPlainObject, readBodyObject } from "./request-body.ts";
import type { ResourceRequest } from "./request-context.ts";
import { sendJson } from "./responses.ts";

export async function handleCreate(context: ResourceRequest): Promise<void> {
  const { server, path, request, response } = context;
  const object = objectForPath(path, await readBodyObject(request));
  const created = await server.store.create<KObject>(path.type, object);
  sendJson(response, 201, created);
}

export async function handleUpdate(context: ResourceRequest): Promise<void> {
  const { server, path, request, response } = context;
  const object = objectForPath(path, await readBodyObject(request));
  const options = path.subresource === "status" ? { subresource: "status" as const } : {};
  const updated = await server.store.update<KObject>(path.type, object, options);
  sendJson(response, 200, updated);
}

function stringRecord(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value) || Object.values(value).some((v) => typeof v !== "string")) {
    throw badRequest(`${field} must be a map of strings`);
  }
  return value as Record<string, string>;
}

/** POST `pods/<name>/binding` with a Binding body: `target.name` is the node. Answers a Success Status, as Kubernetes. */
export async function handleBinding(context: ResourceRequest): Promise<void> {
  const { server, path, request, response } = context;
  const body = await readBodyObject(request);
  const target = isPlainObject(body.target) ? body.target : {};
  const nodeName = typeof target.name === "string" ? target.name : "";
  const metadata = isPlainObject(body.metadata) ? body.metadata : {};
  const annotations = stringRecord(metadata.annotations, "metadata.annotations");
  await server.store.bindPod(path.namespace, path.name, nodeName, {
    ...(typeof metadata.uid === "string" ? { uid: metadata.uid } : {}),
    ...(annotations === undefined ? {} : { annotations }),
  });
  sendJson(response, 201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
}
