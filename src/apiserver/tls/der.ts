/**
 * The few pieces of ASN.1 DER that a self-signed X.509 certificate needs (ITU-T X.690): tags,
 * lengths, integers, object identifiers, strings and times.
 */

function lengthBytes(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return [0x80 | bytes.length, ...bytes];
}

export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag, ...lengthBytes(content.length)]), content]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(items));
/** `[n] EXPLICIT`: a constructed context-specific tag around an encoded value. */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 + n, inner);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, "utf8"));
export const octetString = (content: Uint8Array): Buffer => tlv(0x04, content);
export const booleanTrue = (): Buffer => Buffer.from([0x01, 0x01, 0xff]);

/** A BIT STRING whose last byte leaves `unusedBits` bits unused. */
export function bitString(content: Uint8Array, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

/** A non-negative INTEGER from its big-endian bytes (a 0 byte is added when the top bit is set). */
export function unsignedInteger(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const needsPad = ((trimmed[0] ?? 0) & 0x80) !== 0;
  return tlv(0x02, needsPad ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split(".").map(Number);
  const [first = 0, second = 0, ...rest] = arcs;
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const groups: number[] = [arc % 128];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      groups.unshift(0x80 | (value % 128));
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/**
 * An X.509 time from an RFC 3339 UTC timestamp (`2026-11-21T16:05:00Z`): UTCTime before 2050,
 * GeneralizedTime from then on, as RFC 5280 requires.
 */
export function x509Time(rfc3339: string): Buffer {
  const digits = rfc3339.replace(/[-:T]/g, "").replace(/Z$/, "").slice(0, 14);
  const year = Number(digits.slice(0, 4));
  return year < 2050
    ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, "ascii"))
    : tlv(0x18, Buffer.from(`${digits}Z`, "ascii"));
}

/** One element read back from DER: its tag, and where its content and the element end. */
interface DerElement {
  tag: number;
  contentStart: number;
  end: number;
}

/** The element starting at `offset` of `der` (definite lengths only, as DER has). */
export function readElement(der: Uint8Array, offset: number): DerElement {
  const tag = der[offset] ?? 0;
  const first = der[offset + 1] ?? 0;
  if (first < 0x80) return { tag, contentStart: offset + 2, end: offset + 2 + first };
  const count = first & 0x7f;
  let length = 0;
  for (let index = 0; index < count; index++) length = length * 256 + (der[offset + 2 + index] ?? 0);
  const contentStart = offset + 2 + count;
  return { tag, contentStart, end: contentStart + length };
}
