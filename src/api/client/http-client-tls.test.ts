/**
 * HttpClient over `https://`: the server's certificate must chain to the given certificate
 * authority and name the host of the URL, as kubectl checks it; the bearer token goes over TLS.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { StaticTokenAuthenticator } from "../../apiserver/auth/token-authenticator.ts";
import { type RunningApiServer, startApiServer } from "../../apiserver/server.ts";
import { testTls } from "../../apiserver/testing/test-tls.ts";
import { certificateAuthority, signedServingCertificate } from "../../apiserver/tls/self-signed-certificate.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { KubeStore } from "../store/kube-store.ts";
import { createMemoryStore } from "../store/memory-store.ts";
import { HttpClient } from "./http-client.ts";

const adminToken = "tls-admin-token";

describe("HttpClient over TLS", () => {
  const trusted = testTls(new RealClock().now());
  let store: KubeStore;
  let server: RunningApiServer;
  let secureUrl: string;
  before(async () => {
    const clock = new VirtualClock();
    store = createMemoryStore({ clock, random: new Rng(1).stream("store") });
    server = await startApiServer({
      store,
      clock,
      logger: new Logger({ clock, sink: new MemorySink() }),
      authenticator: new StaticTokenAuthenticator([
        { token: adminToken, user: { name: "kvol-admin", uid: "admin", groups: ["system:masters"] } },
      ]),
      tls: trusted.tls,
    });
    secureUrl = server.secureUrl ?? "";
  });
  after(async () => {
    await server.close();
    await store.close();
  });

  it("reads and writes with its token once the server's certificate chains to the CA", async () => {
    const client = new HttpClient({ url: secureUrl, bearerToken: adminToken, caPem: trusted.caPem });
    await client.namespaces.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "over-tls" } });
    assert.equal((await client.namespaces.get("", "over-tls")).metadata?.name, "over-tls");
    const byName = new HttpClient({
      url: secureUrl.replace("127.0.0.1", "localhost"),
      bearerToken: adminToken,
      caPem: trusted.caPem,
    });
    assert.equal((await byName.namespaces.get("", "over-tls")).metadata?.name, "over-tls");
  });

  it("refuses a server whose certificate another CA signed, saying what to give", async () => {
    const other = testTls(new RealClock().now());
    const client = new HttpClient({ url: secureUrl, bearerToken: adminToken, caPem: other.caPem });
    await assert.rejects(client.namespaces.get("", "default"), (error: Error) => {
      assert.match(
        error.message,
        /^GET \/api\/v1\/namespaces\/default to the API server https:\/\/127\.0\.0\.1:\d+ failed: /,
      );
      assert.match(
        error.message,
        /the server's certificate is not trusted: give the certificate authority that signed it/,
      );
      return true;
    });
  });

  it("refuses a certificate that does not name the host connected to", async () => {
    const nowMs = new RealClock().now();
    const ca = certificateAuthority({ commonName: "other-names-ca", nowMs });
    const localhostOnly = signedServingCertificate({ commonName: "x", hosts: ["localhost"], nowMs, issuer: ca });
    const clock = new VirtualClock();
    const named = await startApiServer({
      store,
      clock,
      logger: new Logger({ clock, sink: new MemorySink() }),
      tls: localhostOnly,
    });
    try {
      const url = named.secureUrl ?? "";
      const client = new HttpClient({ url, caPem: ca.certificatePem });
      await assert.rejects(client.namespaces.get("", "default"), /the server's certificate does not name this host/);
      const byName = new HttpClient({ url: url.replace("127.0.0.1", "localhost"), caPem: ca.certificatePem });
      assert.equal((await byName.namespaces.get("", "default")).metadata?.name, "default");
    } finally {
      await named.close();
    }
  });
});
