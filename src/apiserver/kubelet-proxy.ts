/**
 * How the API server reaches the kubelet of a node that runs elsewhere (`kvol node`), as
 * kube-apiserver does for `pods/log`, `exec` and `attach`: at the node's InternalIP and the port
 * in `status.daemonEndpoints.kubeletEndpoint`, over HTTPS (the kubelet's certificate is
 * self-signed and not verified, as kube-apiserver without `--kubelet-certificate-authority`),
 * presenting the node's own bearer token. Logs are streamed back as they come; an exec or attach
 * upgrade is passed through byte for byte once the kubelet has switched protocols.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";
import { ApiError, type StatusReason } from "../api/errors.ts";
import type { KObject, Node } from "../api/objects.ts";
import { resourceForKind } from "../api/resources.ts";
import type { ServerContext } from "./request-context.ts";
import type { Upgrade } from "./upgrade-requests.ts";

/** The most of a kubelet's error answer kept as the message (kube-apiserver reads a bounded amount too). */
const maxErrorBodyBytes = 16 * 1024;

interface RemoteKubelet {
  nodeName: string;
  host: string;
  port: number;
  token: string;
}

function nodeUser(nodeName: string): string {
  return `system:node:${nodeName}`;
}

/** The kubelet of `nodeName` as its Node reports it, or a refusal saying why it cannot be reached. */
export async function remoteKubeletOf(server: ServerContext, nodeName: string): Promise<RemoteKubelet> {
  const type = resourceForKind("Node");
  if (type === undefined) throw new Error("the Node resource is not registered");
  const node = (await server.store.get<KObject>(type, "", nodeName)) as Node;
  const host = node.status?.addresses?.find((address) => address.type === "InternalIP")?.address;
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  if (host === undefined || port === undefined || port === 0) {
    throw new ApiError("InternalError", `node "${nodeName}" reports no kubelet address and port in its status`);
  }
  const token = server.kubeletCredential?.(nodeUser(nodeName));
  if (token === undefined) {
    throw new ApiError(
      "InternalError",
      `the API server has no credential for the kubelet of node "${nodeName}": ` +
        "it presents the node's own token, so run the server with authentication (kvol server --node-tokens, or kvol up)",
    );
  }
  return { nodeName, host, port, token };
}

function kubeletUrl(kubelet: RemoteKubelet, path: string): string {
  const host = kubelet.host.includes(":") ? `[${kubelet.host}]` : kubelet.host;
  return `https://${host}:${kubelet.port}${path}`;
}

function reasonFor(code: number): StatusReason {
  if (code === 400) return "BadRequest";
  if (code === 404) return "NotFound";
  if (code === 401) return "Unauthorized";
  return "InternalError";
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    response.on("data", (chunk: Buffer) => {
      if (text.length < maxErrorBodyBytes) text += chunk.toString("utf8");
    });
    response.on("end", () => resolve(text));
    response.on("error", () => resolve(text));
  });
}

/** The message of a kubelet's refusal: a Status's message, or its text. */
function refusalMessage(body: string): string {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    if (typeof status.message === "string") return status.message;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return body.trim();
}

/** Streams `GET <path>` from the kubelet into `response` (a refusal becomes the matching Status). */
export function proxyKubeletGet(
  kubelet: RemoteKubelet,
  path: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = kubeletUrl(kubelet, path);
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(url, {
      method: "GET",
      headers: { Authorization: `Bearer ${kubelet.token}` },
      rejectUnauthorized: false,
    });
    outgoing.on("error", (error) => {
      if (response.headersSent) resolve();
      else reject(new ApiError("InternalError", `Get "${url}": ${error.message}`));
    });
    outgoing.on("response", (answer) => {
      const code = answer.statusCode ?? 500;
      if (code !== 200) {
        void readBody(answer).then((body) => reject(new ApiError(reasonFor(code), refusalMessage(body))));
        return;
      }
      response.writeHead(200, {
        "Content-Type": answer.headers["content-type"] ?? "text/plain",
        "Transfer-Encoding": "chunked",
      });
      answer.pipe(response);
      answer.on("end", () => resolve());
      answer.on("error", () => resolve());
    });
    // A follower that goes away stops the kubelet's answer too.
    request.on("close", () => outgoing.destroy());
    outgoing.end();
  });
}

/** The headers of the client's upgrade request the kubelet needs (the protocol negotiation), with our credential. */
function upgradeHeaders(request: IncomingMessage, kubelet: RemoteKubelet): OutgoingHttpHeaders {
  const passed = [
    "upgrade",
    "connection",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-protocol",
    "sec-websocket-extensions",
    "x-stream-protocol-version",
  ];
  const headers: OutgoingHttpHeaders = { Authorization: `Bearer ${kubelet.token}` };
  for (const name of passed) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  // Compression is not spoken by kvol's kubelet; the client falls back to plain frames.
  delete headers["sec-websocket-extensions"];
  return headers;
}

function rawHead(answer: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ""}`];
  for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2) {
    lines.push(`${answer.rawHeaders[index]}: ${answer.rawHeaders[index + 1]}`);
  }
  return `${lines.join("\r\n")}\r\n\r\n`;
}

function join(client: Duplex, kubelet: Duplex): void {
  client.pipe(kubelet);
  kubelet.pipe(client);
  const end = () => {
    client.destroy();
    kubelet.destroy();
  };
  client.on("close", end);
  kubelet.on("close", end);
  client.on("error", end);
  kubelet.on("error", end);
}

/**
 * Passes an upgrade request on to the kubelet at `path`. Once the kubelet switches protocols, its
 * answer goes to the client and the two sockets are joined; a refusal is answered as it came.
 */
export function proxyKubeletUpgrade(
  kubelet: RemoteKubelet,
  path: string,
  request: IncomingMessage,
  upgrade: Upgrade,
): Promise<void> {
  const url = kubeletUrl(kubelet, path);
  const client = upgrade.socket;
  return new Promise((resolve) => {
    const outgoing = httpsRequest(url, {
      method: request.method ?? "GET",
      headers: upgradeHeaders(request, kubelet),
      rejectUnauthorized: false,
    });
    outgoing.on("upgrade", (answer, socket, head) => {
      client.write(rawHead(answer));
      if (head.length > 0) client.write(head);
      if (upgrade.head.length > 0) socket.write(upgrade.head);
      join(client, socket);
      resolve();
    });
    outgoing.on("response", (answer) => {
      void readBody(answer).then((body) => {
        const type = answer.headers["content-type"] ?? "text/plain";
        client.end(
          `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ""}\r\nContent-Type: ${type}\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
        resolve();
      });
    });
    outgoing.on("error", (error) => {
      const body = JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `error dialing backend: ${error.message}`,
        reason: "InternalError",
        code: 500,
      });
      client.end(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n" +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      resolve();
    });
    outgoing.end();
  });
}
