/**
 * Under leader election each component campaigns on a Lease of its own, as in Kubernetes:
 * kube-controller-manager and kube-scheduler (lease 15 s, renew deadline 10 s, retry 2 s), and each
 * CSI driver's csi-provisioner and csi-attacher (15 s, 10 s, 5 s). Two replicas on virtual time:
 * one component's process dies, another replica takes that one over, and what else runs is left
 * alone.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import { diskDriverName } from "../csi/drivers/common/constants.ts";
import { parseRfc3339 } from "../runtime/clock.ts";
import { clusterPerTest } from "../sim/testing/clusters.ts";
import type { Cluster } from "./cluster.ts";

const SECOND = 1_000;
const a = "host-a_1";
const b = "host-b_2";

async function lease(cluster: Cluster, name: string): Promise<Lease> {
  return cluster.get("Lease", "kube-system", name);
}

/** The gaps between the renewals of Lease `name` seen over `forMs`, checked every 100 ms. */
async function renewalGapsMs(cluster: Cluster, name: string, forMs: number): Promise<number[]> {
  const renewals: number[] = [];
  for (let waited = 0; waited < forMs; waited += 100) {
    const renewTime = (await lease(cluster, name)).spec?.renewTime;
    const at = renewTime === undefined ? undefined : parseRfc3339(renewTime);
    if (at !== undefined && renewals.at(-1) !== at) renewals.push(at);
    await cluster.runFor(100);
  }
  return renewals.slice(1).map((at, index) => at - (renewals[index] ?? at));
}

/** Runs until `identity` leads `component`; how long that took. */
async function takeover(cluster: Cluster, component: string, identity: string): Promise<number> {
  const startMs = cluster.clock.now();
  await cluster.runUntil(() => cluster.leaderOf(component) === identity, {
    timeoutMs: 2 * 60 * SECOND,
    description: `${identity} leading ${component}`,
  });
  return cluster.clock.now() - startMs;
}

describe("a Lease per control-plane component", () => {
  const startCluster = clusterPerTest();
  const start = () =>
    startCluster({ seed: 16, csiDrivers: [{ name: diskDriverName }], leaderElection: { identities: [a, b] } });

  it("holds kube-controller-manager, kube-scheduler and each sidecar's Lease with their own timings", async () => {
    const cluster = await start();
    await cluster.runFor(3 * SECOND);
    for (const name of ["kube-controller-manager", "kube-scheduler"]) {
      const spec = (await lease(cluster, name)).spec;
      assert.equal(spec?.holderIdentity, a, name);
      assert.equal(spec?.leaseDurationSeconds, 15, name);
    }
    for (const name of [
      "disk-csi-kvol-io",
      "external-attacher-leader-disk-csi-kvol-io",
      "external-snapshotter-leader-disk-csi-kvol-io",
      "external-resizer-disk-csi-kvol-io",
      "snapshot-controller-leader",
    ]) {
      const spec = (await lease(cluster, name)).spec;
      assert.equal(spec?.holderIdentity, "host-a-1", `${name}: csi-lib-utils writes the identity sanitized`);
      assert.equal(spec?.leaseDurationSeconds, 15, name);
    }
    const schedulerGaps = await renewalGapsMs(cluster, "kube-scheduler", 9 * SECOND);
    assert.ok(schedulerGaps.length >= 3, JSON.stringify(schedulerGaps));
    assert.ok(
      schedulerGaps.every((gapMs) => gapMs === 2_000),
      `renewed every 2 s: ${JSON.stringify(schedulerGaps)}`,
    );
    const attacherGaps = await renewalGapsMs(cluster, "external-attacher-leader-disk-csi-kvol-io", 16 * SECOND);
    assert.ok(attacherGaps.length >= 2, JSON.stringify(attacherGaps));
    assert.ok(
      attacherGaps.every((gapMs) => gapMs === 5_000),
      `renewed every 5 s: ${JSON.stringify(attacherGaps)}`,
    );
    const running = cluster.controllers.map((controller) => controller.name).sort();
    assert.deepEqual(
      running.filter((name) => ["default-scheduler", "csi-provisioner", "csi-attacher"].includes(name)),
      ["csi-attacher", "csi-provisioner", "default-scheduler"],
      "only the leader runs each component",
    );
  });

  it("a dead scheduler moves to the other replica, the controllers staying where they run", async () => {
    const cluster = await start();
    await cluster.addNode("node-a");
    await cluster.runFor(3 * SECOND);
    const controllerManager = cluster.replica(a).component("kube-controller-manager");
    const controllersBefore = [...controllerManager.controllers];
    cluster.crashControlPlane(a, "kube-scheduler");
    const tookMs = await takeover(cluster, "kube-scheduler", b);
    // The Lease expires 15 s after b last saw it change; b notices at one of its tries, 2 to 4.4 s apart.
    assert.ok(tookMs >= 13 * SECOND && tookMs <= 15 * SECOND + 2 * 4_400, `took over after ${tookMs} ms`);
    assert.equal(cluster.leaderIdentity(), a, "kube-controller-manager still led by host-a_1");
    assert.equal(controllerManager.termsLed, 1, "its controllers did not restart");
    assert.ok(controllerManager.controllers.every((controller, index) => controller === controllersBefore[index]));
    assert.equal((await lease(cluster, "kube-controller-manager")).spec?.leaseTransitions, 0);
    assert.equal((await lease(cluster, "kube-scheduler")).spec?.leaseTransitions, 1);
    assert.equal((await lease(cluster, "kube-scheduler")).spec?.holderIdentity, b);

    await cluster.apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", namespace: "default" },
      spec: { containers: [{ name: "app", image: "busybox:1.36" }] },
    });
    await cluster.runUntil(async () => (await cluster.get("Pod", "default", "web")).spec?.nodeName === "node-a", {
      timeoutMs: 60 * SECOND,
      description: "the pod scheduled by host-b_2's scheduler",
    });
  });

  it("when a whole replica dies each of its components moves, the scheduler already moved staying put", async () => {
    const cluster = await start();
    await cluster.runFor(3 * SECOND);
    cluster.crashControlPlane(a, "kube-scheduler");
    await takeover(cluster, "kube-scheduler", b);
    const scheduler = cluster.replica(b).component("kube-scheduler");
    const schedulerBefore = [...scheduler.controllers];

    cluster.crashControlPlane(a);
    const crashedAtMs = cluster.clock.now();
    const controllersMs = await takeover(cluster, "kube-controller-manager", b);
    assert.ok(controllersMs <= 15 * SECOND + 2 * 4_400, `kube-controller-manager took over after ${controllersMs} ms`);
    await takeover(cluster, "csi-attacher/disk.csi.kvol.io", b);
    await takeover(cluster, "csi-provisioner/disk.csi.kvol.io", b);
    const sidecarsMs = cluster.clock.now() - crashedAtMs;
    // The sidecars try every 5 s (+ up to 6 s of jitter): 15 s after they last saw a renewal, at a try.
    assert.ok(sidecarsMs >= 10 * SECOND && sidecarsMs <= 15 * SECOND + 2 * 11_000, `sidecars after ${sidecarsMs} ms`);
    assert.equal((await lease(cluster, "external-attacher-leader-disk-csi-kvol-io")).spec?.holderIdentity, "host-b-2");
    assert.equal(scheduler.termsLed, 1, "the scheduler that moved first did not restart");
    assert.ok(scheduler.controllers.every((controller, index) => controller === schedulerBefore[index]));
    assert.deepEqual(cluster.replica(a).controllers, [], "nothing runs in the dead replica");
  });
});
