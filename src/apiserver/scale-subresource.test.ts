import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startTestServer, type TestServer } from "./test-server.ts";

const sets = "/apis/apps/v1/namespaces/default/statefulsets";

function statefulSet(name: string, replicas: number): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
  };
}

describe("the scale subresource", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
    await t.call("POST", sets, statefulSet("web", 1));
  });
  afterEach(() => t.close());

  it("answers an autoscaling/v1 Scale with the desired replicas and the selector as text", async () => {
    const { status, body } = await t.call("GET", `${sets}/web/scale`);
    assert.equal(status, 200);
    assert.equal(body.kind, "Scale");
    assert.equal(body.apiVersion, "autoscaling/v1");
    assert.deepEqual(body.spec, { replicas: 1 });
    assert.deepEqual(body.status, { replicas: 0, selector: "app=web" });
  });

  it("changes spec.replicas of the StatefulSet through a merge patch, as kubectl scale sends it", async () => {
    const patched = await t.call(
      "PATCH",
      `${sets}/web/scale`,
      { spec: { replicas: 3 } },
      "application/merge-patch+json",
    );
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.spec, { replicas: 3 });
    const set = await t.call("GET", `${sets}/web`);
    assert.equal((set.body.spec as { replicas: number }).replicas, 3);
  });

  it("changes replicas through PUT and refuses a stale resourceVersion with 409", async () => {
    const scale = await t.call("GET", `${sets}/web/scale`);
    const put = await t.call("PUT", `${sets}/web/scale`, { ...scale.body, spec: { replicas: 2 } });
    assert.equal(put.status, 200);
    const stale = await t.call("PUT", `${sets}/web/scale`, { ...scale.body, spec: { replicas: 5 } });
    assert.equal(stale.status, 409);
  });

  it("refuses negative replicas with the field path", async () => {
    const refused = await t.call(
      "PATCH",
      `${sets}/web/scale`,
      { spec: { replicas: -1 } },
      "application/merge-patch+json",
    );
    assert.equal(refused.status, 422);
    assert.equal(
      refused.body.message,
      'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
  });

  it("answers 404 for a workload that does not exist", async () => {
    const missing = await t.call("GET", `${sets}/ghost/scale`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'statefulsets.apps "ghost" not found');
  });

  it("is listed in discovery with the Scale kind of autoscaling/v1, plain and aggregated", async () => {
    const plain = await t.call("GET", "/apis/apps/v1");
    const entry = (plain.body.resources as Record<string, unknown>[]).find((r) => r.name === "deployments/scale");
    assert.deepEqual(entry, {
      name: "deployments/scale",
      singularName: "",
      namespaced: true,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
    const response = await fetch(`${t.server.url}/apis`, {
      headers: { Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" },
    });
    const aggregated = JSON.stringify(await response.json());
    assert.match(
      aggregated,
      /"subresource":"scale","responseKind":\{"group":"autoscaling","version":"v1","kind":"Scale"\}/,
    );
  });

  it("is in the OpenAPI v3 document of apps/v1 with the autoscaling/v1 Scale schema", async () => {
    const response = await fetch(`${t.server.url}/openapi/v3/apis/apps/v1`);
    const document = (await response.json()) as {
      paths: Record<string, Record<string, { "x-kubernetes-group-version-kind"?: unknown }>>;
      components: { schemas: Record<string, unknown> };
    };
    const path = document.paths["/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}/scale"];
    assert.ok(path?.get !== undefined && path.put !== undefined && path.patch !== undefined);
    assert.deepEqual(path.get["x-kubernetes-group-version-kind"], {
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
    });
    assert.ok(document.components.schemas["io.k8s.api.autoscaling.v1.Scale"] !== undefined);
  });
});
