/**
 * X.509 certificates with ECDSA P-256 keys, written with the DER pieces of `der.ts`: a self-signed
 * serving certificate (its own CA: the kubelet's server), a certificate authority, and a serving
 * certificate that authority signs (the API server's: the CA stays the same across restarts and
 * replicas, so the clients' certificate authority file does too). Each serving certificate is
 * valid for the host names and addresses its server answers on.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import { formatRfc3339 } from "../../runtime/clock.ts";
import {
  bitString,
  booleanTrue,
  explicit,
  objectIdentifier,
  octetString,
  readElement,
  sequence,
  set,
  tlv,
  unsignedInteger,
  utf8String,
  x509Time,
} from "./der.ts";

/** How long a self-signed certificate or a certificate authority is valid (ten years, kubeadm's CA). */
const certificateValidityMs = 3650 * 24 * 60 * 60 * 1000;
/** How long a serving certificate a CA signs is valid (one year, kubeadm's; made again at every start). */
const signedCertificateValidityMs = 365 * 24 * 60 * 60 * 1000;
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

export interface ServingCertificate {
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

/** What a certificate is for: a CA signs certificates, a server serves TLS. */
type CertificateRole = "self-signed server" | "certificate authority" | "server";

interface CertificateSpec {
  commonName: string;
  hosts: readonly string[];
  role: CertificateRole;
  nowMs: number;
  validityMs: number;
  /** The signer; none: the certificate signs itself. */
  issuer?: ServingCertificate;
}

/**
 * The subject name of a certificate, byte for byte, to be the issuer name of the certificates it
 * signs (clients match the two exactly): Certificate → tbsCertificate → the sixth element.
 */
function subjectOf(certificatePem: string): Buffer {
  const der = Buffer.from(new X509Certificate(certificatePem).raw);
  const tbs = readElement(der, readElement(der, 0).contentStart);
  let start = tbs.contentStart;
  // version [0], serialNumber, signature, issuer, validity: then the subject.
  for (let index = 0; index < 5; index++) start = readElement(der, start).end;
  return der.subarray(start, readElement(der, start).end);
}

function extensionsFor(role: CertificateRole, hosts: readonly string[]): Buffer {
  // keyUsage digitalSignature (bit 0) and keyCertSign (bit 5): 1000 0100, two bits unused.
  const signsCertificates = role !== "server";
  const keyUsage = signsCertificates ? bitString(Buffer.from([0x84]), 2) : bitString(Buffer.from([0x80]), 7);
  return sequence(
    extension(oid.basicConstraints, true, signsCertificates ? sequence(booleanTrue()) : sequence()),
    extension(oid.keyUsage, true, keyUsage),
    ...(role === "certificate authority"
      ? []
      : [
          extension(oid.extendedKeyUsage, false, sequence(objectIdentifier(oid.serverAuth))),
          extension(oid.subjectAltName, false, subjectAltNames(hosts)),
        ]),
  );
}

function distinguishedName(commonName: string): Buffer {
  return sequence(set(sequence(objectIdentifier(oid.commonName), utf8String(commonName))));
}

function buildCertificate(spec: CertificateSpec): ServingCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const algorithm = sequence(objectIdentifier(oid.ecdsaWithSha256));
  const serial = randomBytes(serialNumberBytes);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    algorithm,
    spec.issuer === undefined ? distinguishedName(spec.commonName) : subjectOf(spec.issuer.certificatePem),
    sequence(
      x509Time(formatRfc3339(spec.nowMs - certificateBackdateMs)),
      x509Time(formatRfc3339(spec.nowMs + spec.validityMs)),
    ),
    distinguishedName(spec.commonName),
    publicKey.export({ type: "spki", format: "der" }),
    explicit(3, extensionsFor(spec.role, spec.hosts)),
  );
  const signingKey = spec.issuer === undefined ? privateKey : createPrivateKey(spec.issuer.privateKeyPem);
  const signature = sign("sha256", tbs, signingKey);
  const certificate = sequence(tbs, algorithm, bitString(signature));
  return {
    certificatePem: pem("CERTIFICATE", certificate),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

export function selfSignedCertificate(options: CertificateOptions): ServingCertificate {
  return buildCertificate({ ...options, role: "self-signed server", validityMs: certificateValidityMs });
}

/** A certificate authority named `commonName`, valid for ten years from `nowMs`. */
export function certificateAuthority(options: { commonName: string; nowMs: number }): ServingCertificate {
  return buildCertificate({
    ...options,
    hosts: [],
    role: "certificate authority",
    validityMs: certificateValidityMs,
  });
}

/** A serving certificate for `hosts` signed by `issuer` (a certificate authority), valid for a year. */
export function signedServingCertificate(
  options: CertificateOptions & { issuer: ServingCertificate },
): ServingCertificate {
  return buildCertificate({ ...options, role: "server", validityMs: signedCertificateValidityMs });
}
