import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseResourcePath, pathSegments } from "./request-path.ts";

function parse(path: string) {
  const parsed = parseResourcePath(pathSegments(path));
  return parsed && { kind: parsed.type.kind, namespace: parsed.namespace, name: parsed.name, sub: parsed.subresource };
}

describe("parseResourcePath", () => {
  it("reads core and named-group paths, with and without a namespace", () => {
    assert.deepEqual(parse("/api/v1/namespaces/default/pods/web"), {
      kind: "Pod",
      namespace: "default",
      name: "web",
      sub: undefined,
    });
    assert.deepEqual(parse("/api/v1/pods"), { kind: "Pod", namespace: "", name: "", sub: undefined });
    assert.deepEqual(parse("/apis/storage.k8s.io/v1/storageclasses/fast"), {
      kind: "StorageClass",
      namespace: "",
      name: "fast",
      sub: undefined,
    });
  });

  it("reads subresources, and the Namespace kind's own paths", () => {
    assert.equal(parse("/api/v1/namespaces/default/pods/web/status")?.sub, "status");
    assert.equal(parse("/api/v1/namespaces/default/pods/web/binding")?.sub, "binding");
    assert.deepEqual(parse("/api/v1/namespaces/team-a"), {
      kind: "Namespace",
      namespace: "",
      name: "team-a",
      sub: undefined,
    });
    assert.deepEqual(parse("/api/v1/namespaces/team-a/status"), {
      kind: "Namespace",
      namespace: "",
      name: "team-a",
      sub: "status",
    });
  });

  it("refuses what is not served", () => {
    assert.equal(parse("/api/v1/namespaces/default/nodes/n1"), undefined, "nodes are cluster-scoped");
    assert.equal(parse("/api/v1/namespaces/default/secrets/s/status"), undefined, "secrets have no status");
    assert.equal(parse("/api/v1/namespaces/default/configmaps/c/binding"), undefined);
    assert.equal(parse("/apis/apps/v2/deployments"), undefined);
    assert.equal(parse("/api/v1/namespaces/default/pods/web/status/extra"), undefined);
    assert.equal(parse("/metrics"), undefined);
  });
});
