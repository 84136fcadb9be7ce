import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { request } from "node:https";
import { describe, it } from "node:test";
import { RealClock } from "../../runtime/real-clock.ts";
import { createDualProtocolListener } from "./dual-protocol-listener.ts";
import { selfSignedCertificate } from "./self-signed-certificate.ts";

const nowMs = 1_795_000_000_000;

function httpsGet(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => resolve(text));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("TLS for the API server", () => {
  it("makes a self-signed certificate valid for the given names, now and for years", () => {
    const identity = selfSignedCertificate({
      commonName: "kvol-apiserver",
      hosts: ["localhost", "127.0.0.1", "::1"],
      nowMs,
    });
    const certificate = new X509Certificate(identity.certificatePem);
    assert.equal(certificate.subject, "CN=kvol-apiserver");
    assert.ok(certificate.ca);
    assert.ok(certificate.verify(certificate.publicKey), "it signs itself");
    assert.equal(certificate.checkHost("localhost"), "localhost");
    assert.equal(certificate.checkIP("127.0.0.1"), "127.0.0.1");
    assert.equal(certificate.checkIP("::1"), "::1");
    assert.equal(certificate.checkHost("example.com"), undefined);
    assert.ok(Date.parse(certificate.validFrom) <= nowMs && Date.parse(certificate.validTo) > nowMs + 365 * 86_400_000);
  });

  it("answers HTTP and HTTPS on one port, HTTPS trusted through the certificate as CA", async () => {
    const identity = selfSignedCertificate({ commonName: "t", hosts: ["127.0.0.1"], nowMs: new RealClock().now() });
    const listener = createDualProtocolListener((req, res) => {
      res.end(`${req.socket.constructor.name} ${req.url}`);
    }, identity);
    const { port } = await listener.listen(0, "127.0.0.1");
    try {
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/plain`)).text(), "Socket /plain");
      assert.equal(await httpsGet(`https://127.0.0.1:${port}/secure`, identity.certificatePem), "TLSSocket /secure");
      await assert.rejects(
        httpsGet(
          `https://127.0.0.1:${port}/`,
          selfSignedCertificate({ commonName: "other", hosts: ["127.0.0.1"], nowMs }).certificatePem,
        ),
        // The client trusts only the other certificate, so the server's own is refused as untrusted.
        { code: "DEPTH_ZERO_SELF_SIGNED_CERT" },
      );
    } finally {
      await listener.close();
    }
  });
});
