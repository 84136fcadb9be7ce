/**
 * Small checks shared by every kind: a value against a name format, a closed set of values, a
 * range. Each appends Kubernetes-worded causes to `out`.
 */
import type { FieldCause } from "../errors.ts";
import { invalid, notSupported, required, tooLong } from "./field-errors.ts";
import { byteLength, dns1123LabelProblems, dns1123SubdomainProblems, qualifiedNameProblems } from "./names.ts";

export const negativeMessage = "must be greater than or equal to 0";
export const notPositiveMessage = "must be greater than zero";
export const immutableMessage = "field is immutable";
/** File modes of projected files: 0 to 0777 (octal). */
const maxFileMode = 0o777;
const fileModeMessage = "must be a number between 0 and 0777 (octal), both inclusive";
/** CSI driver names are at most 63 characters (a CSI limit, not a DNS one). */
const csiDriverNameMaxLength = 63;

function eachProblem(problems: readonly string[], path: string, value: string, out: FieldCause[]): void {
  for (const problem of problems) out.push(invalid(path, value, problem));
}

export function checkDnsLabel(value: string, path: string, out: FieldCause[]): void {
  eachProblem(dns1123LabelProblems(value), path, value, out);
}

export function checkDnsSubdomain(value: string, path: string, out: FieldCause[]): void {
  eachProblem(dns1123SubdomainProblems(value), path, value, out);
}

export function checkQualifiedName(value: string, path: string, out: FieldCause[]): void {
  eachProblem(qualifiedNameProblems(value), path, value, out);
}

/** Kubernetes' InclusiveRangeError. */
export function inclusiveRangeMessage(low: number, high: number): string {
  return `must be between ${low} and ${high}, inclusive`;
}

export function checkNonNegative(value: number | undefined, path: string, out: FieldCause[]): void {
  if (value !== undefined && value < 0) out.push(invalid(path, value, negativeMessage));
}

/** A value from a closed set; `supported` is listed in the message as Kubernetes lists it (sorted). */
export function checkOneOf(
  value: string | undefined,
  supported: readonly string[],
  path: string,
  out: FieldCause[],
): void {
  if (value !== undefined && !supported.includes(value)) out.push(notSupported(path, value, supported));
}

export function checkFileMode(mode: number | undefined, path: string, out: FieldCause[]): void {
  if (mode !== undefined && (mode < 0 || mode > maxFileMode)) out.push(invalid(path, mode, fileModeMessage));
}

/**
 * A CSI driver name (`hostpath.csi.k8s.io`): required, at most 63 characters, a DNS subdomain once
 * lower-cased. An empty name reports only that it is required.
 */
export function checkCsiDriverName(name: string | undefined, path: string, out: FieldCause[]): void {
  if (name === undefined || name === "") {
    out.push(required(path));
    return;
  }
  if (byteLength(name) > csiDriverNameMaxLength) out.push(tooLong(path, csiDriverNameMaxLength));
  eachProblem(dns1123SubdomainProblems(name.toLowerCase()), path, name, out);
}

/** No `..` element (Kubernetes' validatePathNoBacksteps). */
export function checkNoBacksteps(target: string, path: string, out: FieldCause[]): void {
  if (target.replaceAll("\\", "/").split("/").includes("..")) out.push(invalid(path, target, "must not contain '..'"));
}

/** A relative path without `..` elements (validateLocalDescendingPath). */
export function checkLocalDescendingPath(target: string, path: string, out: FieldCause[]): void {
  if (target.startsWith("/")) out.push(invalid(path, target, "must be a relative path"));
  checkNoBacksteps(target, path, out);
}

/** A relative path that also does not start with `..` (ValidateLocalNonReservedPath). */
export function checkLocalNonReservedPath(target: string, path: string, out: FieldCause[]): void {
  checkLocalDescendingPath(target, path, out);
  if (target.startsWith("..") && !target.startsWith("../")) out.push(invalid(path, target, "must not start with '..'"));
}
