import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { serverAccessFromFlags } from "./server-flags.ts";

const caPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

describe("the API server flags of kvol node and kvol csi-driver", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-server-flags-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const caFile = join(dir, "ca.crt");
  writeFileSync(caFile, caPem);
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, "node-token\n");
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{ name: kvol, cluster: { server: "https://10.0.0.1:8080", certificate-authority: ca.crt } }]
users: [{ name: admin, user: { token: admin-token } }]
contexts: [{ name: kvol, context: { cluster: kvol, user: admin } }]
current-context: kvol
`,
  );

  it("reads the server, its CA file and the token as kubectl's flags name them", () => {
    assert.deepEqual(
      serverAccessFromFlags({
        server: "https://10.0.0.1:8080,https://10.0.0.2:8080",
        "certificate-authority": caFile,
        "token-file": tokenFile,
      }),
      { serverUrl: "https://10.0.0.1:8080,https://10.0.0.2:8080", token: "node-token", caPem },
    );
    assert.equal(serverAccessFromFlags({}), undefined);
  });

  it("takes all three from a kubeconfig, each flag overriding it", () => {
    assert.deepEqual(serverAccessFromFlags({ kubeconfig }), {
      serverUrl: "https://10.0.0.1:8080",
      token: "admin-token",
      caPem,
    });
    assert.deepEqual(serverAccessFromFlags({ kubeconfig, "token-file": tokenFile, server: "https://cp-2:8080" }), {
      serverUrl: "https://cp-2:8080",
      token: "node-token",
      caPem,
    });
  });

  it("says which flag is wrong", () => {
    assert.throws(() => serverAccessFromFlags({ server: "10.0.0.1:8080" }), {
      message: `--server must be an https:// (or http://) URL, got "10.0.0.1:8080"`,
    });
    assert.throws(() => serverAccessFromFlags({ "certificate-authority": caFile }), {
      message: "--certificate-authority needs --server",
    });
    assert.throws(
      () => serverAccessFromFlags({ server: "https://h", "certificate-authority": join(dir, "missing.crt") }),
      new RegExp(`^Error: cannot read --certificate-authority ${join(dir, "missing.crt")}: ENOENT`),
    );
    assert.throws(() => serverAccessFromFlags({ server: "https://h", "certificate-authority": tokenFile }), {
      message: `--certificate-authority ${tokenFile}: holds no PEM certificate`,
    });
    assert.throws(() => serverAccessFromFlags({ server: "https://h", token: "t", "token-file": tokenFile }), {
      message: "give --token or --token-file, not both",
    });
  });
});
