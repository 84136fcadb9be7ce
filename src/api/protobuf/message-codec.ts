/**
 * Kubernetes API objects between their JSON form and their protobuf messages, driven by the
 * generated schema (schema.json). The JSON side is what Go's encoding/json would write for the
 * same Go struct: a value field left at its zero value is absent when its tag says `omitempty`; a
 * pointer field is present whenever it is set, even at zero (`storageClassName: ""`,
 * `replicas: 0`); an inlined struct's fields sit in the parent. The special types travel as
 * Kubernetes marshals them: Time and MicroTime as seconds and nanos, Quantity as its string,
 * IntOrString as type/intVal/strVal, FieldsV1 and RawExtension as raw JSON bytes, byte fields as
 * bytes (base64 in JSON), maps as repeated key/value entries sorted by key.
 */
import { formatRfc3339, parseRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { FieldTable } from "./field-table.ts";
import {
  asDouble,
  asInt32,
  asInt64,
  bytesWire,
  ProtobufCodecError,
  packedVarints,
  type WireField,
  WireReader,
  WireWriter,
} from "./wire.ts";

export { ProtobufCodecError };

type Json = Record<string, unknown>;

type Scalar = "string" | "bool" | "int32" | "int64" | "float64" | "bytes";
type Special = "Time" | "MicroTime" | "Quantity" | "IntOrString" | "FieldsV1" | "RawExtension" | "Duration";

interface FieldSpec {
  json: string;
  number: number;
  shape: "single" | "repeated" | "map";
  pointer: boolean;
  omitempty: boolean;
  inline: boolean;
  /** A scalar, a special type or a message name. */
  value: string;
}

const scalars = new Set<string>(["string", "bool", "int32", "int64", "float64", "bytes"]);
const specials = new Set<string>([
  "Time",
  "MicroTime",
  "Quantity",
  "IntOrString",
  "FieldsV1",
  "RawExtension",
  "Duration",
]);

function fieldSpec([json, number, type, flag]: FieldTable[string][number]): FieldSpec {
  let rest = type;
  const pointer = rest.startsWith("*");
  if (pointer) rest = rest.slice(1);
  let shape: FieldSpec["shape"] = "single";
  if (rest.startsWith("[]")) {
    shape = "repeated";
    rest = rest.slice(2);
  } else if (rest.startsWith("map[string]")) {
    shape = "map";
    rest = rest.slice("map[string]".length);
  }
  rest = rest.replace(/^\*/, "");
  return { json, number, shape, pointer, omitempty: flag === "omitempty", inline: flag === "inline", value: rest };
}

function zeroOf(value: string): unknown {
  if (value === "string") return "";
  if (value === "bool") return false;
  if (value === "int32" || value === "int64" || value === "float64") return 0;
  if (value === "bytes") return "";
  return undefined;
}

function isZero(value: unknown): boolean {
  return value === "" || value === 0 || value === false;
}

/** Second precision and the fraction kept: `2026-01-02T03:04:05.123456Z` → seconds and nanos. */
function parseTime(text: string, field: string): { seconds: number; nanos: number } {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i.exec(text);
  const whole = match === null ? Number.NaN : parseRfc3339(`${match[1]}${match[3]}`);
  if (match === null || Number.isNaN(whole)) {
    throw new ProtobufCodecError(`${field}: ${JSON.stringify(text)} is not an RFC 3339 time`);
  }
  const nanos = Number((match[2] ?? "").padEnd(9, "0") || "0");
  return { seconds: Math.floor(whole / 1000), nanos };
}

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const base = formatRfc3339(seconds * 1000);
  if (!micro) return base;
  const micros = String(Math.floor(nanos / 1000)).padStart(6, "0");
  return `${base.slice(0, -1)}.${micros}Z`;
}

export class MessageCodec {
  private readonly specs = new Map<string, FieldSpec[]>();
  private readonly byNumber = new Map<string, Map<number, FieldSpec>>();

  constructor(private readonly messages: FieldTable) {}

  has(message: string): boolean {
    return this.messages[message] !== undefined;
  }

  private fields(message: string): FieldSpec[] {
    let specs = this.specs.get(message);
    if (specs === undefined) {
      const table = this.messages[message];
      if (table === undefined) throw new ProtobufCodecError(`the protobuf schema has no message ${message}`);
      // Go writes fields in ascending number order; so does this encoder.
      specs = table.map(fieldSpec).sort((a, b) => a.number - b.number);
      this.specs.set(message, specs);
      this.byNumber.set(message, new Map(specs.map((spec) => [spec.number, spec])));
    }
    return specs;
  }

