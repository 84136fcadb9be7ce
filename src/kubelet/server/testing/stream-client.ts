/**
 * A client of kubectl's exec stream protocol for tests, as kubectl speaks it: a WebSocket upgrade
 * offering `v5.channel.k8s.io` and `v4.channel.k8s.io`, masked frames out, each message tagged with
 * its channel. It collects stdout, stderr and the error channel's Status until the server closes.
 */
import { randomBytes } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";
import { channelMessage, remoteCommandChannel } from "../remote-command.ts";
import { encodeFrame, FrameParser, opcode } from "../websocket.ts";

interface StreamSession {
  /** The protocol the server chose. */
  protocol: string;
  sendStdin(text: string): void;
  /** v5: the client's stdin ended. */
  closeStdin(): void;
  /** Resolves once the server closed: what came on each channel. */
  finished: Promise<{ stdout: string; stderr: string; status: Record<string, unknown> | undefined }>;
}

type StreamAnswer = { session: StreamSession } | { refused: { status: number; body: string } };

function collect(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    response.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    response.on("end", () => resolve(body));
  });
}

export function openStream(
  url: string,
  headers: Record<string, string>,
  protocols: readonly string[] = ["v5.channel.k8s.io", "v4.channel.k8s.io"],
): Promise<StreamAnswer> {
  const request = url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: "GET",
      rejectUnauthorized: false,
      headers: {
        ...headers,
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": randomBytes(16).toString("base64"),
        "Sec-WebSocket-Protocol": protocols.join(", "),
      },
    });
    outgoing.on("error", reject);
    outgoing.on("response", (response) => {
      void collect(response).then((body) => resolve({ refused: { status: response.statusCode ?? 0, body } }));
    });
    outgoing.on("upgrade", (response, socket: Duplex, head: Buffer) => {
      const protocol = String(response.headers["sec-websocket-protocol"] ?? "");
      const send = (data: Buffer, code: number = opcode.binary) =>
        socket.write(encodeFrame(code, data, randomBytes(4)));
      const parser = new FrameParser("server");
      let stdout = "";
      let stderr = "";
      let status: Record<string, unknown> | undefined;
      const received = (chunk: Buffer) => {
        for (const frame of parser.push(chunk)) {
          if (frame.opcode !== opcode.binary || frame.payload.length === 0) continue;
          const channel = frame.payload[0];
          const text = frame.payload.subarray(1).toString("utf8");
          if (channel === remoteCommandChannel.stdout) stdout += text;
          else if (channel === remoteCommandChannel.stderr) stderr += text;
          else if (channel === remoteCommandChannel.error && text !== "") status = JSON.parse(text);
        }
      };
      const finished = new Promise<{ stdout: string; stderr: string; status: Record<string, unknown> | undefined }>(
        (done) => {
          socket.on("data", received);
          socket.on("close", () => done({ stdout, stderr, status }));
        },
      );
      if (head.length > 0) received(head);
      resolve({
        session: {
          protocol,
          sendStdin: (text) => send(channelMessage(remoteCommandChannel.stdin, text)),
          closeStdin: () => send(Buffer.from([remoteCommandChannel.close, remoteCommandChannel.stdin])),
          finished,
        },
      });
    });
    outgoing.end();
  });
}
