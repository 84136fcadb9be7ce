/**
 * One WebSocket connection on an upgraded socket, server side: the 101 answer to the client's
 * handshake, then messages in and out. Pings are answered; a close from the client is answered
 * and ends the socket; a protocol violation closes it with the code RFC 6455 names.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  acceptKey,
  closeCode,
  closePayload,
  encodeFrame,
  FrameParser,
  MessageAssembler,
  opcode,
  WebSocketProtocolError,
} from "./websocket.ts";

interface WebSocketHandlers {
  message(data: Buffer, binary: boolean): void;
  /** The connection ended: a close from either side, or the socket went away. */
  closed(): void;
}

/** The client asked for a WebSocket (`Upgrade: websocket` with a key). */
export function isWebSocketRequest(request: IncomingMessage): boolean {
  return (
    (request.headers.upgrade ?? "").toLowerCase() === "websocket" &&
    typeof request.headers["sec-websocket-key"] === "string"
  );
}

/** The subprotocols the client offers, in its order of preference. */
export function offeredSubprotocols(request: IncomingMessage): string[] {
  const header = request.headers["sec-websocket-protocol"];
  const text = Array.isArray(header) ? header.join(",") : (header ?? "");
  return text
    .split(",")
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== "");
}

export class WebSocketConnection {
  private readonly parser = new FrameParser();
  private readonly assembler = new MessageAssembler();
  private ended = false;

  /** Answers the handshake (101) with `subprotocol` and starts reading. */
  constructor(
    request: IncomingMessage,
    private readonly socket: Duplex,
    head: Buffer,
    subprotocol: string,
    private readonly handlers: WebSocketHandlers,
  ) {
    const key = String(request.headers["sec-websocket-key"]);
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${acceptKey(key)}\r\nSec-WebSocket-Protocol: ${subprotocol}\r\n\r\n`,
    );
    socket.on("data", (chunk: Buffer) => this.received(chunk));
    socket.on("close", () => this.finish());
    socket.on("error", () => this.finish());
    if (head.length > 0) this.received(head);
  }

  get open(): boolean {
    return !this.ended;
  }

  send(data: Buffer): void {
    if (!this.ended) this.socket.write(encodeFrame(opcode.binary, data));
  }

  /** Sends a close frame and ends the socket once written. */
  close(code: number = closeCode.normal, reason = ""): void {
    if (this.ended) return;
    this.socket.end(encodeFrame(opcode.close, closePayload(code, reason)));
    this.finish();
  }

  private received(chunk: Buffer): void {
    if (this.ended) return;
    try {
      for (const frame of this.parser.push(chunk)) this.frame(frame.opcode, frame);
    } catch (error) {
      if (!(error instanceof WebSocketProtocolError)) throw error;
      this.close(error.code, error.message);
    }
  }

  private frame(code: number, frame: Parameters<MessageAssembler["add"]>[0]): void {
    if (this.ended) return;
    switch (code) {
      case opcode.ping:
        this.socket.write(encodeFrame(opcode.pong, frame.payload));
        return;
      case opcode.pong:
        return;
      case opcode.close:
        this.close();
        return;
      default: {
        const message = this.assembler.add(frame);
        if (message !== undefined) this.handlers.message(message.data, message.opcode === opcode.binary);
      }
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.handlers.closed();
  }
}
