/**
 * Namespaces through the HTTP API, served by a whole simulated control plane (the namespace
 * controller runs in it): the system namespaces exist from the start, nothing is created in a
 * namespace that is missing or being deleted, and deleting a namespace deletes what is in it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../cmd/cluster.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { clusterPerTest } from "../sim/testing/clusters.ts";
import { startApiServer } from "./server.ts";

type Json = Record<string, unknown>;

interface Served {
  cluster: Cluster;
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; body: Json }>;
}

const startCluster = clusterPerTest();

async function serve(cleanups: (() => Promise<void>)[]): Promise<Served> {
  const cluster = await startCluster();
  const logger = new Logger({ clock: cluster.clock, sink: new MemorySink(), level: "info" });
  const server = await startApiServer({ store: cluster.store, clock: cluster.clock, logger, port: 0 });
  cleanups.push(() => server.close());
  const call = async (method: string, path: string, body?: unknown, contentType = "application/json") => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { "Content-Type": contentType };
    }
    const response = await fetch(`${server.url}${path}`, init);
    return { status: response.status, body: (await response.json()) as Json };
  };
  return { cluster, call };
}

const namespaceBody = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
const configMap = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } });
const claim = (name: string) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, storageClassName: "" },
});

function conditionOf(answer: { body: Json }, type: string): Json | undefined {
  const conditions = ((answer.body.status as Json | undefined)?.conditions ?? []) as Json[];
  const found = conditions.find((condition) => condition.type === type);
  return found === undefined ? undefined : { status: found.status, reason: found.reason, message: found.message };
}

describe("namespaces through the API", () => {
  it("starts with default, kube-system, kube-public and kube-node-lease, Active", async () => {
    const cleanups: (() => Promise<void>)[] = [];
    const { call } = await serve(cleanups);
    const listed = await call("GET", "/api/v1/namespaces");
    const items = listed.body.items as { metadata: { name: string }; status: { phase: string } }[];
    assert.deepEqual(
      items.map((item) => [item.metadata.name, item.status.phase]),
      [
        ["default", "Active"],
        ["kube-node-lease", "Active"],
        ["kube-public", "Active"],
        ["kube-system", "Active"],
      ],
    );
    for (const cleanup of cleanups) await cleanup();
  });

  it("refuses to create in a namespace that does not exist (404) and to delete a system namespace (403)", async () => {
    const cleanups: (() => Promise<void>)[] = [];
    const { call } = await serve(cleanups);
    const ghost = await call("POST", "/api/v1/namespaces/ghost-ns/configmaps", configMap("c"));
    assert.equal(ghost.status, 404);
    assert.equal(ghost.body.message, 'namespaces "ghost-ns" not found');
    for (const name of ["default", "kube-system", "kube-public"]) {
      const refused = await call("DELETE", `/api/v1/namespaces/${name}`);
      assert.equal(refused.status, 403, name);
      assert.equal(refused.body.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
    for (const cleanup of cleanups) await cleanup();
  });

  it("deletes a namespace's content, refusing new content meanwhile, then the namespace", async () => {
    const cleanups: (() => Promise<void>)[] = [];
    const { cluster, call } = await serve(cleanups);
    assert.equal((await call("POST", "/api/v1/namespaces", namespaceBody("team-a"))).status, 201);
    const created = await call("GET", "/api/v1/namespaces/team-a");
    assert.deepEqual((created.body.spec as Json).finalizers, ["kubernetes"]);
    assert.equal((await call("POST", "/api/v1/namespaces/team-a/configmaps", configMap("settings"))).status, 201);
    assert.equal((await call("POST", "/api/v1/namespaces/team-a/persistentvolumeclaims", claim("data"))).status, 201);
    const held = { ...configMap("held"), metadata: { name: "held", finalizers: ["example.com/hold"] } };
    assert.equal((await call("POST", "/api/v1/namespaces/team-a/configmaps", held)).status, 201);

    const deleted = await call("DELETE", "/api/v1/namespaces/team-a");
    assert.equal(deleted.status, 200);
    assert.equal((deleted.body.status as Json).phase, "Terminating");
    assert.ok((deleted.body.metadata as Json).deletionTimestamp);

    // The finalizer holds one config map: the rest goes, the namespace stays Terminating and says why.
    await cluster.runUntil(
      async () => (await call("GET", "/api/v1/namespaces/team-a/configmaps/settings")).status === 404,
    );
    await cluster.runUntil(
      async () =>
        conditionOf(await call("GET", "/api/v1/namespaces/team-a"), "NamespaceFinalizersRemaining") !== undefined,
    );
    const terminating = await call("GET", "/api/v1/namespaces/team-a");
    assert.deepEqual(conditionOf(terminating, "NamespaceFinalizersRemaining"), {
      status: "True",
      reason: "SomeFinalizersRemain",
      message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    });
    assert.deepEqual(conditionOf(terminating, "NamespaceContentRemaining"), {
      status: "True",
      reason: "SomeResourcesRemain",
      message: "Some resources are remaining: configmaps has 1 resource instances",
    });
    assert.equal((await call("GET", "/api/v1/namespaces/team-a/persistentvolumeclaims/data")).status, 404);

    const refused = await call("POST", "/api/v1/namespaces/team-a/configmaps", configMap("late"));
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'configmaps "late" is forbidden: unable to create new content in namespace team-a because it is being terminated',
    );

    const released = await call(
      "PATCH",
      "/api/v1/namespaces/team-a/configmaps/held",
      { metadata: { finalizers: null } },
      "application/merge-patch+json",
    );
    assert.equal(released.status, 200);
    await cluster.runUntil(async () => (await call("GET", "/api/v1/namespaces/team-a")).status === 404, {
      description: "namespace team-a is gone",
      timeoutMs: 120_000,
    });
    assert.equal((await call("GET", "/api/v1/namespaces/team-a/configmaps/held")).status, 404);
    assert.equal((await call("POST", "/api/v1/namespaces", namespaceBody("team-a"))).status, 201);
    for (const cleanup of cleanups) await cleanup();
  });
});
