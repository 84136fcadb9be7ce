/**
 * Reading a request body: bounded in size (413 past `maxRequestBodyBytes`, as kube-apiserver),
 * decoded from JSON, YAML or (for kinds that have that form) Kubernetes' protobuf by Content-Type,
 * and required to be one object. Every failure is a Status that names what is wrong, so a client
 * can fix its request; a Content-Type the resource does not read is a 415 in kube-apiserver's words.
 */
import type { IncomingMessage } from "node:http";
import { parse as parseYaml } from "yaml";
import { ApiError, badRequest } from "../api/errors.ts";
import { decodeObject, ProtobufCodecError, type TypeMeta } from "../api/protobuf/envelope.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { maxRequestBodyBytes } from "./constants.ts";
import { type JsonKeyScan, scanJsonKeys } from "./json-key-scan.ts";
import { mediaTypeOf, protobufMediaType, serializersFor } from "./media-types.ts";
import { decodeYamlWithKeys } from "./yaml-key-scan.ts";

type BodyFormat = "json" | "yaml" | "protobuf";

export interface BodyOptions {
  /** The resource reads protobuf bodies (a built-in kind, a DeleteOptions, an Eviction). */
  protobuf?: boolean;
  /** The type of a protobuf body whose envelope leaves it out. */
  expected?: TypeMeta;
}

function tooLarge(): ApiError {
  return new ApiError(
    "RequestEntityTooLarge",
    `the request body is larger than the limit of ${maxRequestBodyBytes} bytes; split the object or send less data`,
  );
}

/** The raw body; stops reading (and fails with 413) as soon as it passes the limit. */
export async function readBodyText(request: IncomingMessage): Promise<string> {
  return (await readBodyBytes(request)).toString("utf8");
}

async function readBodyBytes(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > maxRequestBodyBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxRequestBodyBytes) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** The media type without parameters (`application/json; charset=utf-8` → `application/json`). */
export function mediaType(request: IncomingMessage): string {
  return (request.headers["content-type"] ?? "application/json").split(";")[0]?.trim().toLowerCase() ?? "";
}

function unsupportedMediaType(protobuf: boolean): ApiError {
  const accepted = serializersFor(protobuf).map((serializer) => mediaTypeOf[serializer]);
  return new ApiError(
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );
}

function formatOf(type: string, protobuf: boolean): BodyFormat {
  if (type === "application/yaml" || type === "application/x-yaml" || type === "text/yaml") return "yaml";
  if (type === "application/json" || type === "" || type.endsWith("+json")) return "json";
  if (type === protobufMediaType && protobuf) return "protobuf";
  throw unsupportedMediaType(protobuf);
}

function decodeProtobuf(body: Buffer, expected: TypeMeta | undefined): Record<string, unknown> {
  try {
    return decodeObject(body, expected);
  } catch (error) {
    if (!(error instanceof ProtobufCodecError) && !(error instanceof RangeError)) throw error;
    throw badRequest(`the request body is not a valid protobuf object: ${error.message}`);
  }
}

function decode(text: string, format: BodyFormat): unknown {
  try {
    return format === "yaml" ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    const why = errorMessage(error);
    const name = format === "yaml" ? "YAML" : "JSON";
    throw badRequest(`the request body is not valid ${name}: ${why}`);
  }
}

interface ScannedBody {
  value: unknown;
  /** Repeated keys and where fields appear, for field validation (none in a protobuf body). */
  scan: JsonKeyScan;
}

/**
 * The body's value and what its text says about repeated keys (see field-validation.ts). A
 * protobuf body cannot repeat a key or name an unknown field, so its scan is empty.
 */
export async function readBodyScanned(
  request: IncomingMessage,
  type: string = mediaType(request),
  options: BodyOptions = {},
): Promise<ScannedBody> {
  const format = formatOf(type, options.protobuf === true);
  const body = await readBodyBytes(request);
  if (format === "protobuf") {
    return { value: decodeProtobuf(body, options.expected), scan: { duplicates: [], firstOffsets: new Map() } };
  }
  const text = body.toString("utf8");
  if (text.trim() === "") throw badRequest("the request body is empty; send the object as JSON or YAML");
  if (format === "yaml") return decodeYamlWithKeys(text);
  return { value: decode(text, format), scan: scanJsonKeys(text) };
}

/** The scanned body as one object (an API object to create or update). */
export async function readBodyObjectScanned(
  request: IncomingMessage,
  options: BodyOptions = {},
): Promise<{ object: Record<string, unknown>; scan: JsonKeyScan }> {
  const { value, scan } = await readBodyScanned(request, mediaType(request), options);
  return { object: requireObject(value), scan };
}

/** Any JSON value from the body, decoded as its Content-Type says (a protobuf body as the JSON of its object). */
export async function readBodyValue(
  request: IncomingMessage,
  type: string = mediaType(request),
  options: BodyOptions = {},
): Promise<unknown> {
  const format = formatOf(type, options.protobuf === true);
  const body = await readBodyBytes(request);
  if (format === "protobuf") return decodeProtobuf(body, options.expected);
  const text = body.toString("utf8");
  if (text.trim() === "") throw badRequest("the request body is empty; send the object as JSON or YAML");
  return decode(text, format);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The body as one object (an API object, a DeleteOptions, a Binding). */
export async function readBodyObject(
  request: IncomingMessage,
  options: BodyOptions = {},
): Promise<Record<string, unknown>> {
  return requireObject(await readBodyValue(request, mediaType(request), options));
}

function requireObject(value: unknown): Record<string, unknown> {
  if (!isPlainObject(value)) {
    const got = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    throw badRequest(`the request body must be one object, but it is ${got}`);
  }
  return value;
}
