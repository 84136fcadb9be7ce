/**
 * Writing responses: objects in the representation the client negotiated (JSON, YAML or
 * Kubernetes' protobuf) and metav1.Status errors. Every error a handler throws ends here, so a
 * client always receives a Status with the same reason and code the store used, in protobuf when
 * it asked for protobuf on a resource that has that form.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { stringify as toYaml } from "yaml";
import { ApiError } from "../api/errors.ts";
import { encodeObject, hasProtobuf } from "../api/protobuf/envelope.ts";
import { apiVersionOf } from "../api/resources.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { mediaTypeOf, type Serializer } from "./media-types.ts";
import type { ResourceRequest } from "./request-context.ts";
import { parseResourcePath, pathSegments } from "./request-path.ts";
import { negotiateOutput, type OutputChoice } from "./table-negotiation.ts";

function send(response: ServerResponse, code: number, contentType: string, body: string | Uint8Array): void {
  response.writeHead(code, {
    "Content-Type": contentType,
    "Content-Length": typeof body === "string" ? Buffer.byteLength(body) : body.length,
  });
  response.end(body);
}

export function sendJson(response: ServerResponse, code: number, body: unknown): void {
  send(response, code, mediaTypeOf.json, JSON.stringify(body));
}

/** The body in the negotiated representation; protobuf needs the body's apiVersion and kind. */
export function sendAs(response: ServerResponse, code: number, body: unknown, serializer: Serializer): void {
  if (serializer === "protobuf")
    send(response, code, mediaTypeOf.protobuf, encodeObject(body as Record<string, unknown>));
  else if (serializer === "yaml") send(response, code, mediaTypeOf.yaml, toYaml(body));
  else sendJson(response, code, body);
}

/** Whether the request's resource has a protobuf form (built-in kinds do; kinds without a schema do not). */
export function resourceHasProtobuf(context: ResourceRequest): boolean {
  const type = context.path.type;
  return hasProtobuf(apiVersionOf(type), type.kind);
}

/** The representation a resource request asked for (406 when it accepts nothing this resource has). */
export function outputChoice(context: ResourceRequest): OutputChoice {
  return negotiateOutput(context.request, context.query, resourceHasProtobuf(context));
}

type Reply = (code: number, body: unknown) => void;

/**
 * Negotiates now (a 406 before anything is written, as kube-apiserver refuses before acting) and
 * answers later with an API object or a Status in the representation the client asked for.
 */
export function replyFor(context: ResourceRequest): Reply {
  const serializer = outputChoice(context).serializer;
  return (code, body) => sendAs(context.response, code, body, serializer);
}

/** An ApiError as it is; anything else as a 500 InternalError naming what went wrong. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = errorMessage(error);
  return new ApiError("InternalError", `Internal error occurred: ${message}`);
}

/** The representation of an error: protobuf only on a protobuf resource whose client prefers it. */
function errorSerializer(request: IncomingMessage | undefined): Serializer {
  if (request === undefined) return "json";
  const url = new URL(request.url ?? "/", "http://apiserver");
  const path = parseResourcePath(pathSegments(url.pathname));
  if (path === undefined || !hasProtobuf(apiVersionOf(path.type), path.type.kind)) return "json";
  try {
    const choice = negotiateOutput(request, url.searchParams, true);
    return choice.table === undefined ? choice.serializer : "json";
  } catch {
    // Nothing acceptable: the error still has to reach the client, in JSON as kube-apiserver sends it.
    return "json";
  }
}

export function sendError(response: ServerResponse, error: ApiError, request?: IncomingMessage): void {
  sendAs(response, error.code, error.toStatus(), errorSerializer(request));
}
