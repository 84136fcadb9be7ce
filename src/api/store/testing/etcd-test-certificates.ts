/**
 * Certificates for TLS etcd tests, made with `openssl` at test time in a fresh mkdtemp directory:
 * a CA, etcd's serving certificate for 127.0.0.1 and a client certificate, both signed by it, and
 * a second CA that signed neither. `remove` deletes the directory.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface EtcdTestCertificates {
  dir: string;
  caFile: string;
  /** A CA that signed none of the certificates here. */
  otherCaFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  remove(): void;
}

/** Why the certificates cannot be made here, or undefined. */
export function opensslMissing(): string | undefined {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return undefined;
  } catch (error) {
    return `openssl cannot run (Debian: apt-get install openssl): ${(error as Error).message}`;
  }
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

function selfSignedCa(dir: string, name: string): void {
  openssl(dir, [
    "req",
    "-x509",
    ...ecKey,
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-subj",
    `/CN=${name}`,
    "-days",
    "2",
  ]);
}

function signedLeaf(dir: string, name: string, extensions: string): void {
  openssl(dir, ["req", ...ecKey, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`]);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    `${name}.crt`,
    "-extfile",
    `${name}.ext`,
  ]);
}

export function makeEtcdTestCertificates(): EtcdTestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "kvol-etcd-pki-"));
  try {
    selfSignedCa(dir, "ca");
    selfSignedCa(dir, "other-ca");
    signedLeaf(dir, "server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    signedLeaf(dir, "client", "extendedKeyUsage=clientAuth\n");
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    caFile: join(dir, "ca.crt"),
    otherCaFile: join(dir, "other-ca.crt"),
    serverCertFile: join(dir, "server.crt"),
    serverKeyFile: join(dir, "server.key"),
    clientCertFile: join(dir, "client.crt"),
    clientKeyFile: join(dir, "client.key"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
