/**
 * PATCH in its four types, each applied to the stored object and written back with its
 * resourceVersion:
 * - JSON Patch (RFC 6902), JSON merge patch (RFC 7386);
 * - strategic merge patch, merged by the kind's schema (patch strategies and merge keys), as
 *   `kubectl apply` and `kubectl patch` send it; a kind without a schema refuses it with 415, as
 *   kube-apiserver refuses it for custom resources;
 * - server-side apply (`application/apply-patch+yaml`), which creates the object when it is
 *   absent (201) and needs `fieldManager`; conflicts are 409 unless `force=true`.
 * A concurrent writer makes the write Conflict; then the patch is applied again to the newer
 * object (as kube-apiserver's GuaranteedUpdate does), unless the patch itself set
 * `metadata.resourceVersion`, which makes it a precondition. Every patch records its field
 * manager in managedFields; `dryRun=All` answers without storing. Patch bodies are JSON (YAML
 * for apply) whatever the client negotiates; the answer honours Accept (protobuf for kubectl).
 */

import { applyMergePatch } from "../api/client/merge-patch.ts";
import { conflictRetryMaxAttempts } from "../api/client/retry-on-conflict.ts";
import { ApiError, badRequest, isAlreadyExists, isConflict, isNotFound, notFound } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import { applyStrategicMergePatch } from "../api/patch/strategic-merge-patch.ts";
import type { UpdateOptions } from "../api/store/store.ts";
import { checkPatchedIdentity, objectForPath } from "./body-checks.ts";
import { schemaOf, trackApply, trackUpdate } from "./field-tracking.ts";
import {
  enforceFieldValidation,
  type FieldValidation,
  fieldValidationOf,
  pruneUnknownFields,
  strictDecodingMessage,
  strictDecodingProblems,
} from "./field-validation.ts";
import type { JsonKeyScan } from "./json-key-scan.ts";
import { applyJsonPatch } from "./json-patch.ts";
import { type PatchQuery, patchQuery } from "./query-options.ts";
import { isPlainObject, mediaType, readBodyScanned } from "./request-body.ts";
import type { ResourceRequest } from "./request-context.ts";
import { replyFor } from "./responses.ts";

const mergePatchType = "application/merge-patch+json";
const jsonPatchType = "application/json-patch+json";
const strategicMergePatchType = "application/strategic-merge-patch+json";
const applyPatchType = "application/apply-patch+yaml";

const servedPatchTypes = [jsonPatchType, mergePatchType, strategicMergePatchType, applyPatchType];

type PatchFn = (current: KObject) => KObject;

function unsupportedPatchType(type: string, accepted: readonly string[]): ApiError {
  return new ApiError(
    "UnsupportedMediaType",
    `the body of the request was in an unknown format (${type}) - accepted media types include: ${accepted.join(", ")}`,
  );
}

function requireObjectPatch(patch: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(patch)) throw badRequest(`a ${what} must be a JSON object`);
  return patch;
}

function patchFunction(context: ResourceRequest, type: string, patch: unknown): PatchFn {
  if (type === jsonPatchType) return (current) => applyJsonPatch(current, patch);
  if (type === mergePatchType) {
    const merge = requireObjectPatch(patch, "merge patch");
    return (current) => applyMergePatch<KObject>(current, merge);
  }
  const schema = schemaOf(context);
  if (schema === undefined) {
    throw unsupportedPatchType(type, [jsonPatchType, mergePatchType, applyPatchType]);
  }
  const strategic = requireObjectPatch(patch, "strategic merge patch");
  return (current) => applyStrategicMergePatch(current, strategic, schema) as KObject;
}

