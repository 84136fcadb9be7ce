/**
 * Secret validation (core's ValidateSecret): data keys are valid file names (they become files in
 * secret volumes), values are base64, the whole fits in 1 MiB, well-known types carry their keys,
 * and an immutable Secret stays as it is.
 */
import type { FieldCause } from "../errors.ts";
import { base64ProblemMessage, base64ProblemOffset, decodedLength } from "./base64-check.ts";
import { immutableMessage } from "./field-checks.ts";
import { forbidden, invalid, required, tooLong } from "./field-errors.ts";
import { key } from "./field-path.ts";
import { type JsonObject, readBoolean, readString, readStringMap } from "./json-reader.ts";
import { byteLength, configKeyProblems, nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { semanticEqual } from "./semantic-equal.ts";

/** Kubernetes' MaxSecretSize, which also bounds ConfigMaps. */
export const maxSecretSizeBytes = 1024 * 1024;
const secretMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };
/** Keys each well-known Secret type must have (any one of them for basic-auth). */
const requiredKeysByType: Readonly<Record<string, { keys: readonly string[]; anyOne: boolean }>> = {
  "kubernetes.io/tls": { keys: ["tls.crt", "tls.key"], anyOne: false },
  "kubernetes.io/ssh-auth": { keys: ["ssh-privatekey"], anyOne: false },
  "kubernetes.io/basic-auth": { keys: ["username", "password"], anyOne: true },
  "kubernetes.io/dockerconfigjson": { keys: [".dockerconfigjson"], anyOne: false },
};

export function checkConfigKey(name: string, path: string, out: FieldCause[]): void {
  for (const problem of configKeyProblems(name)) out.push(invalid(path, name, problem));
}

/** Base64 values (Secret data, ConfigMap binaryData); returns their decoded size. */
export function validateBase64Values(
  values: Readonly<Record<string, string>>,
  path: string,
  out: FieldCause[],
): number {
  let totalBytes = 0;
  for (const [name, value] of Object.entries(values)) {
    const offset = base64ProblemOffset(value);
    // The key, not the value, is shown: the value may be a credential.
    if (offset !== undefined) out.push(invalid(key(path, name), name, base64ProblemMessage(offset)));
    else totalBytes += decodedLength(value);
  }
  return totalBytes;
}

function validateType(secret: JsonObject, keys: ReadonlySet<string>, out: FieldCause[]): void {
  const type = readString(secret.type, "type", out) ?? "";
  const rule = requiredKeysByType[type];
  if (rule === undefined) return;
  const missing = rule.keys.filter((name) => !keys.has(name));
  if (rule.anyOne ? missing.length < rule.keys.length : missing.length === 0) return;
  for (const name of missing) out.push(required(key("data", name)));
}

export function validateSecret(secret: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(secret.metadata, secretMeta, out);
  const data = readStringMap(secret.data, "data", out) ?? {};
  const stringData = readStringMap(secret.stringData, "stringData", out) ?? {};
  for (const name of Object.keys(data)) checkConfigKey(name, key("data", name), out);
  for (const name of Object.keys(stringData)) checkConfigKey(name, key("stringData", name), out);
  const stringBytes = Object.values(stringData).reduce((total, value) => total + byteLength(value), 0);
  if (validateBase64Values(data, "data", out) + stringBytes > maxSecretSizeBytes)
    out.push(tooLong("data", maxSecretSizeBytes));
  validateType(secret, new Set([...Object.keys(data), ...Object.keys(stringData)]), out);
  readBoolean(secret.immutable, "immutable", out);
}

/** An object marked immutable keeps its data and the mark itself (Secrets and ConfigMaps). */
export function validateImmutableData(
  newObject: JsonObject,
  oldObject: JsonObject,
  dataFields: readonly string[],
  out: FieldCause[],
): void {
  if (oldObject.immutable !== true) return;
  const message = "field is immutable when `immutable` is set";
  if (newObject.immutable !== true) out.push(forbidden("immutable", message));
  for (const field of dataFields) {
    if (!semanticEqual(newObject[field], oldObject[field])) out.push(forbidden(field, message));
  }
}

export function validateSecretUpdate(newSecret: JsonObject, oldSecret: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newSecret.metadata, oldSecret.metadata, out);
  validateSecret(newSecret, out);
  const newType = typeof newSecret.type === "string" && newSecret.type !== "" ? newSecret.type : "Opaque";
  const oldType = typeof oldSecret.type === "string" && oldSecret.type !== "" ? oldSecret.type : "Opaque";
  if (newType !== oldType) out.push(invalid("type", newType, immutableMessage));
  validateImmutableData(newSecret, oldSecret, ["data", "stringData"], out);
}
