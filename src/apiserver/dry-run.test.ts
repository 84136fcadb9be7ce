import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const pods = "/api/v1/namespaces/default/pods";
const configMaps = "/api/v1/namespaces/default/configmaps";

describe("dryRun=All", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  function assertNothingStored(before: number): void {
    assert.equal(t.store.revision(), before, "nothing is stored");
  }

  it("create answers the object it would create and stores nothing", async () => {
    const before = t.store.revision();
    const answer = await t.call("POST", `${pods}?dryRun=All`, testPod("default", "web"));
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal((answer.body.metadata as { name: string }).name, "web");
    assert.equal((answer.body.status as { phase: string }).phase, "Pending");
    assertNothingStored(before);
    assert.equal((await t.call("GET", `${pods}/web`)).status, 404);
  });

  it("create still validates: an invalid object is 422", async () => {
    const before = t.store.revision();
    const pod = testPod("default", "web");
    const answer = await t.call("POST", `${pods}?dryRun=All`, { ...pod, spec: { containers: [] } });
    assert.equal(answer.status, 422);
    assertNothingStored(before);
  });

  it("update, every patch type and apply answer the result and store nothing", async () => {
    await t.call("POST", configMaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: { a: "1" },
    });
    const before = t.store.revision();
    const put = await t.call("PUT", `${configMaps}/c?dryRun=All`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: { a: "2" },
    });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.data, { a: "2" });
    for (const type of ["application/merge-patch+json", "application/strategic-merge-patch+json"]) {
      const patched = await t.call("PATCH", `${configMaps}/c?dryRun=All`, { data: { b: "3" } }, type);
      assert.equal(patched.status, 200, type);
      assert.deepEqual(patched.body.data, { a: "1", b: "3" }, type);
    }
    const applied = await t.call(
      "PATCH",
      `${configMaps}/new?dryRun=All&fieldManager=me`,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "new" }, data: { x: "y" } },
      "application/apply-patch+yaml",
    );
    assert.equal(applied.status, 201);
    assertNothingStored(before);
    assert.deepEqual((await t.call("GET", `${configMaps}/c`)).body.data, { a: "1" });
    assert.equal((await t.call("GET", `${configMaps}/new`)).status, 404);
  });

  it("delete answers as if deleted and the object stays", async () => {
    await t.call("POST", configMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } });
    const before = t.store.revision();
    const answer = await t.call("DELETE", `${configMaps}/c?dryRun=All`);
    assert.equal(answer.status, 200);
    assertNothingStored(before);
    assert.equal((await t.call("GET", `${configMaps}/c`)).status, 200);
    const fromBody = await t.call("DELETE", `${configMaps}/c`, { dryRun: ["All"] });
    assert.equal(fromBody.status, 200);
    assertNothingStored(before);
  });
});
