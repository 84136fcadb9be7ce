/**
 * Builders for field-level problems, worded as Kubernetes' field.Error.ErrorBody() words them
 * (`Required value`, `Invalid value: "xyz": <detail>`, `Unsupported value: "Foo": supported values:
 * "a", "b"`), so every validator produces messages a Kubernetes user recognises.
 */
import { goQuote } from "../../runtime/go-quote.ts";
import type { FieldCause } from "../errors.ts";

/** Kubernetes' field.ErrorType values (metav1.CauseType). */
type FieldReason =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueDuplicate"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueNotFound"
  | "FieldValueTypeInvalid";

/** A value already written out (a Go map literal, for instance), printed as it is. */
class RenderedValue {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** How a bad value appears in a message: strings quoted as Go's %q, numbers bare, the rest as JSON. */
function renderValue(value: unknown): string {
  if (value instanceof RenderedValue) return value.text;
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "null";
  return JSON.stringify(value) ?? "null";
}

/** A string map as Go's %#v prints it (`map[string]string{"app":"web"}`), keys sorted as Go sorts them. */
export function goStringMap(map: Readonly<Record<string, string>> | undefined): RenderedValue {
  if (map === undefined) return new RenderedValue("map[string]string(nil)");
  const entries = Object.keys(map)
    .sort()
    .map((mapKey) => `${goQuote(mapKey)}:${goQuote(map[mapKey] ?? "")}`);
  return new RenderedValue(`map[string]string{${entries.join(", ")}}`);
}

function cause(reason: FieldReason, field: string, summary: string, detail: string): FieldCause {
  return { field, reason, message: detail === "" ? summary : `${summary}: ${detail}` };
}

export function required(field: string, detail = ""): FieldCause {
  return cause("FieldValueRequired", field, "Required value", detail);
}

export function invalid(field: string, value: unknown, detail: string): FieldCause {
  return cause("FieldValueInvalid", field, `Invalid value: ${renderValue(value)}`, detail);
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldCause {
  const detail = supported.length === 0 ? "" : `supported values: ${supported.map(goQuote).join(", ")}`;
  return cause("FieldValueNotSupported", field, `Unsupported value: ${renderValue(value)}`, detail);
}

export function duplicate(field: string, value: unknown, detail = ""): FieldCause {
  return cause("FieldValueDuplicate", field, `Duplicate value: ${renderValue(value)}`, detail);
}

export function forbidden(field: string, detail: string): FieldCause {
  return cause("FieldValueForbidden", field, "Forbidden", detail);
}

export function notFound(field: string, value: unknown): FieldCause {
  return cause("FieldValueNotFound", field, `Not found: ${renderValue(value)}`, "");
}

export function tooLong(field: string, maxLengthBytes: number): FieldCause {
  return cause("FieldValueTooLong", field, "Too long", `must have at most ${maxLengthBytes} bytes`);
}

/** The JSON type of a value, as OpenAPI names it. */
function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * A value of the wrong JSON type, worded as Kubernetes words schema type errors:
 * `Invalid value: "string": spec.accessModes in body must be of type array: "string"`.
 */
export function typeInvalid(field: string, value: unknown, expectedType: string): FieldCause {
  const actual = jsonTypeName(value);
  const subject = field === "" ? "body" : `${field} in body`;
  return cause(
    "FieldValueTypeInvalid",
    field,
    `Invalid value: ${goQuote(actual)}`,
    `${subject} must be of type ${expectedType}: ${goQuote(actual)}`,
  );
}
