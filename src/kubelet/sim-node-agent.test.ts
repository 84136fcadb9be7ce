import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { Cluster } from "../cmd/cluster.ts";

const podYaml = `
apiVersion: v1
kind: Secret
metadata: { name: token, namespace: default }
data: { token: YWJj }
---
apiVersion: v1
kind: Pod
metadata: { name: web, namespace: default }
spec:
  nodeName: node-a
  containers:
    - name: web
      image: nginx:1.25
      volumeMounts: [{ name: token, mountPath: /token }]
  volumes:
    - name: token
      secret: { secretName: token }
`;

describe("SimNodeAgent through the cluster harness", () => {
  const clusters: Cluster[] = [];
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.stop();
  });

  it("loses its mounts and heartbeat on power-off, and runs its pod again after booting", async () => {
    const cluster = await Cluster.start({ controllers: [] });
    clusters.push(cluster);
    await cluster.addNode("node-a");
    await cluster.apply(podYaml);
    await cluster.runUntil(async () => (await cluster.get("Pod", "default", "web")).status?.phase === "Running");
    const host = cluster.world.node("node-a");
    const tokenMounts = async () =>
      (await host.mountInfo()).filter((mount) => mount.mountPoint.endsWith("/volumes/kubernetes.io~secret/token"));
    assert.equal((await tokenMounts()).length, 1);

    await cluster.powerOff("node-a");
    const renewedBefore = (await cluster.get("Lease", "kube-node-lease", "node-a")).spec?.renewTime;
    await cluster.runFor(60_000);
    assert.equal((await cluster.get("Lease", "kube-node-lease", "node-a")).spec?.renewTime, renewedBefore);
    assert.equal(cluster.kubelet("node-a"), undefined);

    await cluster.powerOn("node-a");
    await cluster.runUntil(async () => (await tokenMounts()).length === 1, { description: "secret mounted again" });
    await cluster.runUntil(
      async () =>
        (await cluster.get("Pod", "default", "web")).status?.containerStatuses?.[0]?.state?.running !== undefined,
      { description: "container running again" },
    );
    const status = (await cluster.get("Pod", "default", "web")).status;
    assert.equal(status?.phase, "Running");
    assert.equal(status?.containerStatuses?.[0]?.restartCount, 1);
    assert.equal(status?.containerStatuses?.[0]?.lastState?.terminated?.reason, "Unknown");
    assert.equal(status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode, 255);
  });

  it("restarts the kubelet process without disturbing a running pod", async () => {
    const cluster = await Cluster.start({ controllers: [] });
    clusters.push(cluster);
    await cluster.addNode("node-a");
    await cluster.apply(podYaml);
    await cluster.runUntil(async () => (await cluster.get("Pod", "default", "web")).status?.phase === "Running");
    const before = (await cluster.get("Pod", "default", "web")).status?.containerStatuses?.[0]?.containerID;
    await cluster.restartKubelet("node-a");
    await cluster.runFor(30_000);
    const after = await cluster.get("Pod", "default", "web");
    assert.equal(after.status?.containerStatuses?.[0]?.containerID, before);
    assert.equal(after.status?.containerStatuses?.[0]?.restartCount, 0);
  });
});
