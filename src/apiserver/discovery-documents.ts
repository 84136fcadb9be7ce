/**
 * The documents clients read to learn the API before using it, beyond the plain discovery
 * lists: aggregated discovery at `/api` and `/apis` (when `Accept` asks for it) and the OpenAPI
 * documents under `/openapi/`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  aggregatedContentType,
  aggregatedCoreDiscovery,
  aggregatedGroupsDiscovery,
  negotiateAggregatedDiscovery,
} from "./discovery-aggregated.ts";
import { openApiV2Document } from "./openapi-v2.ts";
import { encodeOpenApiV2, openApiV2ProtobufContentType, openApiV2ProtobufMediaPrefix } from "./openapi-v2-protobuf.ts";
import { openApiV3Document, openApiV3Index } from "./openapi-v3.ts";

const openApiV3Prefix = "/openapi/v3/";

function sendText(response: ServerResponse, contentType: string, text: string | Uint8Array, extraHeaders = {}): void {
  response.writeHead(200, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(text),
    ...extraHeaders,
  });
  response.end(text);
}

/** Both forms of the v2 document, built on first request: the document never changes while serving. */
let openApiV2Forms: { json: string; protobuf: Uint8Array } | undefined;

function serveOpenApiV2(request: IncomingMessage, response: ServerResponse, pathname: string): boolean {
  if (pathname !== "/openapi/v2") return false;
  if (openApiV2Forms === undefined) {
    const document = openApiV2Document();
    openApiV2Forms = { json: JSON.stringify(document), protobuf: encodeOpenApiV2(document) };
  }
  const wantsProtobuf = (request.headers.accept ?? "").includes(openApiV2ProtobufMediaPrefix);
  if (wantsProtobuf) sendText(response, openApiV2ProtobufContentType, openApiV2Forms.protobuf, { Vary: "Accept" });
  else sendText(response, "application/json", openApiV2Forms.json, { Vary: "Accept" });
  return true;
}

function serveAggregatedDiscovery(request: IncomingMessage, response: ServerResponse, pathname: string): boolean {
  if (pathname !== "/api" && pathname !== "/apis") return false;
  const version = negotiateAggregatedDiscovery(request.headers.accept);
  if (version === undefined) return false;
  const document = pathname === "/api" ? aggregatedCoreDiscovery(version) : aggregatedGroupsDiscovery(version);
  sendText(response, aggregatedContentType(version), JSON.stringify(document), { Vary: "Accept" });
  return true;
}

function serveOpenApiV3(response: ServerResponse, pathname: string): boolean {
  if (pathname === "/openapi/v3" || pathname === "/openapi/v3/") {
    sendText(response, "application/json", JSON.stringify(openApiV3Index()));
    return true;
  }
  if (!pathname.startsWith(openApiV3Prefix)) return false;
  const document = openApiV3Document(pathname.slice(openApiV3Prefix.length));
  if (document === undefined) return false;
  // The hash in the index URL names this exact content, so clients may cache it for good.
  sendText(response, "application/json", document.text, { ETag: `"${document.hash}"` });
  return true;
}

/**
 * Serves the request when it asks for one of these documents; false when it does not, so the
 * router goes on (an unknown /openapi/ path ends as its 404).
 */
export function serveDiscoveryDocument(request: IncomingMessage, response: ServerResponse, url: URL): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  return (
    serveAggregatedDiscovery(request, response, url.pathname) ||
    serveOpenApiV3(response, url.pathname) ||
    serveOpenApiV2(request, response, url.pathname)
  );
}
