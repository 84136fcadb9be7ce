/**
 * Kubernetes' protobuf serialization of a whole object: the four magic bytes `k8s\0`, then a
 * `runtime.Unknown` (typeMeta {apiVersion, kind}, raw, contentEncoding, contentType) whose `raw`
 * is the object's own message. Encoding and decoding go through the generated schema; a kind the
 * schema does not hold has no protobuf form (it travels as JSON only).
 */
import { readFileSync } from "node:fs";
import type { ProtobufSchema } from "./generate.ts";
import { MessageCodec, ProtobufCodecError } from "./message-codec.ts";
import { WireReader, WireWriter } from "./wire.ts";

export const protobufMediaType = "application/vnd.kubernetes.protobuf";

/** `k8s\0` */
const protobufMagic = Uint8Array.from([0x6b, 0x38, 0x73, 0x00]);

const schema = JSON.parse(readFileSync(new URL("./schema.json", import.meta.url), "utf8")) as ProtobufSchema;
const codec = new MessageCodec(schema.messages);

export { ProtobufCodecError };

type Json = Record<string, unknown>;

export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

/**
 * Kinds every group version registers (client-go types a DeleteOptions body with the group
 * version it talks to: `apps/v1`, `policy/v1`).
 */
const everyGroupVersionKinds = new Set(["DeleteOptions", "Status", "WatchEvent"]);

/** The message name of a kind, or undefined when it has no protobuf form. */
function protobufMessageFor(apiVersion: string, kind: string): string | undefined {
  const found = schema.kinds[`${apiVersion}/${kind}`];
  if (found !== undefined || !everyGroupVersionKinds.has(kind)) return found;
  return schema.kinds[`meta.k8s.io/v1/${kind}`];
}

export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return protobufMessageFor(apiVersion, kind) !== undefined;
}

function envelope(typeMeta: TypeMeta, raw: Uint8Array): Uint8Array {
  const writer = new WireWriter();
  writer.bytes(1, typeMetaMessage(typeMeta));
  writer.bytes(2, raw);
  writer.string(3, "");
  writer.string(4, "");
  return Buffer.concat([protobufMagic, writer.finish()]);
}

function typeMetaMessage(typeMeta: TypeMeta): Uint8Array {
  const writer = new WireWriter();
  writer.string(1, typeMeta.apiVersion);
  writer.string(2, typeMeta.kind);
  return writer.finish();
}

/** The object (its own apiVersion and kind unless given) in the k8s envelope. */
export function encodeObject(object: Json, typeMeta?: TypeMeta): Uint8Array {
  const meta = typeMeta ?? { apiVersion: String(object.apiVersion ?? ""), kind: String(object.kind ?? "") };
  const message = protobufMessageFor(meta.apiVersion, meta.kind);
  if (message === undefined) throw new ProtobufCodecError(`${meta.apiVersion} ${meta.kind} has no protobuf form`);
  return envelope(meta, codec.encode(message, object));
}

/** A message already encoded (a WatchEvent built around an enveloped object). */
export function encodeEnveloped(typeMeta: TypeMeta, raw: Uint8Array): Uint8Array {
  return envelope(typeMeta, raw);
}

/** A WatchEvent message: its type and the object's envelope as a RawExtension. */
export function watchEventMessage(type: string, enveloped: Uint8Array): Uint8Array {
  const raw = new WireWriter();
  raw.bytes(1, enveloped);
  const writer = new WireWriter();
  writer.string(1, type);
  writer.bytes(2, raw.finish());
  return writer.finish();
}

interface Unknown {
  typeMeta: TypeMeta;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

function startsWithMagic(data: Uint8Array): boolean {
  return data.length >= protobufMagic.length && protobufMagic.every((byte, index) => data[index] === byte);
}

/** The envelope's parts; a body without the magic prefix is refused with Kubernetes' words. */
export function decodeUnknown(data: Uint8Array): Unknown {
  if (!startsWithMagic(data)) {
    throw new ProtobufCodecError(
      `provided data does not appear to be a protobuf message, expected prefix [${[...protobufMagic].join(" ")}]`,
    );
  }
  const reader = new WireReader(data.subarray(protobufMagic.length));
  const unknown: Unknown = {
    typeMeta: { apiVersion: "", kind: "" },
    raw: new Uint8Array(),
    contentEncoding: "",
    contentType: "",
  };
  while (!reader.done()) {
    const field = reader.next();
    const text = (): string => Buffer.from(field.bytes).toString("utf8");
    if (field.number === 1) {
      const meta = new WireReader(field.bytes);
      while (!meta.done()) {
        const part = meta.next();
        const value = Buffer.from(part.bytes).toString("utf8");
        if (part.number === 1) unknown.typeMeta.apiVersion = value;
        else if (part.number === 2) unknown.typeMeta.kind = value;
      }
    } else if (field.number === 2) unknown.raw = field.bytes;
    else if (field.number === 3) unknown.contentEncoding = text();
    else if (field.number === 4) unknown.contentType = text();
  }
  return unknown;
}

/**
 * The JSON object an enveloped message carries, apiVersion and kind first. An envelope without a
 * type (some clients leave it empty) is read as `fallback`.
 */
export function decodeObject(data: Uint8Array, fallback?: TypeMeta): Json {
  const unknown = decodeUnknown(data);
  const typeMeta =
    unknown.typeMeta.kind === "" && fallback !== undefined
      ? { apiVersion: unknown.typeMeta.apiVersion || fallback.apiVersion, kind: fallback.kind }
      : unknown.typeMeta;
  const message = protobufMessageFor(typeMeta.apiVersion, typeMeta.kind);
  if (message === undefined) {
    throw new ProtobufCodecError(`no kind "${typeMeta.kind}" is registered for version "${typeMeta.apiVersion}"`);
  }
  return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...codec.decode(message, unknown.raw) };
}

/** Every apiVersion/kind pair with a protobuf form (the round-trip test walks them). */
export function protobufKinds(): TypeMeta[] {
  return Object.keys(schema.kinds).map((key) => {
    const slash = key.lastIndexOf("/");
    return { apiVersion: key.slice(0, slash), kind: key.slice(slash + 1) };
  });
}

/** A WatchEvent frame's envelope read back: its type and its object (the RawExtension holds the object's envelope). */
export function decodeWatchEvent(data: Uint8Array): { type: string; object: Json } {
  const unknown = decodeUnknown(data);
  if (unknown.typeMeta.kind !== "WatchEvent") {
    throw new ProtobufCodecError(`expected a WatchEvent, got ${JSON.stringify(unknown.typeMeta)}`);
  }
  let type = "";
  let raw: Uint8Array = new Uint8Array();
  const reader = new WireReader(unknown.raw);
  while (!reader.done()) {
    const field = reader.next();
    if (field.number === 1) type = Buffer.from(field.bytes).toString("utf8");
    else if (field.number === 2) {
      const extension = new WireReader(field.bytes);
      while (!extension.done()) {
        const part = extension.next();
        if (part.number === 1) raw = part.bytes;
      }
    }
  }
  return { type, object: decodeObject(raw) };
}