function updateOptions(context: ResourceRequest, options: PatchQuery): UpdateOptions {
  return {
    ...(context.path.subresource === "status" ? { subresource: "status" as const } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  };
}

/** Applies the patch to the current object and writes it, re-reading after a lost race; bounded attempts. */
interface BodyValidation {
  directive: FieldValidation;
  scan: JsonKeyScan;
}

/**
 * The patched object without fields its schema does not declare; the patch's unknown and repeated
 * fields are refused or warned about as `fieldValidation` says (the warnings once, however many
 * times a lost race makes the patch apply again).
 */
function withoutUnknownFields(context: ResourceRequest, patched: KObject, validation: BodyValidation): KObject {
  const pruned = pruneUnknownFields(context.path.type, patched);
  const problems = strictDecodingProblems(pruned.unknown, validation.scan);
  enforceFieldValidation(validation.directive, problems, context.response, strictDecodingMessage);
  return pruned.object as KObject;
}

/**
 * An applied configuration must name only declared fields, whatever `fieldValidation` says:
 * server-side apply cannot type anything else (structured-merge-diff's words). Kubernetes answers
 * this with a 500 (kubernetes/kubernetes#122480); kvol answers it as the client's error it is.
 */
function checkAppliedFields(context: ResourceRequest, config: KObject): void {
  const { applyPaths } = pruneUnknownFields(context.path.type, config);
  if (applyPaths.length === 0) return;
  const { type, namespace, name } = context.path;
  const gvk = `${type.group}/${type.version}, Kind=${type.kind}`;
  const errors = applyPaths.map((path) => `${path}: field not declared in schema`);
  const text = errors.length === 1 ? errors[0] : ["errors:", ...errors.map((error) => `  ${error}`)].join("\n");
  throw badRequest(`failed to create typed patch object (${namespace}/${name}; ${gvk}): ${text}`);
}

async function patchWithRetry(
  context: ResourceRequest,
  patch: PatchFn,
  options: PatchQuery,
  validation: BodyValidation,
): Promise<KObject> {
  const { server, path } = context;
  for (let attempt = 1; ; attempt++) {
    const current = await server.store.get<KObject>(path.type, path.namespace, path.name);
    const patched = withoutUnknownFields(context, patch(current), validation);
    checkPatchedIdentity(path, patched);
    // A patch that changes resourceVersion pins it: a Conflict then goes back to the client.
    const pinned = patched.metadata?.resourceVersion !== current.metadata?.resourceVersion;
    const next = trackUpdate(context, current, patched, options.fieldManager);
    try {
      return await server.store.update<KObject>(path.type, next, updateOptions(context, options));
    } catch (error) {
      if (!isConflict(error) || pinned || attempt >= conflictRetryMaxAttempts) throw error;
    }
  }
}

async function currentOrAbsent(context: ResourceRequest): Promise<KObject | undefined> {
  const { server, path } = context;
  try {
    return await server.store.get<KObject>(path.type, path.namespace, path.name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Server-side apply: create when absent, else merge; a lost race (either way) is retried with what is there now. */
async function applyWithRetry(
  context: ResourceRequest,
  config: KObject,
  options: PatchQuery,
): Promise<{ object: KObject; created: boolean }> {
  const { server, path } = context;
  const pinnedVersion = config.metadata?.resourceVersion;
  const applyOptions = { manager: options.fieldManager, force: options.force };
  for (let attempt = 1; ; attempt++) {
    const live = await currentOrAbsent(context);
    if (live === undefined && path.subresource !== undefined)
      throw notFound(path.type.plural, path.type.group, path.name);
    // Computed outside the retry guard: a field manager conflict is the client's to resolve, not a race.
    const next = trackApply(context, live, config, applyOptions);
    try {
      if (live === undefined) {
        const created = await server.store.create(path.type, next, options.dryRun ? { dryRun: true } : {});
        return { object: created, created: true };
      }
      const resourceVersion = pinnedVersion ?? live.metadata?.resourceVersion;
      const pinnedNext = { ...next, metadata: { ...next.metadata, resourceVersion } };
      return {
        object: await server.store.update(path.type, pinnedNext, updateOptions(context, options)),
        created: false,
      };
    } catch (error) {
      const lostRace = isConflict(error) || isAlreadyExists(error);
      if (!lostRace || pinnedVersion !== undefined || attempt >= conflictRetryMaxAttempts) throw error;
    }
  }
}

function appliedConfiguration(context: ResourceRequest, body: unknown): KObject {
  const config = requireObjectPatch(body, "server-side apply configuration");
  const type = context.path.type;
  const expectedVersion = type.group === "" ? type.version : `${type.group}/${type.version}`;
  if (config.apiVersion !== expectedVersion || config.kind !== type.kind) {
    throw badRequest(
      `the applied configuration is ${JSON.stringify(config.apiVersion ?? "")}/${JSON.stringify(config.kind ?? "")}, but this URL serves apiVersion "${expectedVersion}", kind "${type.kind}"; set apiVersion and kind to match`,
    );
  }
  return objectForPath(context.path, config);
}

export async function handlePatch(context: ResourceRequest): Promise<void> {
  const type = mediaType(context.request);
  if (!servedPatchTypes.includes(type)) throw unsupportedPatchType(type, servedPatchTypes);
  const reply = replyFor(context);
  const isApply = type === applyPatchType;
  const options = patchQuery(context.query, context.request.headers["user-agent"], isApply);
  const directive = fieldValidationOf(context.query, "PatchOptions");
  // An apply configuration is YAML (JSON is YAML too); every other patch body is JSON.
  const { value: body, scan } = await readBodyScanned(
    context.request,
    isApply ? "application/yaml" : "application/json",
  );
  if (isApply) {
    const config = appliedConfiguration(context, body);
    enforceFieldValidation(directive, strictDecodingProblems([], scan), context.response, strictDecodingMessage);
    checkAppliedFields(context, config);
    const { object, created } = await applyWithRetry(context, config, options);
    reply(created ? 201 : 200, object);
    return;
  }
  const patched = await patchWithRetry(context, patchFunction(context, type, body), options, { directive, scan });
  reply(200, patched);
}
