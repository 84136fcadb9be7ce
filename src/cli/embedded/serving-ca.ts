/**
 * The API server's certificates, as kubeadm lays them out: a certificate authority kept in the
 * data directory (`ca.crt`, `ca.key`: made once, ten years), and a serving certificate it signs at
 * every start for the names clients use (`localhost`, `127.0.0.1`, `::1`, this machine's host name,
 * the listen address — or every address of this machine when listening on all of them — and those
 * given with `--tls-san`, so a changed list takes effect at the next start). The CA
 * file handed to kubectl, `kvol node` and the other clients thus stays valid across restarts, and
 * two `kvol server` replicas given the same two files serve certificates one CA file trusts.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import {
  certificateAuthority,
  type ServingCertificate,
  signedServingCertificate,
} from "../../apiserver/tls/self-signed-certificate.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { caFileName, caKeyFileName, certificateCommonName } from "./constants.ts";
import type { DataDir } from "./data-dir.ts";

/** Addresses that mean "every interface". */
const unspecifiedAddresses = new Set(["0.0.0.0", "::"]);

/** A CA this close to its end is still used, but the serving certificates it signs end with it. */
function caProblem(ca: ServingCertificate, nowMs: number): string | undefined {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(ca.certificatePem);
  } catch (error) {
    return `it holds no certificate (${errorMessage(error)})`;
  }
  if (!certificate.ca) return "its certificate is not a certificate authority (basicConstraints CA:TRUE)";
  if (Date.parse(certificate.validTo) <= nowMs) return `its certificate expired on ${certificate.validTo}`;
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(ca.privateKeyPem))) return "the key is not the certificate's";
  } catch (error) {
    return `the key cannot be read (${errorMessage(error)})`;
  }
  return undefined;
}

/** The data directory's CA, made when neither file exists; an error naming the files when they cannot be used. */
export function loadOrCreateCa(dataDir: DataDir, nowMs: number): ServingCertificate {
  const certificateFile = dataDir.file(caFileName);
  const keyFile = dataDir.file(caKeyFileName);
  if (!existsSync(keyFile)) {
    // No key: a first start, or a data directory of a kvol that made a self-signed certificate instead.
    const ca = certificateAuthority({ commonName: `${certificateCommonName}-ca@${Math.floor(nowMs / 1000)}`, nowMs });
    dataDir.writeCa(ca);
    return ca;
  }
  const ca = { certificatePem: readFileSync(certificateFile, "utf8"), privateKeyPem: readFileSync(keyFile, "utf8") };
  const problem = caProblem(ca, nowMs);
  if (problem !== undefined) {
    throw new Error(
      `cannot use the certificate authority ${certificateFile} with ${keyFile}: ${problem}; put back the right pair, or remove both files to make a new CA (then give clients the new ${caFileName})`,
    );
  }
  return ca;
}

/** The names and addresses clients may use to reach a server listening on `listenHost`. */
export function servingHosts(listenHost: string): string[] {
  const hosts = new Set(["localhost", "127.0.0.1", "::1", hostname()]);
  if (!unspecifiedAddresses.has(listenHost)) hosts.add(listenHost);
  else {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const entry of addresses ?? [])
        if (entry.scopeid === undefined || entry.scopeid === 0) hosts.add(entry.address);
    }
  }
  return [...hosts];
}

/** A serving certificate signed by `ca` for every name of `servingHosts(listenHost)` and the `--tls-san` names. */
export function servingCertificate(
  ca: ServingCertificate,
  listenHost: string,
  nowMs: number,
  extraSans: readonly string[] = [],
): ServingCertificate {
  return signedServingCertificate({
    commonName: certificateCommonName,
    hosts: [...new Set([...servingHosts(listenHost), ...extraSans])],
    nowMs,
    issuer: ca,
  });
}
