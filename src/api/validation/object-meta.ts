/**
 * metadata checks every kind shares (apimachinery's ValidateObjectMeta and ValidateObjectMetaUpdate,
 * plus core's finalizer rule): name or generateName, namespace by scope, labels, annotations,
 * finalizers, owner references.
 */
import type { FieldCause } from "../errors.ts";
import { checkNonNegative, checkQualifiedName, immutableMessage } from "./field-checks.ts";
import { forbidden, invalid, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import {
  isJsonObject,
  type JsonObject,
  readBoolean,
  readInteger,
  readObject,
  readObjectList,
  readString,
  readStringList,
} from "./json-reader.ts";
import { validateAnnotations, validateLabels } from "./labels.ts";
import { type NameRule, nameIsDnsLabel } from "./names.ts";
import { sameJsonValue } from "./unchanged-spec.ts";

const metadataPath = "metadata";
/** Finalizers Kubernetes accepts without a domain prefix. */
const standardFinalizers: ReadonlySet<string> = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

export interface MetaRules {
  namespaced: boolean;
  /** How names of this kind are checked (most kinds: DNS subdomain). */
  nameRule: NameRule;
}

function validateName(meta: JsonObject, rules: MetaRules, out: FieldCause[]): void {
  const generateName = readString(meta.generateName, child(metadataPath, "generateName"), out) ?? "";
  const name = readString(meta.name, child(metadataPath, "name"), out) ?? "";
  for (const problem of generateName === "" ? [] : rules.nameRule(generateName, true)) {
    out.push(invalid(child(metadataPath, "generateName"), generateName, problem));
  }
  // The store fills a generated name before validating; a bare generateName is still a name source.
  if (name === "" && generateName === "") {
    out.push(required(child(metadataPath, "name"), "name or generateName is required"));
  }
  for (const problem of name === "" ? [] : rules.nameRule(name, false)) {
    out.push(invalid(child(metadataPath, "name"), name, problem));
  }
}

function validateNamespace(meta: JsonObject, namespaced: boolean, out: FieldCause[]): void {
  const path = child(metadataPath, "namespace");
  const namespace = readString(meta.namespace, path, out) ?? "";
  if (!namespaced) {
    if (namespace !== "") out.push(forbidden(path, "not allowed on this type"));
    return;
  }
  if (namespace === "") {
    out.push(required(path));
    return;
  }
  for (const problem of nameIsDnsLabel(namespace, false)) out.push(invalid(path, namespace, problem));
}

function validateFinalizers(meta: JsonObject, out: FieldCause[]): void {
  const path = child(metadataPath, "finalizers");
  const finalizers = readStringList(meta.finalizers, path, out) ?? [];
  finalizers.forEach((finalizer, position) => {
    checkQualifiedName(finalizer, path, out);
    if (!finalizer.includes("/") && !standardFinalizers.has(finalizer)) {
      out.push(
        invalid(
          `${path}[${position}]`,
          finalizer,
          "name is neither a standard finalizer name nor is it fully qualified",
        ),
      );
    }
  });
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    out.push(invalid(path, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"));
  }
}

function validateOwnerReferences(meta: JsonObject, out: FieldCause[]): void {
  const path = child(metadataPath, "ownerReferences");
  let firstController = "";
  for (const { value: owner, path: ownerPath } of readObjectList(meta.ownerReferences, path, out)) {
    const apiVersion = readString(owner.apiVersion, child(ownerPath, "apiVersion"), out) ?? "";
    const kind = readString(owner.kind, child(ownerPath, "kind"), out) ?? "";
    const name = readString(owner.name, child(ownerPath, "name"), out) ?? "";
    const uid = readString(owner.uid, child(ownerPath, "uid"), out) ?? "";
    const version = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
    // Kubernetes reports these at the list's path, not the element's.
    if (version === "") out.push(invalid(child(path, "apiVersion"), apiVersion, "version must not be empty"));
    if (kind === "") out.push(invalid(child(path, "kind"), kind, "kind must not be empty"));
    if (name === "") out.push(invalid(child(path, "name"), name, "name must not be empty"));
    if (uid === "") out.push(invalid(child(path, "uid"), uid, "uid must not be empty"));
    if (readBoolean(owner.controller, child(ownerPath, "controller"), out) !== true) continue;
    const controller = `${kind}/${name}`;
    if (firstController === "") firstController = controller;
    else {
      out.push(
        invalid(
          path,
          meta.ownerReferences,
          `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${controller}`,
        ),
      );
    }
  }
}

/** Checks `metadata` on create (and, with the update checks, on update). Returns it for further reads. */
export function validateObjectMeta(value: unknown, rules: MetaRules, out: FieldCause[]): JsonObject {
  const meta = readObject(value, metadataPath, out) ?? {};
  validateName(meta, rules, out);
  validateNamespace(meta, rules.namespaced, out);
  checkNonNegative(
    readInteger(meta.generation, child(metadataPath, "generation"), out),
    child(metadataPath, "generation"),
    out,
  );
  validateLabels(meta.labels, child(metadataPath, "labels"), out);
  validateAnnotations(meta.annotations, child(metadataPath, "annotations"), out);
  validateOwnerReferences(meta, out);
  validateFinalizers(meta, out);
  return meta;
}

/**
 * validateObjectMeta on an update, checking only the fields the update changed. `oldValue` is the
 * stored metadata: frozen, and checked by these same rules when it was written (a status write
 * keeps the stored metadata). The store's own deletion marks are written without these checks, but
 * are valid by construction: deletionTimestamp and deletionGracePeriodSeconds are not checked here,
 * and the finalizers a delete's propagation policy adds or removes (deletion-propagation.ts) are
 * the garbage collector's own valid names. A field the update carries over with the same value
 * would find what it found then: nothing.
 * Each check reads its own fields alone, so skipping one leaves the others' findings as they are.
 */
export function validateChangedObjectMeta(
  value: unknown,
  oldValue: unknown,
  rules: MetaRules,
  out: FieldCause[],
): void {
  if (!isJsonObject(value) || !isJsonObject(oldValue) || !Object.isFrozen(oldValue)) {
    validateObjectMeta(value, rules, out);
    return;
  }
  const meta = value;
  const old = oldValue;
  if (meta === old) return;
  if (!sameField(meta, old, "name") || !sameField(meta, old, "generateName")) validateName(meta, rules, out);
  if (!sameField(meta, old, "namespace")) validateNamespace(meta, rules.namespaced, out);
  if (!sameField(meta, old, "generation")) {
    const path = child(metadataPath, "generation");
    checkNonNegative(readInteger(meta.generation, path, out), path, out);
  }
  if (!sameField(meta, old, "labels")) validateLabels(meta.labels, child(metadataPath, "labels"), out);
  if (!sameField(meta, old, "annotations")) {
    validateAnnotations(meta.annotations, child(metadataPath, "annotations"), out);
  }
  if (!sameField(meta, old, "ownerReferences")) validateOwnerReferences(meta, out);
  if (!sameField(meta, old, "finalizers")) validateFinalizers(meta, out);
}

/**
 * Both have `field` with the same value, or neither has it. A field set to undefined is one neither
 * JSON nor these checks (each reads its field by name) can tell from an absent one: the store hands
 * over metadata with every field of its shape present, most of them undefined, and counting those
 * as changed re-checked the name, namespace, labels, owners and finalizers of every update.
 */
function sameField(meta: JsonObject, old: JsonObject, field: string): boolean {
  const value = meta[field];
  const stored = old[field];
  if (value === undefined || stored === undefined) return value === stored;
  return sameJsonValue(value, stored);
}

function stringField(meta: JsonObject, field: string): string {
  const value = meta[field];
  return typeof value === "string" ? value : "";
}

/**
 * What an update may not change in metadata. The store keeps resourceVersion, creationTimestamp
 * and deletionTimestamp itself; a missing uid means "keep the stored one", as in Kubernetes.
 */
export function validateObjectMetaUpdate(newValue: unknown, oldValue: unknown, out: FieldCause[]): void {
  const newMeta = readObject(newValue, metadataPath, []) ?? {};
  const oldMeta = readObject(oldValue, metadataPath, []) ?? {};
  for (const field of ["name", "namespace"]) {
    if (stringField(newMeta, field) !== stringField(oldMeta, field)) {
      out.push(invalid(child(metadataPath, field), stringField(newMeta, field), immutableMessage));
    }
  }
  const newUid = stringField(newMeta, "uid");
  if (newUid !== "" && newUid !== stringField(oldMeta, "uid")) {
    out.push(invalid(child(metadataPath, "uid"), newUid, immutableMessage));
  }
  if (oldMeta.deletionTimestamp !== undefined && oldMeta.deletionTimestamp !== null) {
    validateNoNewFinalizers(newMeta, oldMeta, out);
  }
}

function validateNoNewFinalizers(newMeta: JsonObject, oldMeta: JsonObject, out: FieldCause[]): void {
  // Every update of an object being deleted comes here; nearly all keep or remove finalizers.
  if (newMeta.finalizers === oldMeta.finalizers) return;
  const oldFinalizers = new Set(readStringList(oldMeta.finalizers, "", []) ?? []);
  const added = [...new Set(readStringList(newMeta.finalizers, "", []) ?? [])]
    .filter((finalizer) => !oldFinalizers.has(finalizer))
    .sort();
  if (added.length === 0) return;
  const goList = `[]string{${added.map((finalizer) => JSON.stringify(finalizer)).join(", ")}}`;
  out.push(
    forbidden(
      child(metadataPath, "finalizers"),
      `no new finalizers can be added if the object is being deleted, found new finalizers ${goList}`,
    ),
  );
}
