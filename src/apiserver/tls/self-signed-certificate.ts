/**
 * A self-signed serving certificate for the API server, so kubectl (which sends a bearer token
 * only over TLS) can authenticate: an ECDSA P-256 key, the certificate its own CA, valid for the
 * host names and addresses the server answers on. The kubeconfig carries it as
 * `certificate-authority-data`.
 */
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";
import { formatRfc3339 } from "../../runtime/clock.ts";
import {
  bitString,
  booleanTrue,
  explicit,
  objectIdentifier,
  octetString,
  sequence,
  set,
  tlv,
  unsignedInteger,
  utf8String,
  x509Time,
} from "./der.ts";

/** How long a generated certificate is valid (ten years; it is made again at every start anyway). */
const certificateValidityMs = 3650 * 24 * 60 * 60 * 1000;
/** Validity starts this much before now, so a client whose clock is a little behind accepts it. */
const certificateBackdateMs = 60 * 60 * 1000;

const oid = {
  commonName: "2.5.4.3",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extendedKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
} as const;

/** Context-specific tags of GeneralName in subjectAltName. */
const dnsNameTag = 0x82;
const ipAddressTag = 0x87;
const serialNumberBytes = 16;

interface ServingCertificate {
  /** PEM; the CA certificate too. */
  certificatePem: string;
  privateKeyPem: string;
}

interface CertificateOptions {
  commonName: string;
  /** Host names and IP addresses clients connect to (`localhost`, `127.0.0.1`, `::1`, …). */
  hosts: readonly string[];
  /** Epoch milliseconds: the current time (from a Clock). */
  nowMs: number;
}

function ipBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split(".").map(Number));
  const [head = "", tail = ""] = address.split("::");
  const words = (part: string): number[] =>
    part === "" ? [] : part.split(":").map((word) => Number.parseInt(word, 16));
  const front = words(head);
  const back = address.includes("::") ? words(tail) : [];
  const middle = new Array<number>(8 - front.length - back.length).fill(0);
  const all = [...front, ...middle, ...back];
  const buffer = Buffer.alloc(16);
  for (const [index, word] of all.entries()) buffer.writeUInt16BE(word, index * 2);
  return buffer;
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(id), ...(critical ? [booleanTrue()] : []), octetString(value));
}

function subjectAltNames(hosts: readonly string[]): Buffer {
  const names = hosts.map((host) =>
    isIP(host) === 0 ? tlv(dnsNameTag, Buffer.from(host, "ascii")) : tlv(ipAddressTag, ipBytes(host)),
  );
  return sequence(...names);
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

export function selfSignedCertificate(options: CertificateOptions): ServingCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const name = sequence(set(sequence(objectIdentifier(oid.commonName), utf8String(options.commonName))));
  const algorithm = sequence(objectIdentifier(oid.ecdsaWithSha256));
  const serial = randomBytes(serialNumberBytes);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  // keyUsage digitalSignature (bit 0) and keyCertSign (bit 5): 1000 0100, two bits unused.
  const keyUsage = bitString(Buffer.from([0x84]), 2);
  const extensions = sequence(
    extension(oid.basicConstraints, true, sequence(booleanTrue())),
    extension(oid.keyUsage, true, keyUsage),
    extension(oid.extendedKeyUsage, false, sequence(objectIdentifier(oid.serverAuth))),
    extension(oid.subjectAltName, false, subjectAltNames(options.hosts)),
  );
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    algorithm,
    name,
    sequence(
      x509Time(formatRfc3339(options.nowMs - certificateBackdateMs)),
      x509Time(formatRfc3339(options.nowMs + certificateValidityMs)),
    ),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    explicit(3, extensions),
  );
  const signature = sign("sha256", tbs, privateKey);
  const certificate = sequence(tbs, algorithm, bitString(signature));
  return {
    certificatePem: pem("CERTIFICATE", certificate),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}
