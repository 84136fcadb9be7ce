/**
 * The namespace controller in the simulated control plane, through the in-process client that
 * plays kube-apiserver for scenarios: the same NamespaceLifecycle answers as over HTTP, and a
 * deleted namespace's content goes before the namespace does.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../../api/errors.ts";
import type { ConfigMap } from "../../api/objects.ts";
import { clusterPerTest } from "../../sim/testing/clusters.ts";

const startCluster = clusterPerTest();

describe("namespace controller", () => {
  it("refuses content for a missing namespace, then empties and removes a deleted one", async () => {
    const cluster = await startCluster();
    const { client } = cluster;
    const configMap = (namespace: string, name: string): ConfigMap => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace, name },
      data: { k: "v" },
    });
    await assert.rejects(client.configMaps.create(configMap("ghost-ns", "c")), (error: unknown) => {
      assert.ok(isApiError(error, "NotFound"));
      assert.equal(error.message, 'namespaces "ghost-ns" not found');
      return true;
    });
    await client.namespaces.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "team-b" } });
    for (const name of ["one", "two", "three"]) await client.configMaps.create(configMap("team-b", name));

    const terminating = await client.namespaces.delete("", "team-b");
    assert.equal(terminating.status?.phase, "Terminating");
    assert.deepEqual(terminating.spec?.finalizers, ["kubernetes"]);

    await cluster.runUntil(
      async () => (await client.namespaces.list()).items.every((ns) => ns.metadata?.name !== "team-b"),
      { description: "namespace team-b is removed", timeoutMs: 60_000 },
    );
    assert.deepEqual((await client.configMaps.list({ namespace: "team-b" })).items, []);
  });
});
