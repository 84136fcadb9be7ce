import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type CliTestServer, startCliTestServer } from "./client/testing/cli-test-support.ts";
import { runDescribeCommand } from "./describe-command.ts";

const now = "2026-01-01T00:00:00Z";

describe("kvol describe", () => {
  let t: CliTestServer;
  beforeEach(async () => {
    t = await startCliTestServer();
    const { server } = t;
    await server.call("POST", "/api/v1/namespaces/default/persistentvolumeclaims", {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data" },
      spec: {
        accessModes: ["ReadWriteOnce"],
        storageClassName: "standard",
        resources: { requests: { storage: "1Gi" } },
      },
    });
    const pod = await server.call("POST", "/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", labels: { app: "web" } },
      spec: {
        nodeName: "node-1",
        containers: [{ name: "app", image: "busybox", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
      },
    });
    const uid = (pod.body.metadata as { uid: string }).uid;
    const event = (name: string, involved: Record<string, string>, reason: string, message: string) => ({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: "default" },
      involvedObject: involved,
      reason,
      message,
      type: "Warning",
      source: { component: "kubelet", host: "node-1" },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    });
    await server.call(
      "POST",
      "/api/v1/namespaces/default/events",
      event(
        "web.1",
        { kind: "Pod", name: "web", namespace: "default", uid },
        "FailedMount",
        'MountVolume.SetUp failed for volume "data"',
      ),
    );
    await server.call(
      "POST",
      "/api/v1/namespaces/default/events",
      event("other.1", { kind: "Pod", name: "other", namespace: "default", uid: "x" }, "Unrelated", "not about web"),
    );
  });
  afterEach(() => t.close());

  it("describes a pod with its containers, volumes and only its own events", async () => {
    const io = t.io();
    assert.equal(await runDescribeCommand(["pod", "web"], io), 0, io.stderr);
    const out = io.stdout;
    assert.match(out, /^Name:\s+web\nNamespace:\s+default\n/);
    assert.match(out, /Node:\s+node-1\n/);
    assert.match(out, /Labels:\s+app=web\n/);
    assert.match(out, / {2}app:\n {4}Container ID:\s*\n {4}Image:\s+busybox\n {4}State:\s+Waiting\n/);
    assert.match(out, / {6}\/data from data \(rw\)\n/);
    assert.match(
      out,
      / {4}Type:\s+PersistentVolumeClaim \(a reference to a PersistentVolumeClaim in the same namespace\)\n {4}ClaimName:\s+data\n/,
    );
    assert.match(out, /Events:\n {2}Type\s+Reason\s+Age\s+From\s+Message\n/);
    assert.match(out, / {2}Warning\s+FailedMount\s+\S+\s+kubelet, node-1\s+MountVolume.SetUp failed for volume "data"/);
    assert.doesNotMatch(out, /Unrelated/);
  });

  it("describes a claim with the pods that use it", async () => {
    const io = t.io();
    assert.equal(await runDescribeCommand(["pvc/data"], io), 0, io.stderr);
    assert.match(io.stdout, /Status:\s+Pending\n/);
    assert.match(io.stdout, /Used By:\s+web\n/);
    assert.match(io.stdout, /Events:\s+<none>/);
  });

  it("fails for a missing object and refuses kinds it cannot describe", async () => {
    const missing = t.io();
    assert.equal(await runDescribeCommand(["pv", "nope"], missing), 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): persistentvolumes "nope" not found\n');
    const refused = t.io();
    assert.equal(await runDescribeCommand(["configmaps", "x"], refused), 2);
    assert.match(refused.stderr, /kvol describes pods, pvc, pv, nodes and volumeattachments/);
  });

  it("describes a volume, its attachment and the node it is attached to", async () => {
    const { server } = t;
    await server.call("POST", "/api/v1/persistentvolumes", {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv-1" },
      spec: {
        capacity: { storage: "2Gi" },
        accessModes: ["ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Delete",
        claimRef: { namespace: "default", name: "data" },
        csi: { driver: "hostpath.csi.k8s.io", volumeHandle: "vol-1" },
      },
    });
    await server.call("POST", "/apis/storage.k8s.io/v1/volumeattachments", {
      apiVersion: "storage.k8s.io/v1",
      kind: "VolumeAttachment",
      metadata: { name: "csi-123" },
      spec: { attacher: "hostpath.csi.k8s.io", nodeName: "node-1", source: { persistentVolumeName: "pv-1" } },
    });
    await server.call("POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "node-1", labels: { "node-role.kubernetes.io/worker": "" } },
    });
    const io = t.io();
    assert.equal(await runDescribeCommand(["pv/pv-1", "volumeattachment/csi-123", "node/node-1"], io), 0, io.stderr);
    const out = io.stdout;
    assert.match(out, /^Name:\s+pv-1\n/m);
    assert.match(out, /Claim:\s+default\/data\n/);
    assert.match(out, /Capacity:\s+2Gi\n/);
    assert.match(
      out,
      / {2}Type:\s+CSI \(a Container Storage Interface \(CSI\) volume source\)\n {2}Driver:\s+hostpath.csi.k8s.io\n {2}VolumeHandle:\s+vol-1\n/,
    );
    assert.match(
      out,
      /Attacher:\s+hostpath.csi.k8s.io\nNode:\s+node-1\nSource:\n {2}Persistent Volume:\s+pv-1\nAttached:\s+false\n/,
    );
    assert.match(out, /^Name:\s+node-1\nRoles:\s+worker\n/m);
    assert.match(out, /Non-terminated Pods:\s+\(1 in total\)\n/);
  });
});
