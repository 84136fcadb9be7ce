/**
 * Node validation (core's ValidateNode, the parts kvol uses): taints — the node lifecycle
 * controller's unreachable and out-of-service taints decide when a dead node's volumes are
 * released — and the resource quantities the kubelet reports.
 */
import type { FieldCause } from "../errors.ts";
import { negativeMessage } from "./field-checks.ts";
import { invalid } from "./field-errors.ts";
import { child, key } from "./field-path.ts";
import { type JsonObject, readBoolean, readObject, readString } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { readResourceList } from "./quantity-field.ts";
import { validateTaints } from "./tolerations.ts";

const nodeMeta: MetaRules = { namespaced: false, nameRule: nameIsDnsSubdomain };

export function validateNode(node: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(node.metadata, nodeMeta, out);
  const spec = readObject(node.spec, "spec", out) ?? {};
  validateTaints(spec.taints, "spec.taints", out);
  readBoolean(spec.unschedulable, "spec.unschedulable", out);
  readString(spec.providerID, "spec.providerID", out);
  const status = readObject(node.status, "status", out) ?? {};
  for (const listName of ["capacity", "allocatable"]) {
    const path = child("status", listName);
    for (const [resourceName, quantity] of readResourceList(status[listName], path, out)) {
      if (quantity.sign() < 0) out.push(invalid(key(path, resourceName), quantity.toString(), negativeMessage));
    }
  }
}

export function validateNodeUpdate(newNode: JsonObject, oldNode: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newNode.metadata, oldNode.metadata, out);
  validateNode(newNode, out);
}
