/**
 * TLS for test API servers, as `kvol up` has it: a certificate authority, and a serving
 * certificate it signs for `127.0.0.1`, `::1` and `localhost`. Clients trust `caPem`
 * (`new HttpClient({ url: server.secureUrl, caPem })`, `fetchTrusting(caPem)`), since bearer
 * tokens travel over TLS only.
 */
import type { TlsIdentity } from "../tls/dual-protocol-listener.ts";
import { certificateAuthority, signedServingCertificate } from "../tls/self-signed-certificate.ts";

export interface TestTls {
  /** The certificate authority clients trust (PEM). */
  caPem: string;
  /** The server's `tls` option. */
  tls: TlsIdentity;
}

/** A CA and a serving certificate for the loopback names, valid from `nowMs` (the wall clock's now). */
export function testTls(nowMs: number): TestTls {
  const ca = certificateAuthority({ commonName: `kvol-test-ca@${nowMs}`, nowMs });
  const tls = signedServingCertificate({
    commonName: "kvol-apiserver",
    hosts: ["localhost", "127.0.0.1", "::1"],
    nowMs,
    issuer: ca,
  });
  return { caPem: ca.certificatePem, tls };
}
