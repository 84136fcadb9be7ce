import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startTestServer, type TestServer } from "./test-server.ts";

const configMaps = "/api/v1/namespaces/default/configmaps";
const jsonPatch = "application/json-patch+json";

describe("a patch that would rename or move the object", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
    await t.call("POST", configMaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a" },
      data: { k: "v" },
    });
  });
  afterEach(() => t.close());

  it("is a 400 naming both names when a JSON patch changes metadata.name", async () => {
    const answer = await t.call(
      "PATCH",
      `${configMaps}/a`,
      [{ op: "replace", path: "/metadata/name", value: "b" }],
      jsonPatch,
    );
    assert.equal(answer.status, 400);
    assert.equal(answer.body.reason, "BadRequest");
    assert.equal(answer.body.message, "the name of the object (b) does not match the name on the URL (a)");
    assert.equal((await t.call("GET", `${configMaps}/b`)).status, 404);
    assert.equal((await t.call("GET", `${configMaps}/a`)).status, 200);
  });

  it("is a 400 when a merge patch moves it to another namespace", async () => {
    const answer = await t.call(
      "PATCH",
      `${configMaps}/a`,
      { metadata: { namespace: "kube-system" } },
      "application/merge-patch+json",
    );
    assert.equal(answer.status, 400);
    assert.equal(
      answer.body.message,
      "the namespace of the object (kube-system) does not match the namespace on the request (default)",
    );
  });
});
