/**
 * Inline (ephemeral) CSI volumes, `pod.spec.volumes[].csi`, end to end in the simulated cluster:
 * the hostpath driver serves them (its CSIDriver lists Ephemeral), the mock driver does not.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { afterEach, describe, it } from "node:test";
import { hostpathDriverName, mockDriverName } from "../csi/drivers/common/constants.ts";
import { isRunning } from "../sim/testing/e2e.ts";
import { Cluster, type ClusterCsiDriver } from "./cluster.ts";

const minuteMs = 60_000;

function inlinePod(driverName: string): string {
  return `
apiVersion: v1
kind: Pod
metadata: { name: web, namespace: default }
spec:
  containers: [{ name: web, image: nginx, volumeMounts: [{ name: scratch, mountPath: /scratch }] }]
  volumes:
  - name: scratch
    csi:
      driver: ${driverName}
      volumeAttributes: { size: 1Mi }
`;
}

async function isPresent(host: { lstat(path: string): Promise<unknown> }, path: string): Promise<boolean> {
  try {
    await host.lstat(path);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return false;
    throw err;
  }
}

describe("inline CSI volumes", () => {
  const clusters: Cluster[] = [];
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.stop();
  });

  async function start(drivers: ClusterCsiDriver[]): Promise<Cluster> {
    const cluster = await Cluster.start({ seed: 17, csiDrivers: drivers });
    clusters.push(cluster);
    await cluster.addNode("node-a");
    return cluster;
  }

  it("publishes a hostpath inline volume for the pod's life and deletes its directory with the pod", async () => {
    const cluster = await start([{ name: hostpathDriverName }]);
    const driver = await cluster.get("CSIDriver", "", hostpathDriverName);
    assert.deepEqual(driver.spec?.volumeLifecycleModes, ["Persistent", "Ephemeral"]);
    assert.equal(driver.spec?.podInfoOnMount, true);
    await cluster.apply(inlinePod(hostpathDriverName));
    await cluster.runUntil(async () => isRunning(await cluster.get("Pod", "default", "web")), {
      timeoutMs: 5 * minuteMs,
      description: "the pod Running",
    });
    const pod = await cluster.get("Pod", "default", "web");
    const uid = pod.metadata?.uid ?? "";
    // The kubelet names an inline volume csi-<sha256 of pod UID + volume name>.
    const volumeId = `csi-${createHash("sha256").update(`${uid}scratch`).digest("hex")}`;
    const host = cluster.world.node("node-a");
    const target = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~csi/scratch/mount`;
    const data = `/var/lib/kvol/csi-hostpath/ephemeral/${volumeId}`;
    assert.ok(
      (await host.mountInfo()).some((mount) => mount.mountPoint === target),
      "the target is mounted",
    );
    await host.writeFile(`${target}/hello.txt`, "hello");
    assert.equal(new TextDecoder().decode(await host.readFile(`${data}/hello.txt`)), "hello");
    const volumeData = JSON.parse(
      new TextDecoder().decode(
        await host.readFile(`/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~csi/scratch/vol_data.json`),
      ),
    ) as Record<string, string>;
    assert.equal(volumeData.volumeLifecycleMode, "Ephemeral");
    assert.equal(volumeData.volumeHandle, volumeId);
    assert.deepEqual(await cluster.list("PersistentVolume"), [], "no PV for an inline volume");
    assert.deepEqual(await cluster.list("VolumeAttachment"), [], "inline volumes are not attached");

    await cluster.delete("Pod", "default", "web");
    await cluster.runUntil(async () => !(await isPresent(host, data)), {
      timeoutMs: 5 * minuteMs,
      description: "the ephemeral volume's directory deleted",
    });
    assert.ok(!(await host.mountInfo()).some((mount) => mount.mountPoint === target), "the target is unmounted");
  });

  it("tears an inline volume down after a kubelet restart, from what the kubelet finds on disk", async () => {
    const cluster = await start([{ name: hostpathDriverName }]);
    await cluster.apply(inlinePod(hostpathDriverName));
    await cluster.runUntil(async () => isRunning(await cluster.get("Pod", "default", "web")), {
      timeoutMs: 5 * minuteMs,
      description: "the pod Running",
    });
    const uid = (await cluster.get("Pod", "default", "web")).metadata?.uid ?? "";
    const volumeId = `csi-${createHash("sha256").update(`${uid}scratch`).digest("hex")}`;
    const data = `/var/lib/kvol/csi-hostpath/ephemeral/${volumeId}`;
    const host = cluster.world.node("node-a");

    await cluster.stopKubelet("node-a");
    await cluster.delete("Pod", "default", "web");
    await cluster.runFor(minuteMs);
    assert.ok(await isPresent(host, data), "nothing unpublishes while the kubelet is down");
    await cluster.startKubelet("node-a");
    await cluster.runUntil(async () => !(await isPresent(host, data)), {
      timeoutMs: 5 * minuteMs,
      description: "the ephemeral volume's directory deleted by the restarted kubelet",
    });
    await cluster.runUntil(async () => (await cluster.tryGet("Pod", "default", "web")) === undefined, {
      timeoutMs: 5 * minuteMs,
      description: "the pod removed",
    });
    assert.ok(!(await isPresent(host, `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~csi/scratch`)));
  });

  it("refuses an inline volume of a driver without Ephemeral mode with Kubernetes' event", async () => {
    const cluster = await start([{ name: mockDriverName }]);
    await cluster.apply(inlinePod(mockDriverName));
    const message =
      `MountVolume.SetUp failed for volume "scratch" : kubernetes.io/csi: mounter.SetupAt failed to check volume ` +
      `lifecycle mode: volume mode "Ephemeral" not supported by driver ${mockDriverName} (only supports ["Persistent"])`;
    await cluster.runUntil(
      async () => (await cluster.events()).some((event) => event.reason === "FailedMount" && event.message === message),
      { timeoutMs: 5 * minuteMs, description: "the FailedMount event" },
    );
    assert.equal(isRunning(await cluster.get("Pod", "default", "web")), false);
  });
});
