/**
 * POST (create, and `pods/<name>/binding`) and PUT (update, and the status subresource). The body
 * is read and checked in full before the store is called, so a refused request stores nothing.
 * Creates and updates record their field manager in managedFields; `dryRun=All` answers without
 * storing.
 */
import { conflictRetryMaxAttempts } from "../api/client/retry-on-conflict.ts";
import { badRequest, isConflict } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import { apiVersionOf } from "../api/resources.ts";
import type { UpdateOptions } from "../api/store/store.ts";
import { objectForPath } from "./body-checks.ts";
import { trackUpdate } from "./field-tracking.ts";
import {
  enforceFieldValidation,
  fieldValidationOf,
  pruneUnknownFields,
  strictDecodingProblems,
  undecodableBodyMessage,
} from "./field-validation.ts";
import { fieldManagerFor, isDryRun, type WriteOptionsKind } from "./query-options.ts";
import { type BodyOptions, isPlainObject, readBodyObject, readBodyObjectScanned } from "./request-body.ts";
import type { ResourceRequest } from "./request-context.ts";
import { replyFor, resourceHasProtobuf } from "./responses.ts";

/** How the request's body may come: protobuf for a kind that has that form, typed as the URL's kind. */
function bodyOptionsFor(context: ResourceRequest): BodyOptions {
  const type = context.path.type;
  return { protobuf: resourceHasProtobuf(context), expected: { apiVersion: apiVersionOf(type), kind: type.kind } };
}

/** The body with its unknown fields dropped, refused or warned about as `fieldValidation` says. */
async function readValidatedBody(context: ResourceRequest, kind: WriteOptionsKind): Promise<Record<string, unknown>> {
  const directive = fieldValidationOf(context.query, kind);
  const { object, scan } = await readBodyObjectScanned(context.request, bodyOptionsFor(context));
  const pruned = pruneUnknownFields(context.path.type, object);
  enforceFieldValidation(directive, strictDecodingProblems(pruned.unknown, scan), context.response, (problems) =>
    undecodableBodyMessage(context.path.type, problems),
  );
  return pruned.object;
}

export async function handleCreate(context: ResourceRequest): Promise<void> {
  const { server, path, query, request } = context;
  const reply = replyFor(context);
  const manager = fieldManagerFor(query, request.headers["user-agent"], "CreateOptions");
  const dryRun = isDryRun(query, "CreateOptions");
  const body = await readValidatedBody(context, "CreateOptions");
  const object = trackUpdate(context, undefined, objectForPath(path, body), manager);
  const created = await server.store.create<KObject>(path.type, object, dryRun ? { dryRun } : {});
  reply(201, created);
}

/**
 * PUT. Managed fields are computed against the object read first; an update without a
 * resourceVersion is pinned to that read and redone if someone else wrote in between, so the
 * recorded ownership always describes the change actually stored.
 */
export async function handleUpdate(context: ResourceRequest): Promise<void> {
  const { server, path, query, request } = context;
  const reply = replyFor(context);
  const manager = fieldManagerFor(query, request.headers["user-agent"], "UpdateOptions");
  const options: UpdateOptions = {
    ...(path.subresource === "status" || path.subresource === "finalize" ? { subresource: path.subresource } : {}),
    ...(isDryRun(query, "UpdateOptions") ? { dryRun: true } : {}),
  };
  const object = objectForPath(path, await readValidatedBody(context, "UpdateOptions"));
  const pinned = object.metadata?.resourceVersion;
  for (let attempt = 1; ; attempt++) {
    const live = await server.store.get<KObject>(path.type, path.namespace, path.name);
    const next = trackUpdate(context, live, object, manager);
    const resourceVersion = pinned || live.metadata?.resourceVersion;
    try {
      const updated = await server.store.update<KObject>(
        path.type,
        { ...next, metadata: { ...next.metadata, resourceVersion } },
        options,
      );
      reply(200, updated);
      return;
    } catch (error) {
      if (!isConflict(error) || pinned || attempt >= conflictRetryMaxAttempts) throw error;
    }
  }
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
  const { server, path, request } = context;
  const reply = replyFor(context);
  const body = await readBodyObject(request, { protobuf: true, expected: { apiVersion: "v1", kind: "Binding" } });
  const target = isPlainObject(body.target) ? body.target : {};
  const nodeName = typeof target.name === "string" ? target.name : "";
  const metadata = isPlainObject(body.metadata) ? body.metadata : {};
  const annotations = stringRecord(metadata.annotations, "metadata.annotations");
  await server.store.bindPod(path.namespace, path.name, nodeName, {
    ...(typeof metadata.uid === "string" ? { uid: metadata.uid } : {}),
    ...(annotations === undefined ? {} : { annotations }),
  });
  reply(201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
}
