import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { kubeconfigYaml } from "./cli-test-support.ts";
import { KubeconfigError, kubeconfigPath, loadClusterAccess } from "./kubeconfig.ts";

describe("loadClusterAccess", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kvol-kubeconfig-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the server, token and certificate authority of the current context", () => {
    const path = join(dir, "kubeconfig");
    const caData = Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64");
    const text = kubeconfigYaml("https://127.0.0.1:41234/", "secret-token").replace(
      'server: "https://127.0.0.1:41234/"',
      `server: "https://127.0.0.1:41234/", certificate-authority-data: ${caData}`,
    );
    writeFileSync(path, text);
    const access = loadClusterAccess({ kubeconfig: path, env: {} });
    assert.deepEqual(access, {
      server: "https://127.0.0.1:41234",
      token: "secret-token",
      caPem: "-----BEGIN CERTIFICATE-----\n",
      namespace: "default",
      source: path,
    });
  });

  it("follows the chosen context to its cluster, user (token file) and namespace", () => {
    const path = join(dir, "config");
    writeFileSync(join(dir, "token"), "from-file\n");
    writeFileSync(
      path,
      `apiVersion: v1
kind: Config
current-context: a
clusters:
  - { name: one, cluster: { server: "http://one:1" } }
  - { name: two, cluster: { server: "http://two:2" } }
users:
  - { name: u, user: { tokenFile: token } }
contexts:
  - { name: a, context: { cluster: one, user: u } }
  - { name: b, context: { cluster: two, user: u, namespace: storage } }
`,
    );
    const access = loadClusterAccess({ kubeconfig: path, context: "b", env: {} });
    assert.equal(access.server, "http://two:2");
    assert.equal(access.token, "from-file");
    assert.equal(access.namespace, "storage");
  });

  it("takes $KUBECONFIG, then the data directory of kvol up", () => {
    const path = join(dir, "k");
    writeFileSync(path, kubeconfigYaml("http://x:1", "t"));
    assert.equal(kubeconfigPath({ env: { KUBECONFIG: `${join(dir, "missing")}:${path}` } }), path);
    assert.equal(kubeconfigPath({ env: { KVOL_DATA_DIR: dir } }), join(dir, "kubeconfig"));
  });

  it("says how to get a kubeconfig when there is none", () => {
    assert.throws(
      () => loadClusterAccess({ env: { KVOL_DATA_DIR: dir } }),
      (error: unknown) => error instanceof KubeconfigError && /kvol up/.test(error.message),
    );
  });
});
