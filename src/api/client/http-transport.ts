/**
 * The wire side of HttpClient: requests to a Kubernetes API server over keep-alive connections
 * (http-connection.ts), JSON bodies, an optional bearer token, and failures turned back into the
 * ApiError the server's Status describes (same reason, code, message and details), so callers
 * branch on `reason` as in-process.
 */

import type { IncomingMessage } from "node:http";
import { errorMessage } from "../../runtime/error-message.ts";
import { ApiError, type StatusDetails, type StatusReason } from "../errors.ts";
import { apiVersionOf, type ResourceType } from "../resources.ts";
import { HttpAgents, type HttpExchange, readBody, type ServerTrust } from "./http-connection.ts";

export interface HttpTransportOptions extends ServerTrust {
  /**
   * `https://host:port` of the API server, or several separated by commas (`kvol node --server
   * A,B`): requests go to one until it cannot be reached, then to the next. `http://` carries no
   * bearer token to a kvol server unless it was started with `--insecure-http-tokens`.
   */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string;
}

interface HttpRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

const reasonForCode: Readonly<Record<number, StatusReason>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  503: "ServiceUnavailable",
  504: "Timeout",
};

const knownReasons = new Set<string>([...Object.values(reasonForCode), "AlreadyExists", "InternalError"]);

interface StatusBody {
  reason?: unknown;
  message?: unknown;
  code?: unknown;
  details?: unknown;
}

/** The ApiError a Status (from an error response or an ERROR watch event) stands for. */
export function apiErrorFromStatus(status: StatusBody, httpCode: number): ApiError {
  const code = typeof status.code === "number" ? status.code : httpCode;
  const reason =
    typeof status.reason === "string" && knownReasons.has(status.reason)
      ? (status.reason as StatusReason)
      : (reasonForCode[code] ?? "InternalError");
  const message = typeof status.message === "string" ? status.message : `the server answered HTTP ${httpCode}`;
  const details = (status.details ?? {}) as StatusDetails;
  return new ApiError(reason, message, details);
}

async function errorFromResponse(response: IncomingMessage): Promise<ApiError> {
  const text = await readBody(response);
  const httpCode = response.statusCode ?? 0;
  let status: StatusBody = {};
  try {
    status = JSON.parse(text) as StatusBody;
  } catch (parseError) {
    // Not a Status (a proxy's page, say): keep the text as the message.
    const why = errorMessage(parseError);
    status = { message: `HTTP ${httpCode}: ${text.slice(0, 200)} (${why})` };
  }
  return apiErrorFromStatus(status, httpCode);
}

/** `/api/v1[/namespaces/<ns>]/<plural>[/<name>[/<subresource>]]`. */
export function resourcePath(type: ResourceType, namespace: string, name = "", subresource = ""): string {
  const root = type.group === "" ? "/api" : "/apis";
  const scope = type.namespaced && namespace !== "" ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  const object = name === "" ? "" : `/${encodeURIComponent(name)}`;
  const sub = subresource === "" ? "" : `/${subresource}`;
  return `${root}/${apiVersionOf(type)}${scope}/${type.plural}${object}${sub}`;
}

/** Name-lookup failures: no connection was attempted. */
const lookupFailureCodes = new Set(["ENOTFOUND", "EAI_AGAIN"]);

/**
 * Errors that prove the request never reached the server (the name did not resolve or the
 * connection was not made: refused, unreachable, timed out), so sending it to another server
 * cannot apply it twice.
 */
function notConnected(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return syscall === "connect" || (typeof code === "string" && lookupFailureCodes.has(code));
}

/** Node's codes for a server certificate the client does not trust, or that names another host. */
const untrustedCertificateCodes = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** What to do about a failure, when it is the server's certificate. */
function trustHint(error: unknown): string {
  const { code } = (error ?? {}) as { code?: unknown };
  if (typeof code !== "string" || !untrustedCertificateCodes.has(code)) return "";
  return code === "ERR_TLS_CERT_ALTNAME_INVALID"
    ? " (the server's certificate does not name this host: connect by a name or address it was made for)"
    : " (the server's certificate is not trusted: give the certificate authority that signed it, e.g. the server's DATA/ca.crt with --certificate-authority, or a kubeconfig holding it)";
}

function parseServerUrl(text: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === "http:" || url.protocol === "https:") return url;
  } catch (error) {
    throw new Error(`${text} is not an API server URL (${errorMessage(error)}); use one like https://127.0.0.1:8080`);
  }
  throw new Error(`${text} is not an API server URL: only http:// and https:// are served`);
}

export class HttpTransport {
  /** The API servers, in failover order; `current` is the one in use. */
  private readonly servers: readonly URL[];
  private readonly baseUrls: readonly string[];
  private current = 0;
  private readonly bearerToken: string | undefined;
  private readonly agents: HttpAgents;

  constructor(options: HttpTransportOptions) {
    this.baseUrls = options.url
      .split(",")
      .map((url) => url.trim().replace(/\/+$/, ""))
      .filter((url) => url !== "");
    if (this.baseUrls.length === 0) throw new Error("an API server URL is needed, like https://127.0.0.1:8080");
    this.servers = this.baseUrls.map(parseServerUrl);
    this.bearerToken = options.bearerToken;
    this.agents = new HttpAgents(options.caPem === undefined ? {} : { caPem: options.caPem });
  }

  /** The API server requests go to now. */
  get baseUrl(): string {
    return this.baseUrls[this.current] as string;
  }

  /**
   * Sends the request; a non-2xx answer is thrown as its ApiError. The answer's body is left
   * unread: the caller reads it to its end (or the request's signal aborts it), which frees the
   * connection for the next request.
   */
  async send(request: HttpRequest): Promise<IncomingMessage> {
    const query = request.query?.toString() ?? "";
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.bearerToken !== undefined) headers.Authorization = `Bearer ${this.bearerToken}`;
    if (request.body !== undefined) headers["Content-Type"] = request.contentType ?? "application/json";
    const response = await this.sendWithFailover({
      method: request.method,
      pathAndQuery: `${request.path}${query === "" ? "" : `?${query}`}`,
      headers,
      ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) throw await errorFromResponse(response);
    return response;
  }

  /**
   * Tries the current server, then each other one in turn while none can be reached; the first
   * that answers becomes current, so watches and lease renewals stay with it.
   */
  private async sendWithFailover(exchange: Omit<HttpExchange, "server">): Promise<IncomingMessage> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.servers.length; attempt++) {
      const server = this.servers[this.current] as URL;
      try {
        return await this.agents.send({ ...exchange, server });
      } catch (error) {
        const failure = new Error(
          `${exchange.method} ${exchange.pathAndQuery} to the API server ${this.baseUrl} failed: ${errorMessage(error)}${trustHint(error)}`,
          { cause: error },
        );
        if (!notConnected(error)) throw failure;
        lastError = failure;
        this.current = (this.current + 1) % this.servers.length;
      }
    }
    throw lastError;
  }

  /** Sends the request and returns the JSON answer. */
  async json<R>(request: HttpRequest): Promise<R> {
    const response = await this.send(request);
    return JSON.parse(await readBody(response)) as R;
  }

  /** Sends the request and reads its answer to the end, for requests whose answer nobody needs. */
  async discard(request: HttpRequest): Promise<void> {
    await readBody(await this.send(request));
  }

  /** Closes the connections kept open between requests. */
  close(): void {
    this.agents.close();
  }
}
