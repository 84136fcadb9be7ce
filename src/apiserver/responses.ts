/**
 * Writing responses: JSON bodies and metav1.Status errors. Every error a handler throws ends here,
 * so a client always receives a Status with the same reason and code the store used.
 */
import type { ServerResponse } from "node:http";
import { ApiError } from "../api/errors.ts";

export function sendJson(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(code, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
  });
  response.end(text);
}

/** An ApiError as it is; anything else as a 500 InternalError naming what went wrong. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError("InternalError", `Internal error occurred: ${message}`);
}

export function sendError(response: ServerResponse, error: ApiError): void {
  sendJson(response, error.code, error.toStatus());
}
