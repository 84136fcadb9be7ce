import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type AuthTestServer, adminToken, startAuthTestServer } from "./auth/auth-test-server.ts";

const accounts = "/api/v1/namespaces/default/serviceaccounts";

describe("TokenRequest (kubectl create token)", () => {
  let t: AuthTestServer;
  before(async () => {
    t = await startAuthTestServer();
    await t.call("POST", accounts, adminToken, { metadata: { name: "backup" } });
  });
  after(() => t.close());

  it("issues a token the server accepts as the service account", async () => {
    const { status, body } = await t.call("POST", `${accounts}/backup/token`, adminToken, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {},
    });
    assert.equal(status, 201);
    assert.equal(body.kind, "TokenRequest");
    const { token, expirationTimestamp } = body.status as { token: string; expirationTimestamp: string };
    assert.equal(typeof expirationTimestamp, "string");
    assert.equal((body.spec as { expirationSeconds: number }).expirationSeconds, 3600);
    const whoami = await t.call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", token, {});
    assert.deepEqual(
      (whoami.body.status as { userInfo: { username: string; groups: string[] } }).userInfo.username,
      "system:serviceaccount:default:backup",
    );
    const pods = await t.call("GET", "/api/v1/namespaces/default/pods", token);
    assert.equal(pods.status, 403, "the account holds no role");
  });

  it("refuses a lifetime under ten minutes and an account that does not exist", async () => {
    const short = await t.call("POST", `${accounts}/backup/token`, adminToken, { spec: { expirationSeconds: 60 } });
    assert.equal(short.status, 422);
    assert.equal(
      short.body.message,
      'TokenRequest.authentication.k8s.io "backup" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const missing = await t.call("POST", `${accounts}/ghost/token`, adminToken, { spec: {} });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'serviceaccounts "ghost" not found');
  });
});
