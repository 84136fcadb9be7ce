/**
 * CSIDriver validation (storage's ValidateCSIDriver): the object's name is the driver's name (a CSI
 * driver name), fsGroupPolicy and volumeLifecycleModes from their closed sets, token requests with
 * distinct audiences. attachRequired and volumeLifecycleModes cannot change once set, because the
 * attach/detach controller and the kubelet have already acted on them.
 */
import type { FieldCause } from "../errors.ts";
import { checkOneOf, immutableMessage } from "./field-checks.ts";
import { duplicate, invalid, notSupported } from "./field-errors.ts";
import { child } from "./field-path.ts";
import {
  type JsonObject,
  readBoolean,
  readInteger,
  readObject,
  readObjectList,
  readString,
  readStringList,
} from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { semanticEqual } from "./semantic-equal.ts";

/** Sorted as Kubernetes lists them. */
const fsGroupPolicies = ["File", "None", "ReadWriteOnceWithFSType"] as const;
const volumeLifecycleModes = ["Persistent", "Ephemeral"] as const;
const minTokenExpirationSeconds = 10 * 60;
const maxTokenExpirationSeconds = 2 ** 32;
const minAllocatableUpdatePeriodSeconds = 10;
const defaultAttachRequired = true;

/** The object is named after the driver; Kubernetes checks that name as any DNS subdomain. */
const driverMeta: MetaRules = { namespaced: false, nameRule: nameIsDnsSubdomain };

function validateTokenRequests(spec: JsonObject, out: FieldCause[]): void {
  const audiences = new Set<string>();
  for (const { value: request, path } of readObjectList(spec.tokenRequests, "spec.tokenRequests", out)) {
    const audience = readString(request.audience, child(path, "audience"), out) ?? "";
    if (audiences.has(audience)) {
      out.push(duplicate(child(path, "audience"), audience));
      continue;
    }
    audiences.add(audience);
    const expirationPath = child(path, "expirationSeconds");
    const expiration = readInteger(request.expirationSeconds, expirationPath, out);
    if (expiration !== undefined && expiration < minTokenExpirationSeconds) {
      out.push(invalid(expirationPath, expiration, "may not specify a duration less than 10 minutes"));
    }
    if (expiration !== undefined && expiration > maxTokenExpirationSeconds) {
      out.push(invalid(expirationPath, expiration, "may not specify a duration larger than 2^32 seconds"));
    }
  }
}

function validateDriverSpec(spec: JsonObject, out: FieldCause[]): void {
  for (const field of ["attachRequired", "podInfoOnMount", "storageCapacity", "requiresRepublish", "seLinuxMount"]) {
    readBoolean(spec[field], child("spec", field), out);
  }
  checkOneOf(readString(spec.fsGroupPolicy, "spec.fsGroupPolicy", out), fsGroupPolicies, "spec.fsGroupPolicy", out);
  validateTokenRequests(spec, out);
  for (const mode of readStringList(spec.volumeLifecycleModes, "spec.volumeLifecycleModes", out) ?? []) {
    if (!(volumeLifecycleModes as readonly string[]).includes(mode)) {
      out.push(notSupported("spec.volumeLifecycleModes", mode, volumeLifecycleModes));
    }
  }
  const periodPath = "spec.nodeAllocatableUpdatePeriodSeconds";
  const period = readInteger(spec.nodeAllocatableUpdatePeriodSeconds, periodPath, out);
  if (period !== undefined && period < minAllocatableUpdatePeriodSeconds) {
    out.push(invalid(periodPath, period, "must be greater than or equal to 10 seconds"));
  }
}

export function validateCsiDriver(driver: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(driver.metadata, driverMeta, out);
  validateDriverSpec(readObject(driver.spec, "spec", out) ?? {}, out);
}

export function validateCsiDriverUpdate(newDriver: JsonObject, oldDriver: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newDriver.metadata, oldDriver.metadata, out);
  validateCsiDriver(newDriver, out);
  const newSpec = readObject(newDriver.spec, "", []) ?? {};
  const oldSpec = readObject(oldDriver.spec, "", []) ?? {};
  const newAttach = newSpec.attachRequired ?? defaultAttachRequired;
  if (newAttach !== (oldSpec.attachRequired ?? defaultAttachRequired)) {
    out.push(invalid("spec.attachRequired", newAttach, immutableMessage));
  }
  if (!semanticEqual(newSpec.volumeLifecycleModes, oldSpec.volumeLifecycleModes)) {
    out.push(invalid("spec.volumeLifecycleModes", newSpec.volumeLifecycleModes ?? null, immutableMessage));
  }
}
