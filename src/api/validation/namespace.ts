/**
 * Namespace validation (core's ValidateNamespace): a DNS-label name and valid spec finalizers.
 */
import type { FieldCause } from "../errors.ts";
import { checkQualifiedName } from "./field-checks.ts";
import { invalid } from "./field-errors.ts";
import { type JsonObject, readObject, readStringList } from "./json-reader.ts";
import { nameIsDnsLabel } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";

const namespaceMeta: MetaRules = { namespaced: false, nameRule: nameIsDnsLabel };
const standardFinalizer = "kubernetes";

export function validateNamespace(namespace: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(namespace.metadata, namespaceMeta, out);
  const spec = readObject(namespace.spec, "spec", out) ?? {};
  for (const finalizer of readStringList(spec.finalizers, "spec.finalizers", out) ?? []) {
    checkQualifiedName(finalizer, "spec.finalizers", out);
    if (!finalizer.includes("/") && finalizer !== standardFinalizer) {
      out.push(
        invalid("spec.finalizers", finalizer, "name is neither a standard finalizer name nor is it fully qualified"),
      );
    }
  }
}

export function validateNamespaceUpdate(newNamespace: JsonObject, oldNamespace: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newNamespace.metadata, oldNamespace.metadata, out);
  validateNamespace(newNamespace, out);
}
