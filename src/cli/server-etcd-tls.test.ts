/**
 * `kvol server --etcd-servers https://… --etcd-cafile --etcd-certfile --etcd-keyfile`
 * (kube-apiserver's flags) against an etcd that asks every client for a certificate, made with
 * openssl here: objects written through the API land in etcd; the wrong CA stops the server at
 * start with a message naming the flag and the file.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Etcd3 } from "etcd3";
import {
  type EtcdTestCertificates,
  makeEtcdTestCertificates,
  opensslMissing,
} from "../api/store/testing/etcd-test-certificates.ts";
import { etcdBinary, startTestEtcd, type TestEtcd } from "../api/store/testing/etcd-test-server.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { parseServerArguments } from "./server-command.ts";
import { runServerInProcess } from "./testing/in-process-server.ts";

const startTimeoutMs = 60_000;

describe("kvol server's etcd TLS flags", () => {
  it("go with https:// --etcd-servers only", () => {
    assert.throws(() => parseServerArguments(["--etcd-cafile", "/etc/ca.crt"]), {
      message: "--etcd-cafile, --etcd-certfile and --etcd-keyfile are for --etcd-servers",
    });
    assert.throws(() => parseServerArguments(["--etcd-servers", "http://127.0.0.1:2379", "--etcd-certfile", "c"]), {
      message: "--etcd-certfile need https:// URLs in --etcd-servers (got http://127.0.0.1:2379)",
    });
    const parsed = parseServerArguments([
      "--etcd-servers",
      "https://10.0.0.1:2379,https://10.0.0.2:2379",
      "--etcd-cafile",
      "/etc/kvol/etcd-ca.crt",
      "--etcd-certfile",
      "/etc/kvol/etcd-client.crt",
      "--etcd-keyfile",
      "/etc/kvol/etcd-client.key",
    ]);
    assert.ok(!("help" in parsed));
    assert.deepEqual(parsed.etcdTls, {
      caFile: "/etc/kvol/etcd-ca.crt",
      certFile: "/etc/kvol/etcd-client.crt",
      keyFile: "/etc/kvol/etcd-client.key",
    });
  });
});

function skipReason(): string | undefined {
  if (etcdBinary() === undefined) return "etcd is not installed (Debian: apt-get install etcd-server)";
  return opensslMissing();
}

describe("kvol server on etcd over TLS", { skip: suiteSkip("kvol server on etcd over TLS", skipReason()) }, () => {
  let pki: EtcdTestCertificates;
  let etcd: TestEtcd;
  const dirs: string[] = [];
  before(async () => {
    pki = makeEtcdTestCertificates();
    etcd = await startTestEtcd({
      tls: { certFile: pki.serverCertFile, keyFile: pki.serverKeyFile, trustedCaFile: pki.caFile },
    });
  });
  after(async () => {
    await etcd?.stop();
    pki?.remove();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-etcd-tls-"));
    dirs.push(dir);
    return dir;
  };

  it("keeps what is written through the API in etcd", { timeout: 120_000 }, async () => {
    const dir = dataDir();
    const server = runServerInProcess([
      ...["--port", "0", "--data-dir", dir, "--etcd-servers", etcd.endpoint],
      ...["--etcd-cafile", pki.caFile, "--etcd-certfile", pki.clientCertFile, "--etcd-keyfile", pki.clientKeyFile],
    ]);
    try {
      await server.ready(startTimeoutMs);
      const url = server.url();
      const answer = await server.fetch(`${url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${new DataDir(dir).ensureAdminToken()}`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "over-tls" }, data: { a: "b" } }),
      });
      assert.equal(answer.status, 201, await answer.text());
    } finally {
      assert.equal(await server.stop(), 0, server.stderr());
    }
    const raw = new Etcd3({
      hosts: [etcd.endpoint],
      credentials: {
        rootCertificate: readFileSync(pki.caFile),
        certChain: readFileSync(pki.clientCertFile),
        privateKey: readFileSync(pki.clientKeyFile),
      },
    });
    try {
      const stored = await raw.get("/registry/configmaps/default/over-tls").json();
      assert.deepEqual((stored as { data?: unknown } | null)?.data, { a: "b" });
    } finally {
      raw.close();
    }
  });

  it("with the wrong --etcd-cafile, exits at start naming the flag and the file", { timeout: 120_000 }, async () => {
    const server = runServerInProcess([
      ...["--port", "0", "--data-dir", dataDir(), "--etcd-servers", etcd.endpoint],
      ...["--etcd-cafile", pki.otherCaFile, "--etcd-certfile", pki.clientCertFile, "--etcd-keyfile", pki.clientKeyFile],
    ]);
    assert.equal(await server.running, 1);
    assert.match(
      server.stderr(),
      new RegExp(
        `kvol server: cannot use etcd at ${etcd.endpoint}: etcd's serving certificate is not signed by the CA in --etcd-cafile ${pki.otherCaFile}: `,
      ),
    );
  });
});
