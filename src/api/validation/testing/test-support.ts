/**
 * Helpers for the validation tests: run the Store's entry point on a manifest and get its
 * problems as `field: message` lines, the way `kubectl` prints them.
 */
import assert from "node:assert/strict";
import { deepFreeze } from "../../client/copy.ts";
import type { FieldCause } from "../../errors.ts";
import type { KindName, KObject } from "../../objects.ts";
import { resourceForKind } from "../../resources.ts";
import { validateObject } from "../validate.ts";

export function causesOf(kind: KindName, object: unknown, old?: unknown): FieldCause[] {
  const type = resourceForKind(kind);
  assert.ok(type, `no resource type for ${kind}`);
  return validateObject(type, object as KObject, old as KObject | undefined);
}

/** The problems of a manifest as `field: message` lines. */
export function problemsOf(kind: KindName, object: unknown, old?: unknown): string[] {
  return causesOf(kind, object, old).map((cause) =>
    cause.field === "" ? cause.message : `${cause.field}: ${cause.message}`,
  );
}

/** A deep copy of a manifest with `change` applied, so each test starts from the valid one. */
export function changed<T>(manifest: T, change: (copy: T) => void): T {
  const copy = structuredClone(manifest);
  change(copy);
  return copy;
}

/**
 * A manifest as the store holds it once written: deeply frozen. An update spreads it and changes a
 * field, sharing every other field with it, as a controller writing from its informer cache does.
 */
export function stored<T>(manifest: T): T {
  return deepFreeze(structuredClone(manifest));
}

/** Kubernetes' DNS-1123 label format message, for asserting name errors word for word. */
export const dnsLabelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

export const dnsSubdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
