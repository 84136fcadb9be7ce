import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { reconcileKubernetesService } from "./kubernetes-service.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

describe("the kubernetes Service", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("is served in default at 10.96.0.1:443 with Endpoints at the API server's address", async () => {
    await reconcileKubernetesService(t.store, { ip: "127.0.0.1", port: 6443 });
    const service = await t.call("GET", "/api/v1/namespaces/default/services/kubernetes");
    assert.equal(service.status, 200);
    const spec = service.body.spec as Record<string, unknown>;
    assert.equal(spec.clusterIP, "10.96.0.1");
    assert.deepEqual(spec.ports, [{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }]);
    const endpoints = await t.call("GET", "/api/v1/namespaces/default/endpoints/kubernetes");
    assert.deepEqual(endpoints.body.subsets, [
      { addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: 6443, protocol: "TCP" }] },
    ]);
  });

  it("follows the API server to a new port on the next start, and leaves an unchanged one alone", async () => {
    await reconcileKubernetesService(t.store, { ip: "127.0.0.1", port: 6443 });
    const before = t.store.revision();
    await reconcileKubernetesService(t.store, { ip: "127.0.0.1", port: 6443 });
    assert.equal(t.store.revision(), before, "nothing written when nothing changed");
    await reconcileKubernetesService(t.store, { ip: "127.0.0.1", port: 7443 });
    const service = await t.call("GET", "/api/v1/namespaces/default/services/kubernetes");
    assert.equal((service.body.spec as { ports: { targetPort: number }[] }).ports[0]?.targetPort, 7443);
    const endpoints = await t.call("GET", "/api/v1/namespaces/default/endpoints/kubernetes");
    assert.match(JSON.stringify(endpoints.body.subsets), /"port":7443/);
  });
});