  private fieldByNumber(message: string, number: number): FieldSpec | undefined {
    this.fields(message);
    return this.byNumber.get(message)?.get(number);
  }

  // ---- JSON → protobuf ----

  encode(message: string, object: Json, path = ""): Uint8Array {
    const writer = new WireWriter();
    for (const spec of this.fields(message)) {
      const where = path === "" ? spec.json : `${path}.${spec.json}`;
      if (spec.inline) {
        writer.bytes(spec.number, this.encode(spec.value, object, path));
        continue;
      }
      const value = object[spec.json];
      if (value === undefined || value === null) continue;
      if (spec.shape === "repeated") {
        if (!Array.isArray(value)) throw new ProtobufCodecError(`${where}: expected an array`);
        value.forEach((item, index) => {
          this.encodeValue(writer, spec.number, spec.value, item, `${where}[${index}]`);
        });
      } else if (spec.shape === "map") {
        if (typeof value !== "object" || Array.isArray(value)) throw new ProtobufCodecError(`${where}: expected a map`);
        const entries = Object.entries(value as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (const [key, item] of entries) {
          const entry = new WireWriter();
          entry.string(1, key);
          if (item !== null && item !== undefined) this.encodeValue(entry, 2, spec.value, item, `${where}[${key}]`);
          writer.bytes(spec.number, entry.finish());
        }
      } else {
        this.encodeValue(writer, spec.number, spec.value, value, where);
      }
    }
    return writer.finish();
  }

  private encodeValue(writer: WireWriter, number: number, type: string, value: unknown, where: string): void {
    if (scalars.has(type)) encodeScalar(writer, number, type as Scalar, value, where);
    else if (specials.has(type)) encodeSpecial(writer, number, type as Special, value, where);
    else if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new ProtobufCodecError(`${where}: expected an object`);
    } else writer.bytes(number, this.encode(type, value as Json, where));
  }

  // ---- protobuf → JSON ----

  decode(message: string, data: Uint8Array): Json {
    const result: Json = {};
    const inlined: Json[] = [];
    const reader = new WireReader(data);
    while (!reader.done()) {
      const field = reader.next();
      const spec = this.fieldByNumber(message, field.number);
      if (spec === undefined) continue; // a field from a newer Kubernetes: skipped, as proto decoders do
      if (spec.inline) {
        inlined.push(this.decode(spec.value, field.bytes));
      } else if (spec.shape === "repeated") {
        const list = (result[spec.json] as unknown[] | undefined) ?? [];
        if (field.wireType === bytesWire && isVarintType(spec.value)) {
          for (const varint of packedVarints(field.bytes)) list.push(varintValue(spec.value, varint));
        } else list.push(this.decodeValue(spec.value, field));
        result[spec.json] = list;
      } else if (spec.shape === "map") {
        const map = (result[spec.json] as Json | undefined) ?? {};
        const [key, value] = this.decodeEntry(spec.value, field.bytes);
        map[key] = value;
        result[spec.json] = map;
      } else {
        const value = this.decodeValue(spec.value, field);
        if (value === undefined) continue;
        if (!spec.pointer && spec.omitempty && isZero(value)) continue;
        result[spec.json] = value;
      }
    }
    for (const fields of inlined) Object.assign(result, fields);
    return result;
  }

  private decodeEntry(type: string, data: Uint8Array): [string, unknown] {
    const reader = new WireReader(data);
    let key = "";
    let value: unknown = zeroOf(type);
    while (!reader.done()) {
      const field = reader.next();
      if (field.number === 1) key = Buffer.from(field.bytes).toString("utf8");
      else if (field.number === 2) value = this.decodeValue(type, field);
    }
    return [key, value ?? {}];
  }

  private decodeValue(type: string, field: WireField): unknown {
    if (isVarintType(type)) return varintValue(type, field.varint);
    switch (type) {
      case "string":
        return Buffer.from(field.bytes).toString("utf8");
      case "bytes":
        return Buffer.from(field.bytes).toString("base64");
      case "float64":
        return asDouble(field.fixed);
      case "Time":
      case "MicroTime":
        return decodeTime(field.bytes, type === "MicroTime");
      case "Quantity":
        return decodeQuantity(field.bytes);
      case "IntOrString":
        return decodeIntOrString(field.bytes);
      case "FieldsV1":
      case "RawExtension":
        return decodeRawJson(field.bytes);
      case "Duration":
        throw new ProtobufCodecError("metav1.Duration fields are not decoded by this server");
      default:
        return this.decode(type, field.bytes);
    }
  }
}

