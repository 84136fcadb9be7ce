/**
 * The client commands' connection to the API server over node:http or node:https (trusting the
 * kubeconfig's certificate authority): the bearer token, an Accept header of the command's choosing
 * (kubectl's Table request for `get`), failures as the ApiError the server's Status describes, and
 * an unreachable server as a sentence that says what to do.
 */
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { apiErrorFromStatus } from "../../api/client/http-transport.ts";
import type { ApiError } from "../../api/errors.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { ClusterAccess } from "./kubeconfig.ts";

/** What `kubectl get` asks for: a Table, else the objects. */
export const tableAccept =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

export interface ApiRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: URLSearchParams;
  /** Sent as it is when a string, as JSON otherwise. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

/** The server could not be reached at all (nothing listening, a wrong address, a certificate refused). */
class ConnectionError extends Error {}

/** An answer whose body has not been read yet. */
class ApiResponse {
  constructor(private readonly message: IncomingMessage) {}

  get status(): number {
    return this.message.statusCode ?? 0;
  }

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.message) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  async json<T>(): Promise<T> {
    return JSON.parse(await this.text()) as T;
  }

  /** Calls `onEvent` with each line's JSON (a watch stream) until the stream ends. */
  async eachLine(onEvent: (value: unknown) => void): Promise<void> {
    let pending = "";
    for await (const chunk of this.message) {
      pending += (chunk as Buffer).toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") onEvent(JSON.parse(line));
    }
  }

  /** Drops the rest of the body. */
  discard(): void {
    this.message.resume();
  }
}

export class KubeApi {
  constructor(readonly access: Pick<ClusterAccess, "server" | "token" | "caPem" | "insecureSkipTlsVerify">) {}

  /** Sends the request; a non-2xx answer is thrown as its ApiError. */
  async send(request: ApiRequest): Promise<ApiResponse> {
    const response = new ApiResponse(await this.exchange(request));
    if (response.status < 200 || response.status > 299) throw await errorOf(response);
    return response;
  }

  async json<T>(request: ApiRequest): Promise<T> {
    return (await this.send(request)).json<T>();
  }

  private exchange(request: ApiRequest): Promise<IncomingMessage> {
    const query = request.query?.toString() ?? "";
    const url = new URL(`${this.access.server}${request.path}${query === "" ? "" : `?${query}`}`);
    const headers: Record<string, string> = { Accept: request.accept ?? "application/json" };
    if (this.access.token !== undefined) headers.Authorization = `Bearer ${this.access.token}`;
    const body =
      request.body === undefined
        ? undefined
        : typeof request.body === "string"
          ? request.body
          : JSON.stringify(request.body);
    if (body !== undefined) {
      headers["Content-Type"] = request.contentType ?? "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(body));
    }
    const secure = url.protocol === "https:";
    const send = secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(
        url,
        {
          method: request.method,
          headers,
          ...(request.signal === undefined ? {} : { signal: request.signal }),
          ...(secure && this.access.caPem !== undefined ? { ca: this.access.caPem } : {}),
          ...(secure && this.access.insecureSkipTlsVerify ? { rejectUnauthorized: false } : {}),
        },
        resolve,
      );
      outgoing.on("error", (error) => {
        if (request.signal?.aborted) reject(error);
        else {
          reject(
            new ConnectionError(
              `cannot reach the API server at ${this.access.server} (${errorMessage(error)}); is \`kvol up\` running?`,
            ),
          );
        }
      });
      outgoing.end(body);
    });
  }
}

async function errorOf(response: ApiResponse): Promise<ApiError> {
  const text = await response.text();
  try {
    return apiErrorFromStatus(JSON.parse(text) as Record<string, unknown>, response.status);
  } catch (parseError) {
    // Not a Status (a proxy's page): keep the start of the text as the message.
    const message = `HTTP ${response.status}: ${text.slice(0, 200)} (${errorMessage(parseError)})`;
    return apiErrorFromStatus({ message }, response.status);
  }
}
