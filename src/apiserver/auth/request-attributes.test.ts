import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { requestAttributes } from "./request-attributes.ts";

const at = (method: string, path: string) => requestAttributes(method, new URL(path, "http://apiserver"));

describe("request attributes", () => {
  it("reads verbs as kube-apiserver does: list, watch and deletecollection on collections", () => {
    assert.equal(at("GET", "/api/v1/namespaces/a/pods").verb, "list");
    assert.equal(at("GET", "/api/v1/namespaces/a/pods?watch=true").verb, "watch");
    assert.equal(at("GET", "/api/v1/watch/namespaces/a/pods").verb, "watch");
    assert.equal(at("DELETE", "/api/v1/namespaces/a/pods").verb, "deletecollection");
    assert.equal(at("PATCH", "/api/v1/namespaces/a/pods/p").verb, "patch");
  });

  it("names the namespace, group, resource, subresource and object", () => {
    assert.deepEqual(at("GET", "/apis/apps/v1/namespaces/a/deployments/web/scale"), {
      resourceRequest: true,
      path: "/apis/apps/v1/namespaces/a/deployments/web/scale",
      verb: "get",
      group: "apps",
      resource: "deployments",
      subresource: "scale",
      namespace: "a",
      name: "web",
    });
    const namespace = at("GET", "/api/v1/namespaces/a");
    assert.ok(namespace.resourceRequest);
    assert.deepEqual([namespace.resource, namespace.namespace, namespace.name], ["namespaces", "a", "a"]);
    const byField = at("GET", "/api/v1/namespaces/a/pods?fieldSelector=metadata.name%3Dp");
    assert.ok(byField.resourceRequest);
    assert.equal(byField.name, "p");
  });

  it("treats discovery and health paths as non-resource requests", () => {
    assert.deepEqual(at("GET", "/apis/apps/v1"), { resourceRequest: false, path: "/apis/apps/v1", verb: "get" });
    assert.deepEqual(at("POST", "/healthz"), { resourceRequest: false, path: "/healthz", verb: "post" });
  });
});
