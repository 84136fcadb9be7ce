/**
 * Event validation (core's ValidateEventCreate): an event lives in its object's namespace —
 * events about cluster-scoped objects (nodes, PersistentVolumes) in `default` — and events with an
 * eventTime (the events.k8s.io style) name their reporter, action and reason.
 */
import type { FieldCause } from "../errors.ts";
import { checkQualifiedName, immutableMessage } from "./field-checks.ts";
import { invalid, required } from "./field-errors.ts";
import { type JsonObject, readObject, readString } from "./json-reader.ts";
import { byteLength, nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { semanticEqual } from "./semantic-equal.ts";

const eventMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };
const defaultNamespace = "default";
const systemNamespace = "kube-system";
const namespaceMismatch = "does not match event.namespace";
/** Length limits of events with an eventTime, in bytes. */
const maxReportingInstanceLength = 128;
const maxActionLength = 128;
const maxReasonLength = 128;
const maxNoteLength = 1024;

function validateReportedFields(event: JsonObject, out: FieldCause[]): void {
  const controller = readString(event.reportingComponent, "reportingComponent", out) ?? "";
  if (controller === "") out.push(required("reportingComponent"));
  else checkQualifiedName(controller, "reportingComponent", out);
  const limits: ReadonlyArray<[string, number, boolean]> = [
    ["reportingInstance", maxReportingInstanceLength, true],
    ["action", maxActionLength, true],
    ["reason", maxReasonLength, true],
    ["message", maxNoteLength, false],
  ];
  for (const [field, maxLength, isRequired] of limits) {
    const value = readString(event[field], field, out) ?? "";
    if (isRequired && value === "") out.push(required(field));
    if (byteLength(value) > maxLength) out.push(invalid(field, "", `can have at most ${maxLength} characters`));
  }
}

export function validateEvent(event: JsonObject, out: FieldCause[]): void {
  const meta = validateObjectMeta(event.metadata, eventMeta, out);
  const namespace = typeof meta.namespace === "string" ? meta.namespace : "";
  const involved = readObject(event.involvedObject, "involvedObject", out) ?? {};
  const involvedNamespace = readString(involved.namespace, "involvedObject.namespace", out) ?? "";
  const hasEventTime = event.eventTime !== undefined && event.eventTime !== null;
  if (!hasEventTime) {
    const matches =
      involvedNamespace === "" ? namespace === "" || namespace === defaultNamespace : namespace === involvedNamespace;
    if (!matches) out.push(invalid("involvedObject.namespace", involvedNamespace, namespaceMismatch));
    return;
  }
  if (involvedNamespace === "" && namespace !== defaultNamespace && namespace !== systemNamespace) {
    out.push(invalid("involvedObject.namespace", involvedNamespace, namespaceMismatch));
  }
  validateReportedFields(event, out);
}

export function validateEventUpdate(newEvent: JsonObject, oldEvent: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newEvent.metadata, oldEvent.metadata, out);
  validateEvent(newEvent, out);
  // The recorder updates count and timestamps of a repeated event; what it is about never changes.
  for (const field of ["involvedObject", "reason"]) {
    if (!semanticEqual(newEvent[field], oldEvent[field]))
      out.push(invalid(field, newEvent[field] ?? "", immutableMessage));
  }
}
