/**
 * The query parameters of list, watch and delete requests, read into the Store's option types.
 * A malformed number or an unknown policy is a BadRequest naming the parameter.
 */
import { badRequest, type FieldCause, invalid } from "../api/errors.ts";
import type { DeleteOptions, ListOptions, WatchOptions } from "../api/store/store.ts";
import { defaultWatchTimeoutSeconds, maxListLimitItems, maxWatchTimeoutSeconds } from "./constants.ts";
import { isPlainObject } from "./request-body.ts";

function nonNegativeInteger(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === "") return undefined;
  if (!/^[0-9]+$/.test(text)) throw badRequest(`the query parameter ${name}=${text} must be a non-negative integer`);
  return Number(text);
}

function flag(query: URLSearchParams, name: string): boolean {
  const text = query.get(name);
  return text === "1" || text === "true";
}

export function isWatchRequest(query: URLSearchParams): boolean {
  return flag(query, "watch");
}

export function listOptions(query: URLSearchParams, namespace: string): ListOptions {
  const options: ListOptions = {};
  if (namespace !== "") options.namespace = namespace;
  const labelSelector = query.get("labelSelector");
  if (labelSelector) options.labelSelector = labelSelector;
  const fieldSelector = query.get("fieldSelector");
  if (fieldSelector) options.fieldSelector = fieldSelector;
  const resourceVersion = query.get("resourceVersion");
  // "0" means "any recent version" in Kubernetes; the latest is the most recent of all.
  if (resourceVersion && resourceVersion !== "0") options.resourceVersion = resourceVersion;
  const limit = nonNegativeInteger(query, "limit");
  if (limit !== undefined && limit > 0) options.limit = Math.min(limit, maxListLimitItems);
  const token = query.get("continue");
  if (token) options.continue = token;
  return options;
}

export function watchOptions(query: URLSearchParams, namespace: string): WatchOptions {
  const { limit: _limit, continue: _continue, resourceVersion: _rv, ...base } = listOptions(query, namespace);
  const options: WatchOptions = base;
  const resourceVersion = query.get("resourceVersion");
  if (resourceVersion) options.resourceVersion = resourceVersion;
  if (flag(query, "allowWatchBookmarks")) options.allowBookmarks = true;
  return options;
}

/** How long a watch may stay open: the client's timeoutSeconds, bounded, or the default. */
export function watchTimeoutSeconds(query: URLSearchParams): number {
  const requested = nonNegativeInteger(query, "timeoutSeconds");
  if (requested === undefined || requested === 0) return defaultWatchTimeoutSeconds;
  return Math.min(requested, maxWatchTimeoutSeconds);
}

const propagationPolicies = new Set(["Orphan", "Background", "Foreground"]);

function readPolicy(value: unknown): DeleteOptions["propagationPolicy"] {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || !propagationPolicies.has(value)) {
    throw badRequest(`propagationPolicy ${JSON.stringify(value)} is not one of Orphan, Background, Foreground`);
  }
  return value as DeleteOptions["propagationPolicy"];
}

function readGracePeriod(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw badRequest(`gracePeriodSeconds ${JSON.stringify(value)} must be a non-negative integer`);
  }
  return value;
}

function readPreconditions(value: unknown): DeleteOptions["preconditions"] {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw badRequest("preconditions must be an object with uid and/or resourceVersion");
  const preconditions: NonNullable<DeleteOptions["preconditions"]> = {};
  if (typeof value.uid === "string") preconditions.uid = value.uid;
  if (typeof value.resourceVersion === "string") preconditions.resourceVersion = value.resourceVersion;
  return preconditions;
}

/** The write options kinds whose validation errors name them (`CreateOptions.meta.k8s.io "" is invalid: …`). */
export type WriteOptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions" | "DeleteOptions";

function invalidOptions(kind: WriteOptionsKind, causes: FieldCause[]): never {
  throw invalid(`${kind}.meta.k8s.io`, "meta.k8s.io", "", causes);
}

/** `dryRun=All` (the only value Kubernetes accepts) from the query, or from a DeleteOptions body. */
export function isDryRun(query: URLSearchParams, kind: WriteOptionsKind, body?: Record<string, unknown>): boolean {
  const sent = body?.dryRun;
  if (sent !== undefined && sent !== null && !Array.isArray(sent)) {
    throw badRequest(`dryRun in ${kind} must be a list such as ["All"], not ${JSON.stringify(sent)}`);
  }
  const fromBody: unknown[] = sent ?? [];
  const values = [...query.getAll("dryRun"), ...fromBody];
  for (const value of values) {
    if (value !== "All") {
      invalidOptions(kind, [
        {
          field: "dryRun",
          reason: "FieldValueNotSupported",
          message: `Unsupported value: ${JSON.stringify(value)}: supported values: "All"`,
        },
      ]);
    }
  }
  return values.length > 0;
}

/** Kubernetes' limit on a field manager's name. */
const maxFieldManagerLength = 128;

/**
 * The manager a write is recorded under: `fieldManager` from the query, else the client's
 * User-Agent up to the first "/" (`kubectl/v1.31.0 (linux/amd64)` → `kubectl`), as kube-apiserver
 * names an unnamed writer.
 */
export function fieldManagerFor(query: URLSearchParams, userAgent: string | undefined, kind: WriteOptionsKind): string {
  const named = query.get("fieldManager");
  if (named !== null && named !== "") {
    if (named.length > maxFieldManagerLength) {
      invalidOptions(kind, [
        {
          field: "fieldManager",
          reason: "FieldValueTooLong",
          message: `Too long: may not be more than ${maxFieldManagerLength} bytes`,
        },
      ]);
    }
    return named;
  }
  const prefix = (userAgent ?? "").split("/")[0]?.trim() ?? "";
  return prefix === "" ? "unknown" : prefix.slice(0, maxFieldManagerLength);
}

export interface PatchQuery {
  fieldManager: string;
  force: boolean;
  dryRun: boolean;
}

/** The options of a PATCH; an apply must name its field manager, and only an apply may force. */
export function patchQuery(query: URLSearchParams, userAgent: string | undefined, isApply: boolean): PatchQuery {
  const causes: FieldCause[] = [];
  if (isApply && !query.get("fieldManager")) {
    causes.push({
      field: "fieldManager",
      reason: "FieldValueRequired",
      message: "Required value: is required for apply patch",
    });
  }
  if (!isApply && query.has("force")) {
    causes.push({
      field: "force",
      reason: "FieldValueForbidden",
      message: "Forbidden: may not be specified for non-apply patch",
    });
  }
  if (causes.length > 0) invalidOptions("PatchOptions", causes);
  return {
    fieldManager: fieldManagerFor(query, userAgent, "PatchOptions"),
    force: flag(query, "force"),
    dryRun: isDryRun(query, "PatchOptions"),
  };
}

/** DeleteOptions from a body (kubectl sends one) with query parameters taking precedence, as Kubernetes does. */
export function deleteOptions(query: URLSearchParams, body: Record<string, unknown> | undefined): DeleteOptions {
  const options: DeleteOptions = {};
  if (isDryRun(query, "DeleteOptions", body)) options.dryRun = true;
  const grace = nonNegativeInteger(query, "gracePeriodSeconds") ?? readGracePeriod(body?.gracePeriodSeconds);
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  const policy = readPolicy(query.get("propagationPolicy") ?? body?.propagationPolicy);
  if (policy !== undefined) options.propagationPolicy = policy;
  const preconditions = readPreconditions(body?.preconditions);
  if (preconditions !== undefined) options.preconditions = preconditions;
  return options;
}
