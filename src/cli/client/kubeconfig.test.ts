import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { KubeconfigError, kubeconfigFiles, loadClusterAccess } from "./kubeconfig.ts";
import { kubeconfigYaml } from "./testing/cli-test-support.ts";

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
      context: "test",
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

  it("merges the files of $KUBECONFIG as kubectl does: the first to set a value wins", () => {
    // The first file sets the current context and a cluster; the second defines that context's
    // user and also a cluster of the same name, which must not replace the first one's.
    mkdirSync(join(dir, "second"));
    writeFileSync(join(dir, "second", "token"), "second-token\n");
    const first = join(dir, "first");
    const second = join(dir, "second", "config");
    writeFileSync(
      first,
      `current-context: lab
clusters: [{ name: lab, cluster: { server: "http://first:1" } }]
contexts: [{ name: lab, context: { cluster: lab, user: me, namespace: sock-shop } }]
`,
    );
    writeFileSync(
      second,
      `current-context: other
clusters: [{ name: lab, cluster: { server: "http://second:2" } }, { name: other, cluster: { server: "http://other:3" } }]
users: [{ name: me, user: { tokenFile: token } }]
contexts: [{ name: other, context: { cluster: other, user: me } }]
`,
    );
    const env = { KUBECONFIG: [join(dir, "missing"), first, second].join(":") };
    const access = loadClusterAccess({ env });
    assert.equal(access.server, "http://first:1");
    assert.equal(access.token, "second-token", "a relative tokenFile is read beside the file that names it");
    assert.equal(access.namespace, "sock-shop");
    assert.equal(loadClusterAccess({ env, context: "other" }).server, "http://other:3");
    assert.throws(() => loadClusterAccess({ env, context: "nope" }), /has no context "nope" \(contexts: lab, other\)/);
  });

  it("takes --kubeconfig, then $KUBECONFIG, then ~/.kube/config, then the kubeconfig of kvol up", () => {
    const home = join(dir, "home");
    const env = { HOME: home, KVOL_DATA_DIR: join(dir, "data") };
    assert.deepEqual(kubeconfigFiles({ env }), [join(dir, "data", "kubeconfig")]);
    mkdirSync(join(home, ".kube"), { recursive: true });
    writeFileSync(join(home, ".kube", "config"), kubeconfigYaml("http://x:1", "t"));
    assert.deepEqual(kubeconfigFiles({ env }), [join(home, ".kube", "config")]);
    assert.deepEqual(kubeconfigFiles({ env: { ...env, KUBECONFIG: `${dir}/a:${dir}/b` } }), [
      join(dir, "a"),
      join(dir, "b"),
    ]);
    assert.deepEqual(kubeconfigFiles({ env: { ...env, KUBECONFIG: `${dir}/a` }, kubeconfig: `${dir}/c` }), [
      join(dir, "c"),
    ]);
  });

  it("says how to get a kubeconfig when there is none", () => {
    assert.throws(
      () => loadClusterAccess({ env: { HOME: dir, KVOL_DATA_DIR: dir } }),
      (error: unknown) =>
        error instanceof KubeconfigError &&
        error.message ===
          `no kubeconfig at ${join(dir, "kubeconfig")}: start a cluster with \`kvol up\`, or pass --kubeconfig or set KUBECONFIG`,
    );
  });
});
