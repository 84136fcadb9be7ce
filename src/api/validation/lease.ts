/**
 * Lease validation (coordination's ValidateLease): the lease controllers elect their leader with
 * must have a positive duration and a non-negative transition count.
 */
import type { FieldCause } from "../errors.ts";
import { invalid } from "./field-errors.ts";
import { type JsonObject, readInteger, readObject, readString } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";

const leaseMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

export function validateLease(lease: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(lease.metadata, leaseMeta, out);
  const spec = readObject(lease.spec, "spec", out) ?? {};
  const duration = readInteger(spec.leaseDurationSeconds, "spec.leaseDurationSeconds", out);
  if (duration !== undefined && duration <= 0)
    out.push(invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
  const transitions = readInteger(spec.leaseTransitions, "spec.leaseTransitions", out);
  if (transitions !== undefined && transitions < 0) {
    out.push(invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"));
  }
  for (const field of ["holderIdentity", "acquireTime", "renewTime"]) readString(spec[field], `spec.${field}`, out);
}

export function validateLeaseUpdate(newLease: JsonObject, oldLease: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newLease.metadata, oldLease.metadata, out);
  validateLease(newLease, out);
}
