/**
 * The server side of a WebSocket (RFC 6455), as much as kubectl's exec and attach need: the
 * opening handshake's accept key, and frames — the client's, which are always masked, parsed; the
 * server's, never masked, written. Text and binary messages (fragmented or not), ping (answered
 * with pong), pong and close.
 */
import { createHash } from "node:crypto";

/** The GUID RFC 6455 appends to the client's key before hashing it. */
const websocketGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** A message larger than this closes the connection (1009, message too big); stdin comes in small pieces. */
export const maxWebSocketMessageBytes = 16 * 1024 * 1024;

export const opcode = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

export const closeCode = { normal: 1000, protocolError: 1002, messageTooBig: 1009 } as const;

interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** `Sec-WebSocket-Accept` for the client's `Sec-WebSocket-Key`. */
export function acceptKey(key: string): string {
  return createHash("sha1").update(`${key}${websocketGuid}`).digest("base64");
}

/** One frame; `mask` (4 bytes) is for a client's frames (tests), a server never masks. */
export function encodeFrame(code: number, payload: Buffer, mask?: Buffer): Buffer {
  const length = payload.length;
  const extended = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
  const header = Buffer.alloc(2 + extended + (mask === undefined ? 0 : 4));
  header[0] = 0x80 | code;
  const maskBit = mask === undefined ? 0 : 0x80;
  if (extended === 0) header[1] = maskBit | length;
  else if (extended === 2) {
    header[1] = maskBit | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = maskBit | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (mask === undefined) return Buffer.concat([header, payload]);
  mask.copy(header, 2 + extended);
  const masked = Buffer.from(payload);
  for (let index = 0; index < masked.length; index++) masked[index] = (masked[index] ?? 0) ^ (mask[index % 4] ?? 0);
  return Buffer.concat([header, masked]);
}

/** A violation of the protocol; the connection is closed with `code`. */
export class WebSocketProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "WebSocketProtocolError";
  }
}

/** Cuts a byte stream into frames, unmasking them: a client's (always masked), or a server's (never). */
export class FrameParser {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly from: "client" | "server" = "client") {}

  /** The frames completed by `chunk`; throws WebSocketProtocolError on a frame no client may send. */
  push(chunk: Buffer): Frame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: Frame[] = [];
    for (let frame = this.next(); frame !== undefined; frame = this.next()) frames.push(frame);
    return frames;
  }

  private next(): Frame | undefined {
    const data = this.buffered;
    if (data.length < 2) return undefined;
    const first = data[0] ?? 0;
    const second = data[1] ?? 0;
    const masked = (second & 0x80) !== 0;
    if (masked !== (this.from === "client")) {
      throw new WebSocketProtocolError(
        closeCode.protocolError,
        `a ${this.from} frame is ${masked ? "" : "not "}masked`,
      );
    }
    const maskBytes = masked ? 4 : 0;
    let length = second & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (data.length < 4) return undefined;
      length = data.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (data.length < 10) return undefined;
      const long = data.readBigUInt64BE(2);
      if (long > BigInt(maxWebSocketMessageBytes)) {
        throw new WebSocketProtocolError(closeCode.messageTooBig, `a frame of ${long} bytes is too big`);
      }
      length = Number(long);
      offset = 10;
    }
    if (length > maxWebSocketMessageBytes) {
      throw new WebSocketProtocolError(closeCode.messageTooBig, `a frame of ${length} bytes is too big`);
    }
    if (data.length < offset + maskBytes + length) return undefined;
    const mask = data.subarray(offset, offset + maskBytes);
    const payload = Buffer.from(data.subarray(offset + maskBytes, offset + maskBytes + length));
    if (masked) {
      for (let index = 0; index < payload.length; index++)
        payload[index] = (payload[index] ?? 0) ^ (mask[index % 4] ?? 0);
    }
    this.buffered = data.subarray(offset + maskBytes + length);
    return { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload };
  }
}

/** Joins fragmented messages: a text or binary message once its last fragment arrived. */
export class MessageAssembler {
  private fragments: Buffer[] = [];
  private size = 0;
  private code: number | undefined;

  /** The whole message when `frame` completes one (data frames only). */
  add(frame: Frame): { opcode: number; data: Buffer } | undefined {
    if (frame.opcode !== opcode.continuation) {
      if (this.code !== undefined) {
        throw new WebSocketProtocolError(closeCode.protocolError, "a new message began inside a fragmented one");
      }
      this.code = frame.opcode;
    } else if (this.code === undefined) {
      throw new WebSocketProtocolError(closeCode.protocolError, "a continuation frame without a message");
    }
    this.fragments.push(frame.payload);
    this.size += frame.payload.length;
    if (this.size > maxWebSocketMessageBytes) {
      throw new WebSocketProtocolError(closeCode.messageTooBig, `a message of over ${this.size} bytes is too big`);
    }
    if (!frame.fin) return undefined;
    const message = { opcode: this.code, data: Buffer.concat(this.fragments) };
    this.fragments = [];
    this.size = 0;
    this.code = undefined;
    return message;
  }
}

/** The payload of a close frame: the status code, then a reason. */
export function closePayload(code: number, reason = ""): Buffer {
  const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2);
  return payload;
}
