/**
 * CSINode validation (storage's ValidateCSINode): named after its node, one entry per registered
 * driver with a driver name, a node ID and topology keys. A driver's entry cannot change while it
 * stays registered; the kubelet removes and re-adds it when the driver re-registers.
 */
import type { FieldCause } from "../errors.ts";
import { checkCsiDriverName, checkNonNegative, checkQualifiedName, immutableMessage } from "./field-checks.ts";
import { duplicate, invalid, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readInteger, readObject, readObjectList, readString, readStringList } from "./json-reader.ts";
import { byteLength, nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { semanticEqual } from "./semantic-equal.ts";

const csiNodeMeta: MetaRules = { namespaced: false, nameRule: nameIsDnsSubdomain };
/** Kubernetes allows node IDs up to 256 characters (192 before 1.26). */
const maxNodeIdLength = 256;

function validateDriver(driver: JsonObject, path: string, seen: Set<string>, out: FieldCause[]): void {
  const name = readString(driver.name, child(path, "name"), out);
  checkCsiDriverName(name, child(path, "name"), out);
  const nodeId = readString(driver.nodeID, child(path, "nodeID"), out) ?? "";
  if (nodeId === "") out.push(required(child(path, "nodeID")));
  if (byteLength(nodeId) > maxNodeIdLength) {
    out.push(invalid(child(path, "nodeID"), nodeId, `must be ${maxNodeIdLength} characters or less`));
  }
  const allocatable = readObject(driver.allocatable, child(path, "allocatable"), out);
  const countPath = child(path, "allocatable", "count");
  checkNonNegative(readInteger(allocatable?.count, countPath, out), countPath, out);
  if (name !== undefined && seen.has(name)) out.push(duplicate(child(path, "name"), name));
  if (name !== undefined) seen.add(name);
  const keys = new Set<string>();
  for (const topologyKey of readStringList(driver.topologyKeys, child(path, "topologyKeys"), out) ?? []) {
    if (topologyKey === "") out.push(required(child(path, "topologyKeys")));
    if (keys.has(topologyKey)) out.push(duplicate(child(path, "topologyKeys"), topologyKey));
    keys.add(topologyKey);
    if (topologyKey !== "") checkQualifiedName(topologyKey, child(path, "topologyKeys"), out);
  }
}

export function validateCsiNode(csiNode: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(csiNode.metadata, csiNodeMeta, out);
  const spec = readObject(csiNode.spec, "spec", out) ?? {};
  const seen = new Set<string>();
  for (const entry of readObjectList(spec.drivers, "spec.drivers", out))
    validateDriver(entry.value, entry.path, seen, out);
}

function driversByName(csiNode: JsonObject): Map<string, JsonObject> {
  const spec = readObject(csiNode.spec, "", []) ?? {};
  const drivers = new Map<string, JsonObject>();
  for (const { value } of readObjectList(spec.drivers, "", [])) {
    if (typeof value.name === "string") drivers.set(value.name, value);
  }
  return drivers;
}

export function validateCsiNodeUpdate(newNode: JsonObject, oldNode: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newNode.metadata, oldNode.metadata, out);
  validateCsiNode(newNode, out);
  const oldDrivers = driversByName(oldNode);
  for (const [name, driver] of driversByName(newNode)) {
    const oldDriver = oldDrivers.get(name);
    // The allocatable count may change (Kubernetes' MutableCSINodeAllocatableCount); nothing else may.
    const comparable = (entry: JsonObject) => ({ ...entry, allocatable: undefined });
    if (oldDriver !== undefined && !semanticEqual(comparable(driver), comparable(oldDriver))) {
      out.push(invalid("spec.drivers", driver, immutableMessage));
    }
  }
}
