/**
 * CSIStorageCapacity validation (storage's ValidateCSIStorageCapacity): a namespaced object with a
 * DNS-subdomain name, a valid node topology selector, a storage class name that is a DNS subdomain,
 * and capacities that are not negative. The class and the topology say what the object describes,
 * so neither can change once set (the API reference calls both immutable).
 */
import type { FieldCause } from "../errors.ts";
import { checkDnsSubdomain, immutableMessage } from "./field-checks.ts";
import { invalid, required } from "./field-errors.ts";
import { type JsonObject, readObject, readString } from "./json-reader.ts";
import { validateLabelSelector } from "./labels.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { checkNonNegativeQuantity, readQuantity } from "./quantity-field.ts";
import { semanticEqual } from "./semantic-equal.ts";

const capacityMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

export function validateCsiStorageCapacity(capacity: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(capacity.metadata, capacityMeta, out);
  const topology = readObject(capacity.nodeTopology, "nodeTopology", out);
  if (topology !== undefined) validateLabelSelector(topology, "nodeTopology", out);
  const className = readString(capacity.storageClassName, "storageClassName", out) ?? "";
  if (className === "") out.push(required("storageClassName"));
  else checkDnsSubdomain(className, "storageClassName", out);
  for (const field of ["capacity", "maximumVolumeSize"]) {
    const quantity = readQuantity(capacity[field], field, out);
    if (quantity !== undefined) checkNonNegativeQuantity(quantity, field, out);
  }
}

export function validateCsiStorageCapacityUpdate(
  newObject: JsonObject,
  oldObject: JsonObject,
  out: FieldCause[],
): void {
  validateObjectMetaUpdate(newObject.metadata, oldObject.metadata, out);
  validateCsiStorageCapacity(newObject, out);
  if (newObject.storageClassName !== oldObject.storageClassName) {
    out.push(invalid("storageClassName", newObject.storageClassName, immutableMessage));
  }
  if (!semanticEqual(newObject.nodeTopology ?? null, oldObject.nodeTopology ?? null)) {
    out.push(invalid("nodeTopology", newObject.nodeTopology, immutableMessage));
  }
}
