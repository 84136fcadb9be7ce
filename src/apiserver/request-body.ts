/**
 * Reading a request body: bounded in size (413 past `maxRequestBodyBytes`, as kube-apiserver),
 * decoded from JSON or YAML by Content-Type, and required to be one object. Every failure is a
 * Status that names what is wrong, so a client can fix its request.
 */
import type { IncomingMessage } from "node:http";
import { parse as parseYaml } from "yaml";
import { ApiError, badRequest } from "../api/errors.ts";
import { maxRequestBodyBytes } from "./constants.ts";
import { type JsonKeyScan, scanJsonKeys } from "./json-key-scan.ts";
import { decodeYamlWithKeys } from "./yaml-key-scan.ts";

export type BodyFormat = "json" | "yaml";

function tooLarge(): ApiError {
  return new ApiError(
    "RequestEntityTooLarge",
    `the request body is larger than the limit of ${maxRequestBodyBytes} bytes; split the object or send less data`,
  );
}

/** The raw body; stops reading (and fails with 413) as soon as it passes the limit. */
export async function readBodyText(request: IncomingMessage): Promise<string> {
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
  return Buffer.concat(chunks).toString("utf8");
}

/** The media type without parameters (`application/json; charset=utf-8` → `application/json`). */
export function mediaType(request: IncomingMessage): string {
  return (request.headers["content-type"] ?? "application/json").split(";")[0]?.trim().toLowerCase() ?? "";
}

function formatOf(type: string): BodyFormat {
  if (type === "application/yaml" || type === "application/x-yaml" || type === "text/yaml") return "yaml";
  if (type === "application/json" || type === "" || type.endsWith("+json")) return "json";
  throw new ApiError(
    "UnsupportedMediaType",
    `the body of the request has media type "${type}"; send application/json or application/yaml`,
  );
}

function decode(text: string, format: BodyFormat): unknown {
  try {
    return format === "yaml" ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const name = format === "yaml" ? "YAML" : "JSON";
    throw badRequest(`the request body is not valid ${name}: ${why}`);
  }
}

export interface ScannedBody {
  value: unknown;
  /** Repeated keys and where fields appear, for field validation. */
  scan: JsonKeyScan;
}

/** The body's value and what its text says about repeated keys (see field-validation.ts). */
export async function readBodyScanned(
  request: IncomingMessage,
  type: string = mediaType(request),
): Promise<ScannedBody> {
  const format = formatOf(type);
  const text = await readBodyText(request);
  if (text.trim() === "") throw badRequest("the request body is empty; send the object as JSON or YAML");
  if (format === "yaml") return decodeYamlWithKeys(text);
  return { value: decode(text, format), scan: scanJsonKeys(text) };
}

/** The scanned body as one object (an API object to create or update). */
export async function readBodyObjectScanned(
  request: IncomingMessage,
): Promise<{ object: Record<string, unknown>; scan: JsonKeyScan }> {
  const { value, scan } = await readBodyScanned(request);
  return { object: requireObject(value), scan };
}

/** Any JSON value from the body, decoded as its Content-Type says. */
export async function readBodyValue(request: IncomingMessage, type: string = mediaType(request)): Promise<unknown> {
  const format = formatOf(type);
  const text = await readBodyText(request);
  if (text.trim() === "") throw badRequest("the request body is empty; send the object as JSON or YAML");
  return decode(text, format);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The body as one object (an API object, a DeleteOptions, a Binding). */
export async function readBodyObject(request: IncomingMessage): Promise<Record<string, unknown>> {
  return requireObject(await readBodyValue(request));
}

function requireObject(value: unknown): Record<string, unknown> {
  if (!isPlainObject(value)) {
    const got = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    throw badRequest(`the request body must be one object, but it is ${got}`);
  }
  return value;
}
