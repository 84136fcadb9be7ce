import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { negotiateAggregatedDiscovery } from "./discovery-aggregated.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

/** What kubectl 1.30+ sends for /api and /apis. */
const kubectlAccept =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

type Json = Record<string, unknown>;

describe("aggregated discovery", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  async function get(path: string, accept: string): Promise<{ contentType: string; body: Json }> {
    const response = await fetch(`${t.server.url}${path}`, { headers: { Accept: accept } });
    assert.equal(response.status, 200);
    return { contentType: response.headers.get("content-type") ?? "", body: (await response.json()) as Json };
  }

  it("picks the first form the client prefers", () => {
    assert.equal(negotiateAggregatedDiscovery(kubectlAccept), "v2");
    assert.equal(
      negotiateAggregatedDiscovery("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"),
      "v2beta1",
    );
    assert.equal(negotiateAggregatedDiscovery("application/json, */*"), undefined);
    assert.equal(negotiateAggregatedDiscovery(undefined), undefined);
    assert.equal(
      negotiateAggregatedDiscovery("application/json;g=apidiscovery.k8s.io;v=v9;as=APIGroupDiscoveryList"),
      undefined,
    );
  });

  it("serves every core resource with scope, verbs, short names and subresources", async () => {
    const { contentType, body } = await get("/api", kubectlAccept);
    assert.equal(contentType, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    assert.equal(body.kind, "APIGroupDiscoveryList");
    assert.equal(body.apiVersion, "apidiscovery.k8s.io/v2");
    const [group] = body.items as Json[];
    const [version] = (group?.versions ?? []) as Json[];
    assert.equal(version?.version, "v1");
    const resources = version?.resources as Json[];
    const pods = resources.find((r) => r.resource === "pods");
    assert.ok(pods, "pods are listed");
    assert.deepEqual(pods.responseKind, { group: "", version: "v1", kind: "Pod" });
    assert.equal(pods.scope, "Namespaced");
    assert.deepEqual(pods.shortNames, ["po"]);
    const subresources = (pods.subresources as Json[]).map((s) => s.subresource);
    assert.deepEqual(subresources, ["status", "binding", "eviction", "log", "exec", "attach", "portforward"]);
    const eviction = (pods.subresources as Json[]).find((s) => s.subresource === "eviction");
    assert.deepEqual(eviction?.responseKind, { group: "policy", version: "v1", kind: "Eviction" });
    assert.equal(resources.find((r) => r.resource === "persistentvolumes")?.scope, "Cluster");
  });

  it("serves the named groups at /apis, in the version the client asked for", async () => {
    const { contentType, body } = await get(
      "/apis",
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
    );
    assert.match(contentType, /v=v2beta1/);
    const names = (body.items as Json[]).map((item) => (item.metadata as Json).name);
    assert.deepEqual(names, [
      "storage.k8s.io",
      "apps",
      "coordination.k8s.io",
      "batch",
      "rbac.authorization.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
      "snapshot.storage.k8s.io",
    ]);
  });

  it("keeps the plain form for clients that do not ask for the aggregated one", async () => {
    const { contentType, body } = await get("/apis", "application/json, */*");
    assert.equal(contentType, "application/json");
    assert.equal(body.kind, "APIGroupList");
  });
});
