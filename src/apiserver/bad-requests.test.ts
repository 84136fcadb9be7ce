import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { maxRequestBodyBytes } from "./constants.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const pods = "/api/v1/namespaces/default/pods";

describe("bad requests", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  /** Sends the request, checks code, reason and message, and that nothing was written. */
  async function refused(
    request: { method?: string; path?: string; body: unknown; type?: string },
    code: number,
    reason: string,
    message: RegExp,
  ): Promise<Record<string, unknown>> {
    const before = t.store.revision();
    const answer = await t.call(request.method ?? "POST", request.path ?? pods, request.body, request.type);
    assert.equal(answer.status, code, JSON.stringify(answer.body));
    assert.equal(answer.body.kind, "Status");
    assert.equal(answer.body.reason, reason);
    assert.match(String(answer.body.message), message);
    assert.equal(t.store.revision(), before, "nothing is stored");
    return answer.body;
  }

  it("refuses broken JSON with 400 naming the problem", async () => {
    await refused({ body: '{"apiVersion": "v1", "kind": "Pod",' }, 400, "BadRequest", /not valid JSON/);
  });

  it("refuses broken YAML with 400 and accepts valid YAML", async () => {
    const broken = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [web\n";
    await refused({ body: broken, type: "application/yaml" }, 400, "BadRequest", /not valid YAML/);
    const valid =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: main\n    image: busybox\n";
    const created = await t.call("POST", pods, valid, "application/yaml");
    assert.equal(created.status, 201);
    assert.equal((created.body.metadata as { name: string }).name, "web");
  });

  it("refuses a body that is not one object", async () => {
    await refused({ body: "[1, 2]" }, 400, "BadRequest", /must be one object, but it is an array/);
  });

  it("refuses an unknown kind, a wrong apiVersion and a kind that does not match the URL", async () => {
    await refused({ body: { ...testPod("default", "web"), kind: "Widget" } }, 400, "BadRequest", /no kind "Widget"/);
    await refused({ body: { ...testPod("default", "web"), apiVersion: "apps/v1" } }, 400, "BadRequest", /API version/);
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "n" } };
    await refused(
      { body: node },
      400,
      "BadRequest",
      /kind in the data \(Node\) does not match the expected kind \(Pod\)/,
    );
  });

  it("refuses a namespace or name that differs from the URL", async () => {
    await refused({ body: testPod("other", "web") }, 400, "BadRequest", /namespace of the provided object/);
    await t.call("POST", pods, testPod("default", "web"));
    await refused(
      { method: "PUT", path: `${pods}/web`, body: testPod("default", "db") },
      400,
      "BadRequest",
      /does not match the name on the URL/,
    );
  });

  it("answers a name or namespace that is not a string with 422 naming metadata.name, not a server error", async () => {
    for (const name of [5, {}, -1240555381]) {
      const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" } };
      const status = await refused(
        { path: "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", body: configMap },
        422,
        "Invalid",
        /^ConfigMap "" is invalid: .*metadata\.name in body must be of type string/,
      );
      const details = status.details as { name: unknown; causes: { field: string }[] };
      assert.equal(details.name, "");
      assert.ok(details.causes.some((c) => c.field === "metadata.name"));
    }
  });

  it("answers a field of the wrong type with 422 and its field path", async () => {
    const pod = testPod("default", "web");
    const wrong = { ...pod, spec: { ...pod.spec, containers: [{ name: "main", image: 42 }] } };
    const status = await refused({ body: wrong }, 422, "Invalid", /spec\.containers\[0\]\.image/);
    const causes = (status.details as { causes: { field: string }[] }).causes;
    assert.ok(
      causes.some((c) => c.field === "spec.containers[0].image"),
      JSON.stringify(causes),
    );
  });

  it("refuses a body over the size limit with 413", async () => {
    const pod = testPod("default", "web");
    const huge = { ...pod, metadata: { ...pod.metadata, annotations: { big: "x".repeat(maxRequestBodyBytes) } } };
    await refused({ body: huge }, 413, "RequestEntityTooLarge", /larger than the limit/);
  });

  it("answers a duplicate create with 409 AlreadyExists and stores nothing", async () => {
    await t.call("POST", pods, testPod("default", "web"));
    await refused({ body: testPod("default", "web") }, 409, "AlreadyExists", /already exists/);
  });

  it("refuses a dryRun value other than All, storing nothing", async () => {
    await refused(
      { path: `${pods}?dryRun=Some`, body: testPod("default", "web") },
      422,
      "Invalid",
      /dryRun: Unsupported value: "Some": supported values: "All"/,
    );
  });

  it("refuses malformed query parameters", async () => {
    await t.call("POST", pods, testPod("default", "web"));
    await refused(
      { method: "DELETE", path: `${pods}/web?gracePeriodSeconds=soon`, body: undefined },
      400,
      "BadRequest",
      /gracePeriodSeconds=soon/,
    );
  });
});
