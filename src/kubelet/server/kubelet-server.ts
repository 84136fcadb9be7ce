/**
 * The kubelet's own HTTP(S) server (Kubernetes' port 10250, `pkg/kubelet/server`), through which
 * the API server reaches a node for `kubectl logs`, `exec` and `attach`:
 *
 *   GET  /containerLogs/<namespace>/<pod>/<container>?follow=true&tailLines=…   the log, as text
 *   GET|POST /exec/<namespace>/<pod>/<container>?command=…&input=1&output=1&error=1&tty=1
 *   GET|POST /attach/<namespace>/<pod>/<container>?input=1&output=1&error=1&tty=1
 *   GET  /debug/volumemanager   the volume manager's state as JSON (volumemanager/debug-state.ts)
 *   GET  /metrics               the kubelet's Prometheus metrics in the text format
 *   GET  /stats/summary         the Summary API: the node's and its pods' volume stats (stats/stats-summary.ts)
 *   GET  /healthz
 *
 * exec and attach are WebSocket upgrades speaking kubectl's stream protocol (remote-command.ts).
 * Every request but `/healthz` must carry the bearer token the node was given (the API server
 * presents it); anything else is answered 401.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  kubeletMetricsPath,
  kubeletStatsSummaryPath,
  kubeletVolumeManagerDebugPath,
} from "../../api/debug/debug-state.ts";
import type { Clock } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import { type ContainerLog, ContainerLogUnavailable } from "../container/container-log-reader.ts";
import { BadLogQuery, containerLogOptions, serveContainerLog } from "./container-logs.ts";
import {
  type RemoteCommandOptions,
  type RemoteCommandResult,
  type RemoteCommandStreams,
  refuseUpgrade,
  serveRemoteCommand,
} from "./remote-command.ts";

/** What the node offers its server: its pods, their logs, and commands run in their containers. */
export interface KubeletStreaming {
  readonly clock: Clock;
  pod(namespace: string, name: string): Pod | undefined;
  /** Throws ContainerLogUnavailable when the container has no such log (answered 400 with its text). */
  containerLog(pod: Pod, container: string, previous: boolean): Promise<ContainerLog>;
  /** Checks the container can take a command now; throws StreamRefused otherwise (before the upgrade). */
  checkRunning(pod: Pod, container: string): void;
  exec(
    pod: Pod,
    container: string,
    command: readonly string[],
    streams: RemoteCommandStreams,
  ): Promise<RemoteCommandResult>;
  attach(pod: Pod, container: string, streams: RemoteCommandStreams): Promise<RemoteCommandResult>;
}

/** A request the kubelet refuses with an HTTP status and a message. */
export class StreamRefused extends Error {
  constructor(
    readonly code: 400 | 404 | 500,
    message: string,
  ) {
    super(message);
    this.name = "StreamRefused";
  }
}

interface KubeletServerOptions {
  /** The bearer token a caller must present. */
  token: string;
  /** Serve HTTPS with this certificate (as the kubelet does); plain HTTP without. */
  tls?: { certificatePem: string; privateKeyPem: string };
  logger: Logger;
}

interface Target {
  kind: "containerLogs" | "exec" | "attach";
  namespace: string;
  pod: string;
  container: string;
}

function targetOf(pathname: string): Target | undefined {
  const segments = pathname
    .split("/")
    .filter((segment) => segment !== "")
    .map(decodeURIComponent);
  const [kind, namespace, pod, container] = segments;
  if (segments.length !== 4 || namespace === undefined || pod === undefined || container === undefined)
    return undefined;
  if (kind !== "containerLogs" && kind !== "exec" && kind !== "attach") return undefined;
  return { kind, namespace, pod, container };
}

/** `input=1` as the API server sends it, or `stdin=true` as a person might. */
function flag(query: URLSearchParams, kubeletName: string, apiName: string): boolean {
  const value = query.get(kubeletName) ?? query.get(apiName);
  return value === "1" || value === "true";
}

function streamOptions(query: URLSearchParams): RemoteCommandOptions {
  return {
    stdin: flag(query, "input", "stdin"),
    stdout: flag(query, "output", "stdout"),
    stderr: flag(query, "error", "stderr"),
    tty: flag(query, "tty", "tty"),
  };
}

function sendText(response: ServerResponse, code: number, text: string): void {
  response.writeHead(code, { "Content-Type": "text/plain; charset=utf-8" });
  response.end(`${text}\n`);
}

export class KubeletServer {
  private backend: KubeletStreaming | undefined;
  private debugState: (() => Promise<object | undefined>) | undefined;
  private metrics: (() => Metrics | undefined) | undefined;
  private statsSummary: (() => Promise<object | undefined>) | undefined;
  private readonly server: Server;
  private readonly expected: Buffer;
  private address: AddressInfo | undefined;

