import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { certificateAuthority } from "../../apiserver/tls/self-signed-certificate.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { DataDir } from "./data-dir.ts";
import { loadOrCreateCa, servingCertificate } from "./serving-ca.ts";

describe("the API server's certificate authority", () => {
  let dir: string;
  let data: DataDir;
  const nowMs = new RealClock().now();
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kvol-ca-"));
    data = new DataDir(dir);
    data.create();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is made once and kept, so the ca.crt clients hold stays valid across restarts", () => {
    const first = loadOrCreateCa(data, nowMs);
    assert.equal(readFileSync(join(dir, "ca.crt"), "utf8"), first.certificatePem);
    const again = loadOrCreateCa(new DataDir(dir), nowMs + 60_000);
    assert.equal(again.certificatePem, first.certificatePem);
    const ca = new X509Certificate(first.certificatePem);
    assert.ok(ca.ca);
    assert.match(ca.subject, /^CN=kvol-apiserver-ca@\d+$/);
  });

  it("signs serving certificates for the loopback names, this host and the listen address", () => {
    const ca = loadOrCreateCa(data, nowMs);
    const serving = new X509Certificate(servingCertificate(ca, "10.1.2.3", nowMs).certificatePem);
    assert.ok(serving.verify(new X509Certificate(ca.certificatePem).publicKey), "the CA signed it");
    assert.ok(serving.checkIssued(new X509Certificate(ca.certificatePem)));
    assert.equal(serving.ca, false);
    for (const ip of ["127.0.0.1", "::1", "10.1.2.3"]) assert.equal(serving.checkIP(ip), ip);
    for (const name of ["localhost", hostname()]) assert.equal(serving.checkHost(name), name);
    assert.equal(serving.checkIP("10.9.9.9"), undefined);
    const everywhere = new X509Certificate(servingCertificate(ca, "0.0.0.0", nowMs).certificatePem);
    assert.equal(everywhere.checkIP("0.0.0.0"), undefined, "0.0.0.0 is no address to connect to");
  });

  it("refuses a ca.key that is not ca.crt's, naming both files and how to start over", () => {
    loadOrCreateCa(data, nowMs);
    writeFileSync(join(dir, "ca.key"), certificateAuthority({ commonName: "other", nowMs }).privateKeyPem);
    assert.throws(() => loadOrCreateCa(data, nowMs), {
      message: `cannot use the certificate authority ${join(dir, "ca.crt")} with ${join(dir, "ca.key")}: the key is not the certificate's; put back the right pair, or remove both files to make a new CA (then give clients the new ca.crt)`,
    });
  });
});
