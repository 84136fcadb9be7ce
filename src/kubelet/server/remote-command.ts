/**
 * kubectl's exec and attach stream protocol over a WebSocket (k8s.io/apimachinery wsstream and the
 * kubelet's remotecommand): each binary message starts with its channel — 0 stdin, 1 stdout,
 * 2 stderr, 3 error (the command's ending as a Status), 4 resize (a terminal size as JSON) —
 * and, in v5, 255 closes a channel (`[255, 0]`: the client's stdin ended). The client offers
 * `v5.channel.k8s.io` (kubectl 1.30 and newer) and `v4.channel.k8s.io`; the kubelet picks the first
 * it knows. SPDY (kubectl 1.29 and older) is refused with a Status that says so.
 */
import type { IncomingMessage } from "node:http";
import { type Duplex, PassThrough, type Readable, Writable } from "node:stream";
import { errorMessage } from "../../runtime/error-message.ts";
import { isWebSocketRequest, offeredSubprotocols, WebSocketConnection } from "./websocket-connection.ts";

export const remoteCommandChannel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;
const streamProtocolV5 = "v5.channel.k8s.io";
const streamProtocolV4 = "v4.channel.k8s.io";
/** The protocols kvol's kubelet speaks, most preferred first. */
const supportedStreamProtocols: readonly string[] = [streamProtocolV5, streamProtocolV4];
/** remotecommand's Status reason and cause type for a command that exited non-zero. */
const nonZeroExitCodeReason = "NonZeroExitCode";
const exitCodeCauseType = "ExitCode";

export interface RemoteCommandOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

interface TerminalSize {
  width: number;
  height: number;
}

export interface RemoteCommandStreams {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  tty: boolean;
  /** Terminal sizes the client sends (tty only). */
  onResize(listener: (size: TerminalSize) => void): void;
  /** Aborted when the client goes away: the command should stop. */
  signal: AbortSignal;
}

/** How the command ended: its exit code, or why it could not run. */
export type RemoteCommandResult = { exitCode: number } | { error: string };

export function channelMessage(channel: number, data: Buffer | string): Buffer {
  const body = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  return Buffer.concat([Buffer.from([channel]), body]);
}

export function parseChannelMessage(message: Buffer): { channel: number; data: Buffer } | undefined {
  if (message.length === 0) return undefined;
  return { channel: message[0] ?? 0, data: message.subarray(1) };
}

/** The Status written on the error channel (JSON), as the kubelet's v4 and v5 write it. */
export function remoteCommandStatus(result: RemoteCommandResult): Record<string, unknown> {
  if ("error" in result) {
    return {
      metadata: {},
      status: "Failure",
      message: result.error,
      reason: "InternalError",
      details: { causes: [{ message: result.error }] },
      code: 500,
    };
  }
  if (result.exitCode === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: command terminated with exit code ${result.exitCode}`,
    reason: nonZeroExitCodeReason,
    details: { causes: [{ reason: exitCodeCauseType, message: String(result.exitCode) }] },
  };
}

/** The first protocol of ours the client offers, in the client's order. */
export function negotiateStreamProtocol(offered: readonly string[]): string | undefined {
  return offered.find((protocol) => supportedStreamProtocols.includes(protocol));
}

function spdyRefusal(): string {
  return (
    `kvol's kubelet streams exec and attach over WebSockets (${supportedStreamProtocols.join(", ")}), not SPDY: ` +
    "use kubectl 1.30 or newer (with kubectl 1.29, set KUBECTL_REMOTE_COMMAND_WEBSOCKETS=true)"
  );
}

/** Answers a refused upgrade on the raw socket with a Status, as an HTTP error. */
export function refuseUpgrade(socket: Duplex, code: number, reason: string, message: string): void {
  const body = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  });
  const statusText =
    code === 401 ? "Unauthorized" : code === 404 ? "Not Found" : code === 500 ? "Internal Server Error" : "Bad Request";
  socket.end(
    `HTTP/1.1 ${code} ${statusText}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

function parseResize(data: Buffer): TerminalSize | undefined {
  try {
    const size = JSON.parse(data.toString("utf8")) as { Width?: unknown; Height?: unknown };
    if (typeof size.Width !== "number" || typeof size.Height !== "number") return undefined;
    return { width: size.Width, height: size.Height };
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * Upgrades the request to a WebSocket speaking the stream protocol, runs the command with its
 * streams, writes how it ended on the error channel and closes. A request that is not a WebSocket
 * with a protocol of ours gets a 400 Status.
 */
export function serveRemoteCommand(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: RemoteCommandOptions,
  run: (streams: RemoteCommandStreams) => Promise<RemoteCommandResult>,
): void {
  if (!isWebSocketRequest(request)) {
    refuseUpgrade(socket, 400, "BadRequest", spdyRefusal());
    return;
  }
  const protocol = negotiateStreamProtocol(offeredSubprotocols(request));
  if (protocol === undefined) {
    refuseUpgrade(
      socket,
      400,
      "BadRequest",
      `none of the offered stream protocols is supported; kvol's kubelet speaks ${supportedStreamProtocols.join(", ")}`,
    );
    return;
  }
  const abort = new AbortController();
  const stdin = options.stdin ? new PassThrough() : undefined;
  const resizeListeners: ((size: TerminalSize) => void)[] = [];
  const connection = new WebSocketConnection(request, socket, head, protocol, {
    message(data) {
      const message = parseChannelMessage(data);
      if (message === undefined) return;
      if (message.channel === remoteCommandChannel.stdin) stdin?.write(message.data);
      else if (message.channel === remoteCommandChannel.resize) {
        const size = parseResize(message.data);
        if (size !== undefined) for (const listener of resizeListeners) listener(size);
      } else if (message.channel === remoteCommandChannel.close && message.data[0] === remoteCommandChannel.stdin) {
        stdin?.end();
      }
    },
    closed() {
      stdin?.end();
      abort.abort();
    },
  });
  const channelWriter = (channel: number) =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        connection.send(channelMessage(channel, chunk));
        callback();
      },
    });
  const stdout = options.stdout ? channelWriter(remoteCommandChannel.stdout) : undefined;
  const stderr = options.stderr && !options.tty ? channelWriter(remoteCommandChannel.stderr) : undefined;
  // The kubelet's first message, an empty one on the lowest channel it writes: the streams are ready.
  const first =
    stdout !== undefined
      ? remoteCommandChannel.stdout
      : stderr !== undefined
        ? remoteCommandChannel.stderr
        : remoteCommandChannel.error;
  connection.send(channelMessage(first, Buffer.alloc(0)));
  const streams: RemoteCommandStreams = {
    ...(stdin === undefined ? {} : { stdin }),
    ...(stdout === undefined ? {} : { stdout }),
    ...(stderr === undefined ? {} : { stderr }),
    tty: options.tty,
    onResize: (listener) => resizeListeners.push(listener),
    signal: abort.signal,
  };
  const finish = (result: RemoteCommandResult) => {
    connection.send(channelMessage(remoteCommandChannel.error, JSON.stringify(remoteCommandStatus(result))));
    connection.close();
  };
  run(streams).then(finish, (error: unknown) => finish({ error: errorMessage(error) }));
}
