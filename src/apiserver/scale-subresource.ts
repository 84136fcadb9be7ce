/**
 * The `scale` subresource of StatefulSets, Deployments and ReplicaSets (autoscaling/v1 Scale), as
 * `kubectl scale` uses it: GET answers the workload's desired and current replicas and its
 * selector as a string; PUT and PATCH (merge, JSON or strategic patch of the Scale) change
 * `spec.replicas` of the workload and nothing else. The Scale's resourceVersion is the workload's,
 * so a Scale read and written back is a precondition as on kube-apiserver.
 */
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { applyMergePatch } from "../api/client/merge-patch.ts";
import { conflictRetryMaxAttempts } from "../api/client/retry-on-conflict.ts";
import { ApiError, type FieldCause, invalid, isConflict } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import { labelSelectorText } from "../api/printers/label-selector-text.ts";
import { negativeMessage } from "../api/validation/field-checks.ts";
import { invalid as invalidField, required } from "../api/validation/field-errors.ts";
import { applyJsonPatch } from "./json-patch.ts";
import { isDryRun } from "./query-options.ts";
import { isPlainObject, mediaType, readBodyObject, readBodyValue } from "./request-body.ts";
import type { ResourceRequest } from "./request-context.ts";
import { sendJson } from "./responses.ts";

type Json = Record<string, unknown>;

const scaleGroup = "autoscaling";
const scaleApiVersion = "autoscaling/v1";
const patchTypes = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
] as const;

function record(value: unknown): Json {
  return isPlainObject(value) ? value : {};
}

/** The selector as a label query string (`app=web`); empty when the workload selects nothing. */
function selectorString(selector: unknown): string {
  if (!isPlainObject(selector)) return "";
  const text = labelSelectorText(selector as LabelSelector);
  return text === "<none>" ? "" : text;
}

function scaleOf(workload: KObject): Json {
  const meta = workload.metadata ?? {};
  const spec = record(workload.spec);
  const status = record(workload.status);
  return {
    kind: "Scale",
    apiVersion: scaleApiVersion,
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: typeof spec.replicas === "number" ? spec.replicas : 0 },
    status: {
      replicas: typeof status.replicas === "number" ? status.replicas : 0,
      selector: selectorString(spec.selector),
    },
  };
}

/** The replicas a Scale asks for, or a 422 naming `spec.replicas`. */
function requestedReplicas(scale: Json, name: string): number {
  const replicas = record(scale.spec).replicas;
  const causes: FieldCause[] = [];
  if (replicas === undefined || replicas === null) causes.push(required("spec.replicas"));
  else if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
    causes.push(invalidField("spec.replicas", replicas, "must be an integer"));
  } else if (replicas < 0) causes.push(invalidField("spec.replicas", replicas, negativeMessage));
  if (causes.length > 0) {
    // Kubernetes names the kind with its group here (`Scale.autoscaling`), details keep them apart.
    const message = invalid(`Scale.${scaleGroup}`, scaleGroup, name, causes).message;
    throw new ApiError("Invalid", message, { name, group: scaleGroup, kind: "Scale", causes });
  }
  return replicas as number;
}

async function writeReplicas(context: ResourceRequest, workload: KObject, scale: Json): Promise<KObject> {
  const { server, path, query } = context;
  const replicas = requestedReplicas(scale, path.name);
  const pinned = record(scale.metadata).resourceVersion;
  const resourceVersion = typeof pinned === "string" && pinned !== "" ? pinned : workload.metadata?.resourceVersion;
  const next = {
    ...workload,
    metadata: { ...workload.metadata, resourceVersion },
    spec: { ...record(workload.spec), replicas },
  };
  return server.store.update<KObject>(path.type, next, isDryRun(query, "UpdateOptions") ? { dryRun: true } : {});
}

type ScaleChange = (current: Json) => Json;

/** Reads the workload, changes its Scale, writes it back; a lost race is redone unless the client pinned a version. */
async function changeScale(context: ResourceRequest, change: ScaleChange): Promise<void> {
  const { server, path } = context;
  for (let attempt = 1; ; attempt++) {
    const workload = await server.store.get<KObject>(path.type, path.namespace, path.name);
    const current = scaleOf(workload);
    const wanted = change(current);
    const pinned = record(wanted.metadata).resourceVersion !== record(current.metadata).resourceVersion;
    try {
      sendJson(context.response, 200, scaleOf(await writeReplicas(context, workload, wanted)));
      return;
    } catch (error) {
      if (!isConflict(error) || pinned || attempt >= conflictRetryMaxAttempts) throw error;
    }
  }
}

function patchChange(type: string, patch: unknown): ScaleChange {
  if (type === "application/json-patch+json") return (current) => applyJsonPatch(current, patch) as Json;
  if (!isPlainObject(patch)) throw new ApiError("BadRequest", "a merge patch must be a JSON object");
  // A Scale has no lists, so a strategic merge patch merges as a JSON merge patch does.
  return (current) => applyMergePatch<Json>(current, patch);
}

export async function handleScale(context: ResourceRequest): Promise<void> {
  const { server, path, request } = context;
  const method = request.method ?? "GET";
  if (method === "GET") {
    sendJson(context.response, 200, scaleOf(await server.store.get<KObject>(path.type, path.namespace, path.name)));
    return;
  }
  if (method === "PUT") {
    const body = await readBodyObject(request, {
      protobuf: true,
      expected: { apiVersion: "autoscaling/v1", kind: "Scale" },
    });
    await changeScale(context, () => body);
    return;
  }
  const type = mediaType(request);
  if (!(patchTypes as readonly string[]).includes(type)) {
    throw new ApiError(
      "UnsupportedMediaType",
      `the body of the request was in an unknown format (${type}) - accepted media types include: ${patchTypes.join(", ")}`,
    );
  }
  const change = patchChange(type, await readBodyValue(request, "application/json"));
  await changeScale(context, change);
}
