/**
 * A minimal protocol buffers encoder: the varint and length-delimited wire types, which is all the
 * OpenAPI v2 protobuf document uses (strings, booleans, nested and repeated messages).
 */

const varintWireType = 0;
const lengthDelimitedWireType = 2;

export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];

  private varint(value: number): void {
    const bytes: number[] = [];
    let rest = value;
    while (rest > 0x7f) {
      bytes.push((rest & 0x7f) | 0x80);
      rest = Math.floor(rest / 128);
    }
    bytes.push(rest);
    this.parts.push(Uint8Array.from(bytes));
  }

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  private bytes(field: number, data: Uint8Array): void {
    this.tag(field, lengthDelimitedWireType);
    this.varint(data.length);
    this.parts.push(data);
  }

  /** proto3 leaves default values out: an empty string is not written. */
  string(field: number, value: string | undefined): this {
    if (value !== undefined && value !== "") this.bytes(field, Buffer.from(value, "utf8"));
    return this;
  }

  strings(field: number, values: readonly string[] | undefined): this {
    for (const value of values ?? []) this.bytes(field, Buffer.from(value, "utf8"));
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (value === true) {
      this.tag(field, varintWireType);
      this.varint(1);
    }
    return this;
  }

  /** A nested message, written even when empty: inside a oneof its presence is the information. */
  message(field: number, build: (writer: ProtoWriter) => void): this {
    const nested = new ProtoWriter();
    build(nested);
    this.bytes(field, nested.finish());
    return this;
  }

  finish(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}
