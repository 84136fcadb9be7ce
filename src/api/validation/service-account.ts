/**
 * ServiceAccount validation (core's ValidateServiceAccount): a DNS-subdomain name in a namespace,
 * and secret references that name something.
 */
import type { FieldCause } from "../errors.ts";
import { required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readBoolean, readObjectList, readString } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";

const serviceAccountMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

export function validateServiceAccount(account: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(account.metadata, serviceAccountMeta, out);
  for (const field of ["secrets", "imagePullSecrets"]) {
    for (const { value, path } of readObjectList(account[field], field, out)) {
      if ((readString(value.name, child(path, "name"), out) ?? "") === "") out.push(required(child(path, "name")));
    }
  }
  readBoolean(account.automountServiceAccountToken, "automountServiceAccountToken", out);
}

export function validateServiceAccountUpdate(account: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(account.metadata, old.metadata, out);
  validateServiceAccount(account, out);
}
