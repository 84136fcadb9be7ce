/**
 * JSON Patch (RFC 6902), the `application/json-patch+json` patch type: a list of operations
 * (add, remove, replace, move, copy, test) addressed by JSON Pointers (RFC 6901). The patch applies
 * whole or not at all; a failing operation is a BadRequest naming the operation and path,
 * as kube-apiserver reports it.
 */

import { badRequest } from "../api/errors.ts";
import { setOwnField } from "../api/own-field.ts";
import { jsonEqual } from "../api/store/json-equal.ts";
import { isPlainObject } from "./request-body.ts";

type Container = Record<string, unknown> | unknown[];

interface Operation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

/** Upper bound on operations in one patch, so a request cannot make the server loop for long. */
const maxJsonPatchOperations = 10_000;

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw badRequest(`json patch: path "${pointer}" must start with "/"`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function childOf(container: unknown, token: string, pointer: string): unknown {
  if (Array.isArray(container)) {
    const index = arrayIndex(container, token, pointer, false);
    return container[index];
  }
  if (isPlainObject(container) && Object.hasOwn(container, token)) return container[token];
  throw badRequest(`json patch: path "${pointer}" does not exist`);
}

function arrayIndex(array: unknown[], token: string, pointer: string, forInsert: boolean): number {
  if (forInsert && token === "-") return array.length;
  const index = /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : Number.NaN;
  const limit = forInsert ? array.length : array.length - 1;
  if (Number.isNaN(index) || index > limit) {
    throw badRequest(`json patch: array index "${token}" in path "${pointer}" is out of range`);
  }
  return index;
}

/** The container holding the pointer's last token, and that token. */
function parentOf(document: unknown, pointer: string): { parent: Container; key: string } {
  const tokens = parsePointer(pointer);
  const key = tokens.pop();
  if (key === undefined) throw badRequest("json patch: the whole document cannot be the target of this operation");
  let parent: unknown = document;
  for (const token of tokens) parent = childOf(parent, token, pointer);
  if (!Array.isArray(parent) && !isPlainObject(parent)) {
    throw badRequest(`json patch: the parent of path "${pointer}" is not an object or array`);
  }
  return { parent, key };
}

function getValue(document: unknown, pointer: string): unknown {
  let current = document;
  for (const token of parsePointer(pointer)) current = childOf(current, token, pointer);
  return current;
}

function addValue(document: unknown, pointer: string, value: unknown): void {
  const { parent, key } = parentOf(document, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, pointer, true), 0, value);
  else setOwnField(parent, key, value);
}

function removeValue(document: unknown, pointer: string): unknown {
  const { parent, key } = parentOf(document, pointer);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, pointer, false), 1)[0];
  if (!Object.hasOwn(parent, key)) throw badRequest(`json patch: path "${pointer}" does not exist`);
  const removed = parent[key];
  delete parent[key];
  return removed;
}

function asOperation(raw: unknown, index: number): Operation {
  if (!isPlainObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") {
    throw badRequest(`json patch: operation ${index} must be an object with string "op" and "path"`);
  }
  const from = typeof raw.from === "string" ? raw.from : undefined;
  return { op: raw.op, path: raw.path, value: raw.value, ...(from === undefined ? {} : { from }) };
}

function requireFrom(operation: Operation): string {
  if (operation.from === undefined) throw badRequest(`json patch: "${operation.op}" needs a "from" path`);
  return operation.from;
}

function applyOperation(document: unknown, operation: Operation): void {
  switch (operation.op) {
    case "add":
      addValue(document, operation.path, structuredClone(operation.value));
      return;
    case "remove":
      removeValue(document, operation.path);
      return;
    case "replace":
      removeValue(document, operation.path);
      addValue(document, operation.path, structuredClone(operation.value));
      return;
    case "move":
      addValue(document, operation.path, removeValue(document, requireFrom(operation)));
      return;
    case "copy":
      addValue(document, operation.path, structuredClone(getValue(document, requireFrom(operation))));
      return;
    case "test":
      if (!jsonEqual(getValue(document, operation.path), operation.value)) {
        throw badRequest(`json patch: test operation failed: the value at "${operation.path}" differs`);
      }
      return;
    default:
      throw badRequest(`json patch: unknown operation "${operation.op}"; use add, remove, replace, move, copy or test`);
  }
}

/** `target` with `patch` applied, as a new object (`target` may be frozen and is not changed). */
export function applyJsonPatch<T>(target: T, patch: unknown): T {
  if (!Array.isArray(patch)) throw badRequest("json patch: the body must be an array of operations");
  if (patch.length > maxJsonPatchOperations) {
    throw badRequest(`json patch: ${patch.length} operations is more than the limit of ${maxJsonPatchOperations}`);
  }
  const document: unknown = structuredClone(target);
  patch.forEach((raw, index) => {
    applyOperation(document, asOperation(raw, index));
  });
  if (!isPlainObject(document)) throw badRequest("json patch: the result must be an object");
  return document as T;
}
