/**
 * Field validation (`fieldValidation=Strict|Warn|Ignore`, kubectl's `--validate=strict|warn|false`),
 * as kube-apiserver does it for built-in kinds: a field the kind's schema does not declare, and a
 * key an object repeats, is
 * - Strict: a 400 `strict decoding error: unknown field "spec.bogusField", duplicate field "x"`;
 * - Warn (the default): dropped, with one `Warning: 299 - "unknown field \"spec.bogusField\""`
 *   header per problem;
 * - Ignore: dropped silently.
 * Either way an unknown field is never stored or served. Kinds without a schema keep every field.
 */
import type { ServerResponse } from "node:http";
import { badRequest, type FieldCause, invalid } from "../api/errors.ts";
import { setOwnField } from "../api/own-field.ts";
import { apiVersionOf, type ResourceType } from "../api/resources.ts";
import { type SchemaNode, schemaForKind } from "../api/schema/schema.ts";
import type { JsonKeyScan } from "./json-key-scan.ts";
import type { WriteOptionsKind } from "./query-options.ts";
import { isPlainObject } from "./request-body.ts";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

const directives: readonly string[] = ["Ignore", "Strict", "Warn"];

/** The request's directive; absent or empty is Warn, anything else unknown is refused as kube-apiserver refuses it. */
export function fieldValidationOf(query: URLSearchParams, kind: WriteOptionsKind): FieldValidation {
  const value = query.get("fieldValidation") ?? "";
  if (value === "") return "Warn";
  if (directives.includes(value)) return value as FieldValidation;
  const supported = ["", ...directives].map((directive) => JSON.stringify(directive)).join(", ");
  const cause: FieldCause = {
    field: "fieldValidation",
    reason: "FieldValueNotSupported",
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`,
  };
  throw invalid(`${kind}.meta.k8s.io`, "meta.k8s.io", "", [cause]);
}

/** A list element's name in a structured-merge-diff path: `[name="nginx"]` by its keys, else its index. */
function elementName(node: SchemaNode, element: unknown, index: number): string {
  const keys = node.listMapKeys ?? (node.patchMergeKey === undefined ? [] : [node.patchMergeKey]);
  if (!isPlainObject(element) || keys.length === 0 || keys.some((key) => element[key] === undefined)) {
    return `[${index}]`;
  }
  return `[${keys.map((key) => `${key}=${JSON.stringify(element[key])}`).join(",")}]`;
}

interface Walk {
  unknown: string[];
  /** Paths as server-side apply names them (`.spec.containers[name="c"].bogus`). */
  applyPaths: string[];
}

/**
 * Where the walk is, as a chain up to the root. Paths are written out only for an unknown field:
 * almost every body has none, and writing both spellings for every field cost more than the walk.
 */
type Trail = undefined | { up: Trail; key: string } | { up: Trail; list: SchemaNode; element: unknown; index: number };

/** `spec.containers[0].bogus` */
function fieldPath(trail: Trail): string {
  if (trail === undefined) return "";
  const path = fieldPath(trail.up);
  if ("key" in trail) return path === "" ? trail.key : `${path}.${trail.key}`;
  return `${path}[${trail.index}]`;
}

/** `.spec.containers[name="c"].bogus` */
function applyPath(trail: Trail): string {
  if (trail === undefined) return "";
  if ("key" in trail) return `${applyPath(trail.up)}.${trail.key}`;
  return `${applyPath(trail.up)}${elementName(trail.list, trail.element, trail.index)}`;
}

function pruneArray(node: SchemaNode, value: unknown[], trail: Trail, walk: Walk): unknown[] {
  const items = node.items;
  if (items === undefined) return value;
  let pruned: unknown[] | undefined;
  for (let index = 0; index < value.length; index++) {
    const element = value[index];
    const next = prune(items, element, { up: trail, list: node, element, index }, walk);
    if (next !== element) pruned ??= value.slice(0, index);
    pruned?.push(next);
  }
  return pruned ?? value;
}

function prune(node: SchemaNode, value: unknown, trail: Trail, walk: Walk): unknown {
  if (Array.isArray(value)) return pruneArray(node, value, trail, walk);
  if (!isPlainObject(value)) return value;
  const { properties, additionalProperties } = node;
  // An object without declared fields is free-form (RawExtension, FieldsV1): everything is known.
  if (properties === undefined && additionalProperties === undefined) return value;
  // The copy is started only at the first change, with the fields before it.
  let result: Record<string, unknown> | undefined;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const child = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : additionalProperties;
    const at = { up: trail, key };
    if (child === undefined) {
      walk.unknown.push(fieldPath(at));
      walk.applyPaths.push(applyPath(at));
      result ??= copyFields(value, keys, i);
      continue;
    }
    const before = value[key];
    const after = prune(child, before, at, walk);
    if (after !== before) result ??= copyFields(value, keys, i);
    if (result !== undefined) setOwnField(result, key, after);
  }
  return result ?? value;
}

/** A new object with the first `count` of `keys` of `value`. */
function copyFields(value: Record<string, unknown>, keys: readonly string[], count: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) setOwnField(copy, keys[i] as string, value[keys[i] as string]);
  return copy;
}

interface PrunedObject {
  object: Record<string, unknown>;
  /** Field paths of the dropped fields, in the order they appear (`spec.bogusField`). */
  unknown: string[];
  /** The same fields as server-side apply names them. */
  applyPaths: string[];
}

/** `object` without the fields its kind's schema does not declare (the same object when there are none). */
export function pruneUnknownFields(type: ResourceType, object: Record<string, unknown>): PrunedObject {
  const schema = schemaForKind(apiVersionOf(type), type.kind);
  const walk: Walk = { unknown: [], applyPaths: [] };
  if (schema === undefined) return { object, ...walk };
  const pruned = prune(schema, object, undefined, walk) as Record<string, unknown>;
  return { object: pruned, ...walk };
}

/**
 * The problems to report, in the order the body reads: duplicates (a key both unknown and
 * repeated is reported as unknown only, as kube-apiserver does for built-in kinds) and unknown
 * fields.
 */
export function strictDecodingProblems(unknown: readonly string[], scan: JsonKeyScan | undefined): string[] {
  const unknownSet = new Set(unknown);
  const problems: { offset: number; order: number; text: string }[] = [];
  for (const duplicate of scan?.duplicates ?? []) {
    if (unknownSet.has(duplicate.path)) continue;
    problems.push({ offset: duplicate.offset, order: problems.length, text: duplicate.text });
  }
  for (const path of unknown) {
    const offset = scan?.firstOffsets.get(path) ?? Number.MAX_SAFE_INTEGER;
    problems.push({ offset, order: problems.length, text: `unknown field "${path}"` });
  }
  problems.sort((a, b) => a.offset - b.offset || a.order - b.order);
  return problems.map((problem) => problem.text);
}

/** `strict decoding error: …`, the problems joined as Kubernetes joins them. */
export function strictDecodingMessage(problems: readonly string[]): string {
  return `strict decoding error: ${problems.join(", ")}`;
}

/** The message of a create or update body that cannot be decoded strictly. */
export function undecodableBodyMessage(type: ResourceType, problems: readonly string[]): string {
  return `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${strictDecodingMessage(problems)}`;
}

/**
 * Acts on the problems as the directive says: Strict throws the 400 `message(problems)` builds,
 * Warn adds the warnings to the response, Ignore does nothing.
 */
export function enforceFieldValidation(
  directive: FieldValidation,
  problems: readonly string[],
  response: ServerResponse,
  message: (problems: readonly string[]) => string,
): void {
  if (problems.length === 0 || directive === "Ignore") return;
  if (directive === "Strict") throw badRequest(message(problems));
  addWarnings(response, problems);
}

/** The max length of one warning's text, as kube-apiserver truncates it (4 KiB). */
const maxWarningTextBytes = 4 * 1024;

/** RFC 7234 warning value `299 - "text"`, the text's quotes and backslashes escaped. */
function warningHeaderValue(text: string): string {
  const bounded = text.length > maxWarningTextBytes ? text.slice(0, maxWarningTextBytes) : text;
  return `299 - "${bounded.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** Adds `Warning` headers (one per text, repeated texts once) to a response not yet sent. */
function addWarnings(response: ServerResponse, texts: readonly string[]): void {
  const existing = response.getHeader("Warning");
  const values = Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)];
  for (const text of texts) {
    const value = warningHeaderValue(text);
    if (!values.includes(value)) values.push(value);
  }
  response.setHeader("Warning", values);
}