  constructor(private readonly options: KubeletServerOptions) {
    this.expected = Buffer.from(`Bearer ${options.token}`);
    const onRequest = (request: IncomingMessage, response: ServerResponse) => void this.request(request, response);
    this.server =
      options.tls === undefined
        ? createHttpServer(onRequest)
        : createHttpsServer({ cert: options.tls.certificatePem, key: options.tls.privateKeyPem }, onRequest);
    this.server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.upgrade(request, socket, head),
    );
  }

  /** Listens on `port` (0 picks a free one) at `host`; resolves with the port. */
  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    this.address = this.server.address() as AddressInfo;
    return this.address.port;
  }

  get port(): number {
    if (this.address === undefined) throw new Error("the kubelet server is not listening yet");
    return this.address.port;
  }

  /** Starts answering for the node (before this, requests get 503). */
  serve(backend: KubeletStreaming): void {
    this.backend = backend;
  }

  /** Answers `/debug/volumemanager` with what `state` gives (undefined: the kubelet is not running). */
  serveDebugState(state: () => Promise<object | undefined>): void {
    this.debugState = state;
  }

  /** Answers `/metrics` with the registry `metrics` gives (undefined: the kubelet is not running). */
  serveMetrics(metrics: () => Metrics | undefined): void {
    this.metrics = metrics;
  }

  /** Answers `/stats/summary` with what `summary` gives (undefined: the kubelet is not running). */
  serveStatsSummary(summary: () => Promise<object | undefined>): void {
    this.statsSummary = summary;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private authenticated(request: IncomingMessage): boolean {
    const given = Buffer.from(request.headers.authorization ?? "");
    return given.length === this.expected.length && timingSafeEqual(given, this.expected);
  }

  private async request(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://kubelet");
    if (url.pathname === "/healthz") return sendText(response, 200, "ok");
    if (!this.authenticated(request)) return sendText(response, 401, "Unauthorized");
    if (url.pathname === kubeletVolumeManagerDebugPath) return this.serveJson(response, this.debugState);
    if (url.pathname === kubeletStatsSummaryPath) return this.serveJson(response, this.statsSummary);
    if (url.pathname === kubeletMetricsPath) return this.serveMetricsText(response);
    const target = targetOf(url.pathname);
    if (target === undefined) return sendText(response, 404, "404 page not found");
    if (target.kind !== "containerLogs") return sendText(response, 400, "Upgrade request required");
    const backend = this.backend;
    if (backend === undefined) return sendText(response, 503, "the kubelet is starting");
    try {
      const pod = this.podOf(backend, target);
      const options = containerLogOptions(url.searchParams);
      await serveContainerLog(request, response, options, backend.clock, (previous) =>
        backend.containerLog(pod, target.container, previous),
      );
    } catch (error) {
      if (response.headersSent) {
        response.end();
        return;
      }
      if (error instanceof StreamRefused) return sendText(response, error.code, error.message);
      if (error instanceof ContainerLogUnavailable || error instanceof BadLogQuery)
        return sendText(response, 400, error.message);
      this.options.logger.error("Serving container logs failed", { url: request.url, error });
      sendText(response, 500, errorMessage(error));
    }
  }

  private async serveJson(
    response: ServerResponse,
    source: (() => Promise<object | undefined>) | undefined,
  ): Promise<void> {
    const state = await source?.();
    if (state === undefined) return sendText(response, 503, "the kubelet is starting");
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(JSON.stringify(state));
  }

  private async serveMetricsText(response: ServerResponse): Promise<void> {
    const metrics = this.metrics?.();
    if (metrics === undefined) return sendText(response, 503, "the kubelet is starting");
    const text = await metrics.exposition();
    response.writeHead(200, { "Content-Type": metrics.contentType });
    response.end(text);
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", (error) => this.options.logger.debug("exec stream socket failed", { error }));
    const url = new URL(request.url ?? "/", "http://kubelet");
    if (!this.authenticated(request)) {
      refuseUpgrade(socket, 401, "Unauthorized", "Unauthorized");
      return;
    }
    const target = targetOf(url.pathname);
    if (target === undefined || target.kind === "containerLogs") {
      refuseUpgrade(socket, 404, "NotFound", "404 page not found");
      return;
    }
    const backend = this.backend;
    if (backend === undefined) {
      refuseUpgrade(socket, 500, "InternalError", "the kubelet is starting");
      return;
    }
    let pod: Pod;
    try {
      pod = this.podOf(backend, target);
      backend.checkRunning(pod, target.container);
    } catch (error) {
      if (!(error instanceof StreamRefused)) throw error;
      const reason = error.code === 404 ? "NotFound" : error.code === 400 ? "BadRequest" : "InternalError";
      refuseUpgrade(socket, error.code, reason, error.message);
      return;
    }
    const options = streamOptions(url.searchParams);
    if (target.kind === "exec") {
      const command = url.searchParams.getAll("command");
      if (command.length === 0) {
        refuseUpgrade(socket, 400, "BadRequest", "you must specify at least one command for the container");
        return;
      }
      serveRemoteCommand(request, socket, head, options, (streams) =>
        backend.exec(pod, target.container, command, streams),
      );
      return;
    }
    serveRemoteCommand(request, socket, head, options, (streams) => backend.attach(pod, target.container, streams));
  }

  private podOf(backend: KubeletStreaming, target: Target): Pod {
    const pod = backend.pod(target.namespace, target.pod);
    if (pod === undefined) throw new StreamRefused(404, `pod "${target.pod}" does not exist`);
    const names = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => c.name);
    if (!names.includes(target.container)) {
      throw new StreamRefused(404, `container "${target.container}" not found in pod "${target.pod}"`);
    }
    return pod;
  }
}
