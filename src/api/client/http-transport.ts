/**
 * The wire side of HttpClient: requests to a Kubernetes API server over fetch, JSON bodies, an
 * optional bearer token, and failures turned back into the ApiError the server's Status describes
 * (same reason, code, message and details), so callers branch on `reason` as in-process.
 */
import { ApiError, type StatusDetails, type StatusReason } from "../errors.ts";
import { apiVersionOf, type ResourceType } from "../resources.ts";

export interface HttpTransportOptions {
  /** `http://host:port` of the API server. */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string;
}

export interface HttpRequest {
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

async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text();
  let status: StatusBody = {};
  try {
    status = JSON.parse(text) as StatusBody;
  } catch (parseError) {
    // Not a Status (a proxy's page, say): keep the text as the message.
    const why = parseError instanceof Error ? parseError.message : String(parseError);
    status = { message: `HTTP ${response.status}: ${text.slice(0, 200)} (${why})` };
  }
  return apiErrorFromStatus(status, response.status);
}

/** `/api/v1[/namespaces/<ns>]/<plural>[/<name>[/<subresource>]]`. */
export function resourcePath(type: ResourceType, namespace: string, name = "", subresource = ""): string {
  const root = type.group === "" ? "/api" : "/apis";
  const scope = type.namespaced && namespace !== "" ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  const object = name === "" ? "" : `/${encodeURIComponent(name)}`;
  const sub = subresource === "" ? "" : `/${subresource}`;
  return `${root}/${apiVersionOf(type)}${scope}/${type.plural}${object}${sub}`;
}

export class HttpTransport {
  private readonly baseUrl: string;
  private readonly bearerToken: string | undefined;

  constructor(options: HttpTransportOptions) {
    this.baseUrl = options.url.replace(/\/+$/, "");
    this.bearerToken = options.bearerToken;
  }

  /** Sends the request; a non-2xx answer is thrown as its ApiError. The response body is left unread. */
  async send(request: HttpRequest): Promise<Response> {
    const query = request.query?.toString() ?? "";
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.bearerToken !== undefined) headers.Authorization = `Bearer ${this.bearerToken}`;
    if (request.body !== undefined) headers["Content-Type"] = request.contentType ?? "application/json";
    const response = await fetch(`${this.baseUrl}${request.path}${query === "" ? "" : `?${query}`}`, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  /** Sends the request and returns the JSON answer. */
  async json<R>(request: HttpRequest): Promise<R> {
    const response = await this.send(request);
    return (await response.json()) as R;
  }
}
