/**
 * `fetch` trusting a given certificate authority, for tests that call an API server over
 * `https://` with a bearer token: Node's built-in fetch takes no per-request CA, so this one
 * sends through node:https (node:http for `http://`) and answers with a standard Response whose
 * body streams (watches read it as it comes).
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/** Statuses whose Response has no body. */
const nullBodyStatuses = new Set([101, 204, 205, 304]);

function bodyOf(init: RequestInit): string | Uint8Array | undefined {
  const { body } = init;
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  throw new Error("fetchTrusting sends string and byte bodies only");
}

function responseOf(message: IncomingMessage, method: string, signal: AbortSignal | null | undefined): Response {
  // As fetch does: aborting ends a body being read with an AbortError.
  signal?.addEventListener(
    "abort",
    () => message.destroy(new DOMException("This operation was aborted", "AbortError")),
    {
      once: true,
    },
  );
  const headers = new Headers();
  for (let index = 0; index < message.rawHeaders.length; index += 2) {
    headers.append(message.rawHeaders[index] ?? "", message.rawHeaders[index + 1] ?? "");
  }
  const status = message.statusCode ?? 0;
  const empty = nullBodyStatuses.has(status) || method === "HEAD";
  if (empty) message.resume();
  const body = empty ? null : (Readable.toWeb(message) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: message.statusMessage ?? "", headers });
}

/** A fetch that verifies an `https://` server's certificate against `caPem` (and its host name). */
export function fetchTrusting(caPem: string): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return (input, init = {}) =>
    new Promise((resolve, reject) => {
      const url = new URL(String(input));
      const method = init.method ?? "GET";
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const outgoing = send(
        url,
        {
          method,
          headers: Object.fromEntries(new Headers(init.headers).entries()),
          ...(url.protocol === "https:" ? { ca: caPem } : {}),
          ...(init.signal === undefined || init.signal === null ? {} : { signal: init.signal }),
        },
        (message) => resolve(responseOf(message, method, init.signal)),
      );
      outgoing.on("error", reject);
      outgoing.end(bodyOf(init));
    });
}