function isVarintType(type: string): boolean {
  return type === "bool" || type === "int32" || type === "int64";
}

function varintValue(type: string, varint: bigint): unknown {
  if (type === "bool") return varint !== 0n;
  return type === "int32" ? asInt32(varint) : asInt64(varint);
}

function encodeScalar(writer: WireWriter, number: number, type: Scalar, value: unknown, where: string): void {
  switch (type) {
    case "string":
      if (typeof value === "object") throw new ProtobufCodecError(`${where}: expected a string`);
      writer.string(number, String(value));
      return;
    case "bool":
      if (typeof value !== "boolean") throw new ProtobufCodecError(`${where}: expected a boolean`);
      writer.bool(number, value);
      return;
    case "int32":
    case "int64":
    case "float64": {
      const numeric = typeof value === "string" ? Number(value) : value;
      if (typeof numeric !== "number" || Number.isNaN(numeric))
        throw new ProtobufCodecError(`${where}: expected a number`);
      if (type === "float64") writer.double(number, numeric);
      else writer.integer(number, numeric);
      return;
    }
    case "bytes":
      if (typeof value !== "string") throw new ProtobufCodecError(`${where}: expected base64 text`);
      writer.bytes(number, Buffer.from(value, "base64"));
      return;
  }
}

function encodeSpecial(writer: WireWriter, number: number, type: Special, value: unknown, where: string): void {
  const nested = new WireWriter();
  switch (type) {
    case "Time":
    case "MicroTime": {
      if (typeof value !== "string") throw new ProtobufCodecError(`${where}: expected an RFC 3339 time`);
      const { seconds, nanos } = parseTime(value, where);
      nested.integer(1, seconds);
      nested.integer(2, nanos);
      break;
    }
    case "Quantity":
      if (typeof value !== "string" && typeof value !== "number") {
        throw new ProtobufCodecError(`${where}: expected a quantity`);
      }
      nested.string(1, String(value));
      break;
    case "IntOrString":
      if (typeof value === "number") {
        nested.integer(1, 0);
        nested.integer(2, value);
        nested.string(3, "");
      } else if (typeof value === "string") {
        nested.integer(1, 1);
        nested.integer(2, 0);
        nested.string(3, value);
      } else throw new ProtobufCodecError(`${where}: expected an integer or a string`);
      break;
    case "FieldsV1":
    case "RawExtension":
      nested.bytes(1, Buffer.from(JSON.stringify(value), "utf8"));
      break;
    case "Duration":
      throw new ProtobufCodecError(`${where}: metav1.Duration fields are not encoded by this server`);
  }
  writer.bytes(number, nested.finish());
}

function fieldsOf(data: Uint8Array): Map<number, WireField> {
  const reader = new WireReader(data);
  const fields = new Map<number, WireField>();
  while (!reader.done()) {
    const field = reader.next();
    fields.set(field.number, field);
  }
  return fields;
}

/** Go writes a zero time as an empty message; that is an absent time in JSON. */
function decodeTime(data: Uint8Array, micro: boolean): string | undefined {
  if (data.length === 0) return undefined;
  const fields = fieldsOf(data);
  const seconds = asInt64(fields.get(1)?.varint ?? 0n);
  const nanos = asInt32(fields.get(2)?.varint ?? 0n);
  return formatTime(seconds, nanos, micro);
}

function decodeQuantity(data: Uint8Array): string {
  return Buffer.from(fieldsOf(data).get(1)?.bytes ?? new Uint8Array()).toString("utf8");
}

function decodeIntOrString(data: Uint8Array): number | string {
  const fields = fieldsOf(data);
  if ((fields.get(1)?.varint ?? 0n) === 1n)
    return Buffer.from(fields.get(3)?.bytes ?? new Uint8Array()).toString("utf8");
  return asInt32(fields.get(2)?.varint ?? 0n);
}

function decodeRawJson(data: Uint8Array): unknown {
  const raw = fieldsOf(data).get(1)?.bytes;
  if (raw === undefined || raw.length === 0) return undefined;
  const text = Buffer.from(raw).toString("utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProtobufCodecError(`raw JSON bytes do not parse: ${errorMessage(error)}`);
  }
}
