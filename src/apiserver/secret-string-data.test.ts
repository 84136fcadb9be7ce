import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startTestServer, type TestServer } from "./test-server.ts";

const secrets = "/api/v1/namespaces/default/secrets";

/** base64 of the text, written out so the test does not compute what it checks. */
const encoded = { admin: "YWRtaW4=", s3cr3t: "czNjcjN0", old: "b2xk", user: "dXNlcg==" } as const;

function secret(fields: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, ...fields };
}

describe("Secret stringData", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("is merged into base64 data on create, winning over data, and never stored or served", async () => {
    const created = await t.call(
      "POST",
      secrets,
      secret({
        data: { username: encoded.old, keep: encoded.old },
        stringData: { username: "admin", password: "s3cr3t" },
      }),
    );
    assert.equal(created.status, 201);
    const expected = { username: encoded.admin, keep: encoded.old, password: encoded.s3cr3t };
    assert.deepEqual(created.body.data, expected);
    assert.equal(created.body.stringData, undefined);
    const read = await t.call("GET", `${secrets}/db`);
    assert.deepEqual(read.body.data, expected);
    assert.equal(read.body.stringData, undefined);
  });

  it("is merged on update, merge patch and server-side apply", async () => {
    await t.call("POST", secrets, secret({ data: { username: encoded.old } }));
    const updated = await t.call("PUT", `${secrets}/db`, secret({ stringData: { username: "user" } }));
    assert.deepEqual(updated.body.data, { username: encoded.user });
    const patched = await t.call(
      "PATCH",
      `${secrets}/db`,
      { stringData: { password: "s3cr3t" } },
      "application/merge-patch+json",
    );
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.data, { username: encoded.user, password: encoded.s3cr3t });
    assert.equal(patched.body.stringData, undefined);
    const applied = await t.call(
      "PATCH",
      "/api/v1/namespaces/default/secrets/applied?fieldManager=test",
      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: applied\nstringData:\n  username: admin\n",
      "application/apply-patch+yaml",
    );
    assert.equal(applied.status, 201);
    assert.deepEqual(applied.body.data, { username: encoded.admin });
    assert.equal(applied.body.stringData, undefined);
  });

  it("that is not a map of strings is refused with its field path", async () => {
    const answer = await t.call("POST", secrets, secret({ stringData: { port: 5432 } }));
    assert.equal(answer.status, 422);
    assert.match(String(answer.body.message), /stringData\[port\]/);
  });
});
