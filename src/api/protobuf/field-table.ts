/**
 * The protobuf field table: every Kubernetes API struct kvol may encode, with each field's JSON
 * name, protobuf field number and Go type, as the struct tags of k8s.io/api and
 * k8s.io/apimachinery declare them (scripts/extract-protobuf-fields.ts reads them from a checkout).
 * The schema the codec uses is generated from it (scripts/generate-protobuf-schema.ts).
 *
 * Types: `string`, `bool`, `int32`, `int64`, `float64`, `bytes`, the self-marshalling `Time`,
 * `MicroTime`, `Duration`, `FieldsV1`, `Quantity`, `IntOrString`, `RawExtension`, a qualified
 * struct name, and `*T` (a pointer: present even when zero), `[]T`, `map[string]T`.
 * Flags: `inline` (an embedded struct: its fields are the parent's in JSON, a nested message on
 * the wire), `omitempty` (JSON leaves the zero value out).
 */
import { readFileSync } from "node:fs";

export type TableField = [json: string, number: number, type: string, flag?: "inline" | "omitempty"];

export type FieldTable = Record<string, TableField[]>;

export const fieldTablePath = new URL("./field-table.json", import.meta.url);

export function readFieldTable(): FieldTable {
  return JSON.parse(readFileSync(fieldTablePath, "utf8")) as FieldTable;
}
