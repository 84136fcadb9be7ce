import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../../api/client/testing/test-api.ts";
import type { Lease, Node, Pod, Secret } from "../../api/objects.ts";
import { type AuthTestServer, adminToken, nodeATokenValue, startAuthTestServer } from "../auth/auth-test-server.ts";

const leases = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";
const pods = "/api/v1/namespaces/default/pods";

function node(name: string): Node {
  return { apiVersion: "v1", kind: "Node", metadata: { name }, spec: {}, status: {} };
}

function lease(name: string, namespace = "kube-node-lease"): Lease {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name, namespace },
    spec: { holderIdentity: name, leaseDurationSeconds: 40 },
  };
}

function secret(name: string): Secret {
  return { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: "default" }, stringData: { key: "value" } };
}

function podWithSecret(name: string, nodeName: string, secretName: string): Pod {
  const pod = testPod("default", name, nodeName);
  return {
    ...pod,
    spec: { ...pod.spec, containers: pod.spec?.containers ?? [], volumes: [{ name: "s", secret: { secretName } }] },
  };
}

describe("node restriction", () => {
  let t: AuthTestServer;

  beforeEach(async () => {
    t = await startAuthTestServer();
    for (const name of ["node-a", "node-b"]) await t.admin.nodes.create(node(name));
    await t.admin.leases.create(lease("node-b"));
    await t.admin.pods.create(podWithSecret("on-a", "node-a", "used-by-a"));
    await t.admin.pods.create(podWithSecret("on-b", "node-b", "used-by-b"));
    for (const name of ["used-by-a", "used-by-b"]) await t.admin.secrets.create(secret(name));
  });
  afterEach(() => t.close());

  /** Sends the request as node-a and expects 403 with `message`, the store left exactly as it was. */
  async function expectForbidden(method: string, path: string, message: string, body?: unknown, type?: string) {
    const revision = t.store.revision();
    const answer = await t.call(method, path, nodeATokenValue, body, type);
    assert.equal(answer.status, 403, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.reason, "Forbidden");
    assert.equal(answer.body.message, message);
    assert.equal(t.store.revision(), revision, `${method} ${path} changed the store`);
  }

  it("lets a node write its own Node, its status, its Lease and its CSINode", async () => {
    const own = await t.nodeA.nodes.get("", "node-a");
    await t.nodeA.nodes.update({ ...own, metadata: { ...own.metadata, labels: { role: "worker" } } });
    await t.nodeA.nodes.patch("", "node-a", { status: { conditions: [] } }, { subresource: "status" });
    const created = await t.nodeA.leases.create(lease("node-a"));
    await t.nodeA.leases.update({ ...created, spec: { ...created.spec, renewTime: "2026-01-01T00:00:00.000000Z" } });
    await t.nodeA.csiNodes.create({
      apiVersion: "storage.k8s.io/v1",
      kind: "CSINode",
      metadata: { name: "node-a" },
      spec: { drivers: [] },
    });
    assert.equal((await t.admin.nodes.get("", "node-a")).metadata?.labels?.role, "worker");
    assert.ok((await t.admin.leases.get("kube-node-lease", "node-a")).spec?.renewTime);
  });

  it("stores nothing for a node's dry-run create", async () => {
    const revision = t.store.revision();
    const answer = await t.call("POST", `${leases}?dryRun=All`, nodeATokenValue, lease("node-a"));
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.metadata, { ...(answer.body.metadata as object), name: "node-a" });
    assert.equal(t.store.revision(), revision, "a dry run changed the store");
    await assert.rejects(t.admin.leases.get("kube-node-lease", "node-a"), /not found/);
  });

  it("refuses a node's changes to its restricted labels and its taints, and keeps its own labels writable", async () => {
    const nodePath = "/api/v1/nodes/node-a";
    const own = await t.nodeA.nodes.get("", "node-a");
    const withLabels = (labels: Record<string, string>) => ({ ...own, metadata: { ...own.metadata, labels } });
    await expectForbidden(
      "PUT",
      nodePath,
      'nodes "node-a" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/pci, node-role.kubernetes.io/control-plane',
      withLabels({ "node-role.kubernetes.io/control-plane": "", "node-restriction.kubernetes.io/pci": "true" }),
    );
    await expectForbidden(
      "PATCH",
      nodePath,
      'nodes "node-a" is forbidden: is not allowed to modify labels: example.k8s.io/tier',
      { metadata: { labels: { "example.k8s.io/tier": "gold" } } },
      "application/merge-patch+json",
    );
    await expectForbidden(
      "PATCH",
      nodePath,
      'nodes "node-a" is forbidden: node "node-a" is not allowed to modify taints',
      { spec: { taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }] } },
      "application/merge-patch+json",
    );
    const allowed = {
      "kubernetes.io/hostname": "node-a",
      "topology.kubernetes.io/zone": "zone-1",
      "node.kubernetes.io/instance-type": "m5.large",
      "kubelet.kubernetes.io/managed": "yes",
      team: "storage",
    };
    await t.nodeA.nodes.update(withLabels(allowed));
    assert.deepEqual((await t.admin.nodes.get("", "node-a")).metadata?.labels, allowed);
    await t.admin.nodes.patch("", "node-a", { metadata: { labels: { "node-role.kubernetes.io/worker": "" } } });
    // An administrator set it; the node may keep it but not remove it.
    const labelled = await t.nodeA.nodes.get("", "node-a");
    await t.nodeA.nodes.update(labelled);
    await expectForbidden(
      "PATCH",
      nodePath,
      'nodes "node-a" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker',
      { metadata: { labels: { "node-role.kubernetes.io/worker": null } } },
      "application/merge-patch+json",
    );
  });

  it("refuses a node registering itself with restricted labels", async () => {
    await t.admin.nodes.delete("", "node-a");
    const registering = {
      ...node("node-a"),
      metadata: { name: "node-a", labels: { "node-role.kubernetes.io/master": "" } },
    };
    await expectForbidden(
      "POST",
      "/api/v1/nodes",
      'nodes "node-a" is forbidden: node "node-a" is not allowed to set the following labels: node-role.kubernetes.io/master',
      registering,
    );
    const tainted = { ...node("node-a"), spec: { taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }] } };
    await t.nodeA.nodes.create(tainted);
  });

  it("refuses writes to another node's Node, status and CSINode with Kubernetes' wording", async () => {
    const why = 'nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"';
    const other = await t.admin.nodes.get("", "node-b");
    await expectForbidden("PUT", "/api/v1/nodes/node-b", why, {
      ...other,
      metadata: { ...other.metadata, labels: { x: "y" } },
    });
    await expectForbidden("PATCH", "/api/v1/nodes/node-b/status", why, { status: {} }, "application/merge-patch+json");
    await expectForbidden("DELETE", "/api/v1/nodes/node-b", why);
    await expectForbidden(
      "POST",
      "/api/v1/nodes",
      'nodes "node-c" is forbidden: node "node-a" is not allowed to modify node "node-c"',
      node("node-c"),
    );
    await expectForbidden(
      "POST",
      "/apis/storage.k8s.io/v1/csinodes",
      'csinodes.storage.k8s.io "node-b" is forbidden: node "node-a" is not allowed to modify csinode "node-b"',
      { apiVersion: "storage.k8s.io/v1", kind: "CSINode", metadata: { name: "node-b" }, spec: { drivers: [] } },
    );
  });

  it("refuses another node's Lease and leases outside kube-node-lease", async () => {
    const current = await t.admin.leases.get("kube-node-lease", "node-b");
    await expectForbidden(
      "PUT",
      `${leases}/node-b`,
      'leases.coordination.k8s.io "node-b" is forbidden: can only access node lease with the same name as the requesting node',
      current,
    );
    await expectForbidden(
      "POST",
      "/apis/coordination.k8s.io/v1/namespaces/default/leases",
      'leases.coordination.k8s.io "node-a" is forbidden: can only access leases in the "kube-node-lease" system namespace',
      lease("node-a", "default"),
    );
  });

  it("lets a node update the status of its own pods and delete them, and nobody else's", async () => {
    const mine = await t.nodeA.pods.get("default", "on-a");
    await t.nodeA.pods.updateStatus({ ...mine, status: { phase: "Running" } });
    assert.equal((await t.admin.pods.get("default", "on-a")).status?.phase, "Running");

    const theirs = await t.admin.pods.get("default", "on-b");
    await expectForbidden(
      "PUT",
      `${pods}/on-b/status`,
      'pods "on-b" is forbidden: node "node-a" can only update pod status for pods with spec.nodeName set to itself',
      { ...theirs, status: { phase: "Failed" } },
    );
    await expectForbidden(
      "DELETE",
      `${pods}/on-b`,
      'pods "on-b" is forbidden: node "node-a" can only delete pods with spec.nodeName set to itself',
    );
    await t.nodeA.pods.delete("default", "on-a", { gracePeriodSeconds: 0 });
    await assert.rejects(t.admin.pods.get("default", "on-a"), { reason: "NotFound" });
  });

  it("refuses pod creation, pod spec updates, bindings, and kinds a node never writes", async () => {
    await expectForbidden(
      "POST",
      pods,
      'pods "new" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-a" can only create mirror pods',
      testPod("default", "new", "node-a"),
    );
    const mine = await t.admin.pods.get("default", "on-a");
    await expectForbidden(
      "PUT",
      `${pods}/on-a`,
      'pods "on-a" is forbidden: User "system:node:node-a" cannot update resource "pods" in API group "" in the namespace "default"',
      { ...mine, metadata: { ...mine.metadata, labels: { moved: "yes" } } },
    );
    await expectForbidden(
      "POST",
      `${pods}/on-a/binding`,
      'pods "on-a" is forbidden: User "system:node:node-a" cannot create resource "pods/binding" in API group "" in the namespace "default"',
      { apiVersion: "v1", kind: "Binding", metadata: { name: "on-a" }, target: { kind: "Node", name: "node-a" } },
    );
    await expectForbidden(
      "POST",
      "/api/v1/persistentvolumes",
      'persistentvolumes "pv-1" is forbidden: User "system:node:node-a" cannot create resource "persistentvolumes" in API group "" at the cluster scope',
      {
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name: "pv-1" },
        spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv-1" } },
      },
    );
    await expectForbidden(
      "DELETE",
      "/api/v1/namespaces/default/secrets/used-by-a",
      'secrets "used-by-a" is forbidden: User "system:node:node-a" cannot delete resource "secrets" in API group "" in the namespace "default"',
    );
  });

  it("lets a node read what a kubelet reads: its pods' secrets, one by one, and no other secret", async () => {
    assert.equal((await t.nodeA.pods.list({ fieldSelector: "spec.nodeName=node-a" })).items.length, 1);
    assert.equal((await t.nodeA.nodes.list()).items.length, 2);
    assert.equal((await t.nodeA.secrets.get("default", "used-by-a")).metadata?.name, "used-by-a");
    await expectForbidden(
      "GET",
      "/api/v1/namespaces/default/secrets/used-by-b",
      'secrets "used-by-b" is forbidden: User "system:node:node-a" cannot get resource "secrets" in API group "" in the namespace "default"',
    );
    await expectForbidden(
      "GET",
      "/api/v1/namespaces/default/secrets",
      'secrets is forbidden: User "system:node:node-a" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
  });

  it("lets a node record events, and an administrator do anything", async () => {
    await t.nodeA.events.create({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "on-a.1", namespace: "default" },
      involvedObject: { kind: "Pod", namespace: "default", name: "on-a" },
      reason: "Started",
      message: "Started container main",
      type: "Normal",
      source: { component: "kubelet", host: "node-a" },
    });
    const answer = await t.call("DELETE", "/api/v1/nodes/node-b", adminToken);
    assert.equal(answer.status, 200);
  });
});
