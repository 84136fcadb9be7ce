/**
 * The API server's side of managed fields: every write through it is recorded under its field
 * manager (an Update entry for create, update and non-apply patches; apply keeps its own), with
 * the kind's schema and the server's clock.
 */
import { applyDefaults } from "../api/defaults/defaults.ts";
import type { KObject } from "../api/objects.ts";
import { type ApplyInput, serverSideApply } from "../api/patch/apply.ts";
import type { PatchSchemaNode } from "../api/patch/patch-schema.ts";
import { recordUpdate } from "../api/patch/record-update.ts";
import type { TrackingScope } from "../api/patch/tracked-fields.ts";
import { apiVersionOf } from "../api/resources.ts";
import { schemaForKind } from "../api/schema/schema.ts";
import { formatRfc3339 } from "../runtime/clock.ts";
import type { ResourceRequest } from "./request-context.ts";

export function schemaOf(context: ResourceRequest): PatchSchemaNode | undefined {
  return schemaForKind(apiVersionOf(context.path.type), context.path.type.kind);
}

function scopeOf(context: ResourceRequest): TrackingScope {
  const { path } = context;
  return path.subresource === "status"
    ? { hasStatus: path.type.hasStatus, subresource: "status" }
    : { hasStatus: path.type.hasStatus };
}

function defaultsOf(context: ResourceRequest): (object: KObject) => KObject {
  return (object) => applyDefaults(context.path.type.kind, object);
}

/**
 * `next` with the writer's Update entry recorded against `live` (undefined for a create). The
 * object is defaulted first, as the store will default it, so a field the client left for the
 * server to fill in is not recorded as a change.
 */
export function trackUpdate(
  context: ResourceRequest,
  live: KObject | undefined,
  next: KObject,
  manager: string,
): KObject {
  return recordUpdate({
    live,
    next: defaultsOf(context)(next),
    manager,
    schema: schemaOf(context),
    apiVersion: apiVersionOf(context.path.type),
    scope: scopeOf(context),
    now: formatRfc3339(context.server.clock.now()),
  });
}

/** The object a server-side apply stores (see api/patch/apply.ts). */
export function trackApply(
  context: ResourceRequest,
  live: KObject | undefined,
  config: KObject,
  options: Pick<ApplyInput, "manager" | "force">,
): KObject {
  return serverSideApply({
    live,
    config,
    ...options,
    defaults: defaultsOf(context),
    schema: schemaOf(context),
    apiVersion: apiVersionOf(context.path.type),
    scope: scopeOf(context),
    now: formatRfc3339(context.server.clock.now()),
  });
}
