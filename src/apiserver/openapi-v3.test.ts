import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "./test-server.ts";

type Json = Record<string, unknown>;

function field(value: unknown, ...path: string[]): Json {
  let current = value;
  for (const step of path) {
    assert.ok(current !== null && typeof current === "object", `no ${path.join(".")} (stopped before ${step})`);
    current = (current as Json)[step];
  }
  assert.ok(current !== null && typeof current === "object", `no object at ${path.join(".")}`);
  return current as Json;
}

describe("OpenAPI v3", () => {
  let t: TestServer;
  let core: Json;
  before(async () => {
    t = await startTestServer();
    const index = await t.call("GET", "/openapi/v3");
    const url = field(index.body, "paths", "api/v1").serverRelativeURL as string;
    core = (await t.call("GET", url)).body;
  });
  after(() => t.close());

  it("indexes one document per served group/version, each with a content hash", async () => {
    const { status, body } = await t.call("GET", "/openapi/v3");
    assert.equal(status, 200);
    const paths = field(body, "paths");
    assert.deepEqual(Object.keys(paths).sort(), [
      "api/v1",
      "apis/apps/v1",
      "apis/batch/v1",
      "apis/coordination.k8s.io/v1",
      "apis/rbac.authorization.k8s.io/v1",
      "apis/snapshot.storage.k8s.io/v1",
      "apis/storage.k8s.io/v1",
    ]);
    for (const [path, entry] of Object.entries(paths)) {
      assert.match(
        (entry as Json).serverRelativeURL as string,
        new RegExp(`^/openapi/v3/${path}\\?hash=[0-9A-F]{128}$`),
      );
    }
  });

  it("describes each kind with its group/version/kind and Kubernetes' patch metadata", () => {
    assert.equal(core.openapi, "3.0.0");
    const schemas = field(core, "components", "schemas");
    assert.deepEqual(field(schemas, "io.k8s.api.core.v1.Pod")["x-kubernetes-group-version-kind"], [
      { group: "", version: "v1", kind: "Pod" },
    ]);
    const containers = field(schemas, "io.k8s.api.core.v1.PodSpec", "properties", "containers");
    assert.equal(containers["x-kubernetes-patch-merge-key"], "name");
    assert.equal(containers["x-kubernetes-patch-strategy"], "merge");
    assert.equal(containers["x-kubernetes-list-type"], "map");
    assert.deepEqual(containers["x-kubernetes-list-map-keys"], ["name"]);
    assert.deepEqual(field(containers, "items"), { $ref: "#/components/schemas/io.k8s.api.core.v1.Container" });
    const spec = field(schemas, "io.k8s.api.core.v1.Pod", "properties", "spec");
    assert.deepEqual(spec.allOf, [{ $ref: "#/components/schemas/io.k8s.api.core.v1.PodSpec" }]);
    assert.match(spec.description as string, /desired behavior of the pod/);
    const intOrString = field(schemas, "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
    assert.equal(intOrString.format, "int-or-string");
    assert.deepEqual(intOrString.oneOf, [{ type: "integer" }, { type: "string" }]);
    assert.equal(field(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.Time").format, "date-time");
    assert.equal(field(schemas, "io.k8s.api.core.v1.Toleration").type, "object");
  });

  it("declares the write parameters kubectl checks for on PATCH, with every patch content type", () => {
    const patch = field(core, "paths", "/api/v1/namespaces/{namespace}/pods/{name}", "patch");
    const names = (patch.parameters as Json[]).map((p) => `${p.in}:${p.name}`);
    assert.deepEqual(names, ["query:dryRun", "query:fieldManager", "query:fieldValidation", "query:force"]);
    assert.deepEqual(patch["x-kubernetes-group-version-kind"], { group: "", version: "v1", kind: "Pod" });
    assert.equal(patch["x-kubernetes-action"], "patch");
    assert.equal(patch.operationId, "patchCoreV1NamespacedPod");
    assert.deepEqual(Object.keys(field(patch, "requestBody", "content")), [
      "application/json-patch+json",
      "application/merge-patch+json",
      "application/strategic-merge-patch+json",
      "application/apply-patch+yaml",
    ]);
  });

  it("lists every served path of the group/version with its operations", () => {
    const paths = field(core, "paths");
    assert.deepEqual(Object.keys(field(paths, "/api/v1/namespaces/{namespace}/persistentvolumeclaims")), [
      "get",
      "post",
      "parameters",
    ]);
    assert.ok(field(paths, "/api/v1/persistentvolumeclaims").get, "list across namespaces");
    assert.deepEqual(Object.keys(field(paths, "/api/v1/persistentvolumes/{name}")), [
      "get",
      "put",
      "patch",
      "delete",
      "parameters",
    ]);
    assert.ok(field(paths, "/api/v1/persistentvolumes/{name}/status").patch);
    assert.ok(field(paths, "/api/v1/namespaces/{namespace}/pods/{name}/binding").post);
    assert.equal(paths["/api/v1/namespaces/{namespace}/secrets/{name}/status"], undefined, "secrets have no status");
    const remove = field(paths, "/api/v1/persistentvolumes/{name}", "delete");
    const names = (remove.parameters as Json[]).map((p) => p.name);
    assert.ok(names.includes("gracePeriodSeconds") && names.includes("propagationPolicy"));
  });

  it("carries only what a group/version's kinds reach", async () => {
    const index = await t.call("GET", "/openapi/v3");
    const url = field(index.body, "paths", "apis/storage.k8s.io/v1").serverRelativeURL as string;
    const storage = await t.call("GET", url);
    assert.equal(storage.status, 200);
    const schemas = field(storage.body, "components", "schemas");
    assert.ok(schemas["io.k8s.api.storage.v1.VolumeAttachment"]);
    assert.ok(schemas["io.k8s.api.core.v1.PersistentVolumeSpec"], "VolumeAttachment's inlineVolumeSpec needs it");
    assert.equal(schemas["io.k8s.api.core.v1.Pod"], undefined);
    assert.ok(field(storage.body, "paths", "/apis/storage.k8s.io/v1/volumeattachments/{name}/status").patch);
  });

  it("answers a group/version it does not serve with a 404 Status", async () => {
    const { status, body } = await t.call("GET", "/openapi/v3/apis/policy/v1");
    assert.equal(status, 404);
    assert.equal(body.kind, "Status");
  });
});
