/**
 * TLS to etcd: the files are checked before any connection, each error naming the flag and the
 * file; against an etcd started with `--client-cert-auth` on certificates made by openssl here, the
 * backend works with the right CA and client certificate, and says which flag is wrong otherwise.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { suiteSkip } from "../../testing/requirements.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { checkEtcdUrlsForTls, type EtcdTls, loadEtcdTls } from "./etcd-tls.ts";
import {
  type EtcdTestCertificates,
  makeEtcdTestCertificates,
  opensslMissing,
} from "./testing/etcd-test-certificates.ts";
import { etcdBinary, startTestEtcd, type TestEtcd } from "./testing/etcd-test-server.ts";

function loaded(tls: EtcdTls | undefined): EtcdTls {
  assert.ok(tls !== undefined);
  return tls;
}

describe("etcd TLS files", { skip: suiteSkip("etcd TLS files", opensslMissing()) }, () => {
  let pki: EtcdTestCertificates;
  before(() => {
    pki = makeEtcdTestCertificates();
  });
  after(() => pki.remove());

  it("reads the CA, the client certificate and its key; none given is plain system trust", () => {
    const tls = loaded(loadEtcdTls({ caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile }));
    assert.match(tls.credentials.rootCertificate.toString(), /BEGIN CERTIFICATE/);
    assert.match(tls.credentials.certChain?.toString() ?? "", /BEGIN CERTIFICATE/);
    assert.match(tls.credentials.privateKey?.toString() ?? "", /PRIVATE KEY/);
    assert.equal(loadEtcdTls({}), undefined);
  });

  it("names the flag and the file of what is wrong", () => {
    const missing = join(pki.dir, "nope.crt");
    assert.throws(() => loadEtcdTls({ caFile: missing }), {
      message: new RegExp(`^--etcd-cafile ${missing}: cannot read it: ENOENT`),
    });
    const notPem = join(pki.dir, "not-pem.crt");
    writeFileSync(notPem, "hello\n");
    assert.throws(() => loadEtcdTls({ caFile: notPem }), {
      message: new RegExp(`^--etcd-cafile ${notPem}: not a PEM certificate`),
    });
    assert.throws(() => loadEtcdTls({ certFile: pki.clientCertFile }), {
      message: "--etcd-certfile and --etcd-keyfile go together: give both the client certificate and its key",
    });
    assert.throws(() => loadEtcdTls({ certFile: pki.clientCertFile, keyFile: pki.serverKeyFile }), {
      message: `--etcd-keyfile ${pki.serverKeyFile} is not the key of the certificate in --etcd-certfile ${pki.clientCertFile}`,
    });
    assert.throws(() => loadEtcdTls({ certFile: pki.clientCertFile, keyFile: pki.clientCertFile }), {
      message: new RegExp(`^--etcd-keyfile ${pki.clientCertFile}: not a PEM private key`),
    });
  });

  it("wants https:// URLs with the TLS flags, and no mix of http and https", () => {
    assert.throws(() => checkEtcdUrlsForTls(["http://127.0.0.1:2379"], { caFile: pki.caFile }), {
      message: "--etcd-cafile need https:// URLs in --etcd-servers (got http://127.0.0.1:2379)",
    });
    assert.throws(() => checkEtcdUrlsForTls(["https://10.0.0.1:2379", "http://10.0.0.2:2379"], {}), {
      message: "--etcd-servers: mixes http:// and https:// URLs; etcd is reached over one or the other",
    });
    checkEtcdUrlsForTls(["https://10.0.0.1:2379", "https://10.0.0.2:2379"], { caFile: pki.caFile });
    checkEtcdUrlsForTls(["http://10.0.0.1:2379"], {});
  });
});

function tlsEtcdSkip(): string | undefined {
  if (etcdBinary() === undefined) return "etcd is not installed (Debian: apt-get install etcd-server)";
  return opensslMissing();
}

describe("the etcd backend over TLS", { skip: suiteSkip("the etcd backend over TLS", tlsEtcdSkip()) }, () => {
  let pki: EtcdTestCertificates;
  let etcd: TestEtcd;
  before(async () => {
    pki = makeEtcdTestCertificates();
    etcd = await startTestEtcd({
      tls: { certFile: pki.serverCertFile, keyFile: pki.serverKeyFile, trustedCaFile: pki.caFile },
    });
  });
  after(async () => {
    await etcd?.stop();
    pki?.remove();
  });

  it("writes and reads with the CA and a client certificate etcd trusts", { timeout: 60_000 }, async () => {
    assert.match(etcd.endpoint, /^https:\/\/127\.0\.0\.1:\d+$/);
    const tls = loaded(loadEtcdTls({ caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile }));
    const backend = await EtcdBackend.open({ endpoints: [etcd.endpoint], tls });
    try {
      const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "tls", namespace: "default" } };
      const created = await backend.create("/registry/configmaps/default/tls", object);
      const read = await backend.get("/registry/configmaps/default/tls");
      assert.equal(read?.modRevision, created.modRevision);
      assert.equal(read?.object.metadata?.name, "tls");
    } finally {
      await backend.close();
    }
  });

  it("with another CA, says etcd's certificate is not signed by the CA in --etcd-cafile", {
    timeout: 60_000,
  }, async () => {
    const tls = loaded(
      loadEtcdTls({ caFile: pki.otherCaFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile }),
    );
    await assert.rejects(EtcdBackend.open({ endpoints: [etcd.endpoint], tls }), {
      message: new RegExp(
        `^cannot use etcd at ${etcd.endpoint}: etcd's serving certificate is not signed by the CA in --etcd-cafile ${pki.otherCaFile}: `,
      ),
    });
  });

  it("without a client certificate, says etcd asks for --etcd-certfile and --etcd-keyfile", {
    timeout: 60_000,
  }, async () => {
    const tls = loaded(loadEtcdTls({ caFile: pki.caFile }));
    await assert.rejects(EtcdBackend.open({ endpoints: [etcd.endpoint], tls }), {
      message: new RegExp(
        `^cannot use etcd at ${etcd.endpoint}: etcd asks for a client certificate: give --etcd-certfile and --etcd-keyfile: `,
      ),
    });
  });

  it("with no CA given, says the system does not trust etcd's certificate", { timeout: 60_000 }, async () => {
    await assert.rejects(EtcdBackend.open({ endpoints: [etcd.endpoint] }), {
      message:
        /etcd's serving certificate is not signed by a CA this machine trusts: give the CA that signed it with --etcd-cafile/,
    });
  });
});
