/**
 * The protocol buffers wire format: varints (int32 and int64 with Go's sign extension: a negative
 * value takes ten bytes), 64-bit doubles and length-delimited fields. Kubernetes' messages are
 * proto2 and never packed; the reader accepts packed repeated scalars all the same.
 */

const varintWire = 0;
const fixed64Wire = 1;
export const bytesWire = 2;
const fixed32Wire = 5;

export class WireWriter {
  private readonly parts: Uint8Array[] = [];
  private pending: number[] = [];

  private flushPending(): void {
    if (this.pending.length === 0) return;
    this.parts.push(Uint8Array.from(this.pending));
    this.pending = [];
  }

  /** A non-negative integer below 2^53, or a negative one as its 64-bit two's complement. */
  varint(value: number): void {
    if (value < 0 || !Number.isSafeInteger(value)) {
      this.bigVarint(BigInt.asUintN(64, BigInt(Math.trunc(value))));
      return;
    }
    let rest = value;
    while (rest > 0x7f) {
      this.pending.push((rest % 128) | 0x80);
      rest = Math.floor(rest / 128);
    }
    this.pending.push(rest);
  }

  private bigVarint(value: bigint): void {
    let rest = value;
    while (rest > 0x7fn) {
      this.pending.push(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    this.pending.push(Number(rest));
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  bytes(field: number, data: Uint8Array): void {
    this.tag(field, bytesWire);
    this.varint(data.length);
    this.flushPending();
    this.parts.push(data);
  }

  string(field: number, value: string): void {
    this.bytes(field, Buffer.from(value, "utf8"));
  }

  integer(field: number, value: number): void {
    this.tag(field, varintWire);
    this.varint(value);
  }

  bool(field: number, value: boolean): void {
    this.integer(field, value ? 1 : 0);
  }

  double(field: number, value: number): void {
    this.tag(field, fixed64Wire);
    const buffer = Buffer.alloc(8);
    buffer.writeDoubleLE(value);
    this.flushPending();
    this.parts.push(buffer);
  }

  finish(): Uint8Array {
    this.flushPending();
    return Buffer.concat(this.parts);
  }
}

/** One field as read: its number, wire type and value (a number for varints and fixed, bytes otherwise). */
export interface WireField {
  number: number;
  wireType: number;
  /** Varints as an unsigned 64-bit value; interpret with `asInt32`/`asInt64`. */
  varint: bigint;
  bytes: Uint8Array;
  fixed: Uint8Array;
}

/** A body or field that is not the protobuf the schema describes. */
export class ProtobufCodecError extends Error {}

class WireError extends ProtobufCodecError {}

export class WireReader {
  private offset = 0;

  constructor(private readonly data: Uint8Array) {}

  done(): boolean {
    return this.offset >= this.data.length;
  }

  readVarint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let count = 0; count < 10; count++) {
      if (this.offset >= this.data.length) throw new WireError("a varint runs past the end of the message");
      const byte = this.data[this.offset++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new WireError("a varint is longer than ten bytes");
  }

  private take(length: number): Uint8Array {
    if (length < 0 || this.offset + length > this.data.length) {
      throw new WireError("a field runs past the end of the message");
    }
    const slice = this.data.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  next(): WireField {
    const key = this.readVarint();
    const number = Number(key >> 3n);
    const wireType = Number(key & 7n);
    const field: WireField = { number, wireType, varint: 0n, bytes: empty, fixed: empty };
    if (number === 0) throw new WireError("a field has number 0");
    switch (wireType) {
      case varintWire:
        field.varint = this.readVarint();
        break;
      case fixed64Wire:
        field.fixed = this.take(8);
        break;
      case bytesWire:
        field.bytes = this.take(Number(this.readVarint()));
        break;
      case fixed32Wire:
        field.fixed = this.take(4);
        break;
      default:
        throw new WireError(`field ${number} has the unsupported wire type ${wireType}`);
    }
    return field;
  }
}

const empty = new Uint8Array(0);

export function asInt64(value: bigint): number {
  return Number(BigInt.asIntN(64, value));
}

export function asInt32(value: bigint): number {
  return Number(BigInt.asIntN(32, value));
}

export function asDouble(fixed: Uint8Array): number {
  return Buffer.from(fixed).readDoubleLE(0);
}

/** The varints of a packed repeated field. */
export function packedVarints(bytes: Uint8Array): bigint[] {
  const reader = new WireReader(bytes);
  const values: bigint[] = [];
  while (!reader.done()) values.push(reader.readVarint());
  return values;
}
