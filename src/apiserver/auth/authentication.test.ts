import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { fetchTrusting } from "../../testing/fetch-trusting.ts";
import {
  type AuthTestServer,
  adminToken,
  nobodyToken,
  nodeATokenValue,
  startAuthTestServer,
} from "./auth-test-server.ts";
import { TokenFileAuthenticator } from "./token-authenticator.ts";
import { formatTokenLine } from "./token-file.ts";
import { adminGroup, nodeUser } from "./user-info.ts";

const namespaces = "/api/v1/namespaces";

describe("bearer token authentication", () => {
  let t: AuthTestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("answers 401 Unauthorized without a token and with an unknown one, and stores nothing", async () => {
    t = await startAuthTestServer();
    const revision = t.store.revision();
    for (const token of [undefined, "not-a-known-token"]) {
      const answer = await t.call("POST", namespaces, token, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "x" },
      });
      assert.equal(answer.status, 401);
      assert.deepEqual(answer.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        details: {},
        code: 401,
      });
    }
    const notBearer = await fetchTrusting(t.caPem)(`${t.secureUrl}${namespaces}`, {
      headers: { Authorization: `Basic ${adminToken}` },
    });
    assert.equal(notBearer.status, 401);
    assert.equal(t.store.revision(), revision);
  });

  it("refuses a token over plain HTTP, from this machine too, saying how to connect; without a token the answer is as over TLS", async () => {
    t = await startAuthTestServer();
    const plain = await fetch(`${t.server.url}${namespaces}`, { headers: { Authorization: `Bearer ${adminToken}` } });
    assert.equal(plain.status, 401);
    const status = (await plain.json()) as { message: string; reason: string };
    assert.equal(status.reason, "Unauthorized");
    assert.equal(
      status.message,
      "bearer tokens are not accepted over plain HTTP: connect with https:// on the same port, trusting the server's certificate authority (the kubeconfig's server and certificate-authority-data, or --server https://… --certificate-authority DATA/ca.crt), or start the server with --insecure-http-tokens",
    );
    assert.equal((await fetch(`${t.server.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${t.server.url}${namespaces}`)).status, 401);
    assert.equal((await t.call("GET", namespaces, adminToken)).status, 200, "the same token over TLS");
  });

  it("accepts a token over plain HTTP when started with --insecure-http-tokens", async () => {
    t = await startAuthTestServer({ insecureHttpTokens: true });
    const plain = await fetch(`${t.server.url}${namespaces}`, { headers: { Authorization: `Bearer ${adminToken}` } });
    assert.equal(plain.status, 200);
    const unknown = await fetch(`${t.server.url}${namespaces}`, { headers: { Authorization: "Bearer nobody-knows" } });
    assert.equal(unknown.status, 401, "still authenticated");
  });

  it("serves an administrator's requests (200, 201)", async () => {
    t = await startAuthTestServer();
    const created = await t.call("POST", namespaces, adminToken, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team-a" },
    });
    assert.equal(created.status, 201);
    const listed = await t.call("GET", namespaces, adminToken);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      (listed.body.items as { metadata: { name: string } }[]).map((item) => item.metadata.name),
      ["default", "kube-node-lease", "kube-public", "kube-system", "team-a"],
    );
  });

  it("answers health checks and /version without credentials, but not with a bad token", async () => {
    t = await startAuthTestServer();
    assert.equal((await t.call("GET", "/healthz", undefined)).status, 200);
    assert.equal((await t.call("GET", "/version", undefined)).status, 200);
    assert.equal((await t.call("GET", "/version", "wrong")).status, 401);
    assert.equal((await t.call("GET", "/api", undefined)).status, 401);
  });

  it("refuses a known user without a role with 403 Forbidden", async () => {
    t = await startAuthTestServer();
    const answer = await t.call("GET", namespaces, nobodyToken);
    assert.equal(answer.status, 403);
    assert.equal(answer.body.reason, "Forbidden");
    assert.equal(
      answer.body.message,
      'namespaces is forbidden: User "nobody" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });

  it("picks up a token added to the token file without a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-tokens-"));
    try {
      const path = join(dir, "tokens.csv");
      writeFileSync(
        path,
        `${formatTokenLine({ token: adminToken, user: { name: "admin", uid: "1", groups: [adminGroup] } })}\n`,
      );
      // The file's timestamp is set back so the append below is seen as a change even within one tick.
      utimesSync(path, 1_000, 1_000);
      t = await startAuthTestServer({ authenticator: new TokenFileAuthenticator(path) });
      assert.equal((await t.call("GET", "/api/v1/nodes", nodeATokenValue)).status, 401);
      appendFileSync(path, `${formatTokenLine({ token: nodeATokenValue, user: nodeUser("node-a") })}\n`);
      assert.equal((await t.call("GET", "/api/v1/nodes", nodeATokenValue)).status, 200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses to start from a malformed token file, naming the line", () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-tokens-"));
    try {
      const path = join(dir, "tokens.csv");
      writeFileSync(path, "good,admin,1\nbroken\n");
      assert.throws(() => new TokenFileAuthenticator(path), /tokens\.csv line 2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
