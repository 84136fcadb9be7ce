/**
 * Acceptance tests of the whole control plane on virtual time: the PV controller and its
 * protection controllers, the scheduler, the workload controllers, node lifecycle, taint eviction
 * and pod GC, all running in one Cluster with the stand-in kubelet (pods start and stop; volumes are
 * not mounted). Each test asserts what a user would see with kubectl: phases, annotations, events
 * word for word (spec §1, §6.2) and when things happen (spec §8.2).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Event, PersistentVolume, PersistentVolumeClaim, Pod } from "../api/objects.ts";
import { DEFAULT_TIMERS } from "../api/timers.ts";
import type { Cluster, EventFilter, NodeOptions } from "../cmd/cluster.ts";
import { parseRfc3339 } from "../runtime/clock.ts";
import { clusterPerTest } from "./testing/clusters.ts";
import {
  claimYaml,
  podUsingClaimYaml,
  storageClassYaml,
  type VolumeBindingMode,
  webDeploymentYaml,
  webStatefulSetYaml,
} from "./testing/manifests.ts";

const secondMs = 1_000;
const minuteMs = 60 * secondMs;
const zoneLabel = "topology.kubernetes.io/zone";

const startCluster = clusterPerTest();

/** A cluster with every controller and the stand-in kubelet, and these nodes. */
async function clusterWithNodes(nodes: Record<string, NodeOptions>): Promise<Cluster> {
  const cluster = await startCluster({ standInKubelet: true });
  for (const [name, options] of Object.entries(nodes)) await cluster.addNode(name, options);
  return cluster;
}

// ---- small readers ------------------------------------------------------------------------

function claim(cluster: Cluster, name: string): Promise<PersistentVolumeClaim | undefined> {
  return cluster.tryGet("PersistentVolumeClaim", "default", name);
}

function volume(cluster: Cluster, name: string): Promise<PersistentVolume | undefined> {
  return cluster.tryGet("PersistentVolume", "", name);
}

function pod(cluster: Cluster, name: string): Promise<Pod | undefined> {
  return cluster.tryGet("Pod", "default", name);
}

function isRunningAndReady(candidate: Pod | undefined): boolean {
  const ready = candidate?.status?.conditions?.find((condition) => condition.type === "Ready");
  return candidate?.status?.phase === "Running" && ready?.status === "True";
}

function isAvailable(candidate: PersistentVolume): boolean {
  return candidate.status?.phase === "Available";
}

/** `type reason: message` of each event matching the filter, oldest first, as `kubectl describe` lists them. */
async function eventLines(cluster: Cluster, filter: EventFilter): Promise<string[]> {
  return (await cluster.events(filter)).map((event: Event) => `${event.type} ${event.reason}: ${event.message}`);
}

/** Runs until `condition` holds and returns the virtual time at which it first did. */
async function timeWhen(
  cluster: Cluster,
  description: string,
  condition: () => Promise<boolean>,
  timeoutMs = 10 * minuteMs,
): Promise<number> {
  await cluster.runUntil(condition, { description, timeoutMs });
  return cluster.clock.now();
}

// ---- manifests ----------------------------------------------------------------------------

const manualClassYaml = storageClassYaml({
  name: "manual",
  provisioner: "kubernetes.io/no-provisioner",
  bindingMode: "Immediate",
});

/** A sim-disk class with the parameters a cloud disk class carries. */
function simDiskClassYaml(
  name: string,
  bindingMode: VolumeBindingMode,
  reclaimPolicy: "Delete" | "Retain" = "Delete",
): string {
  return storageClassYaml({ name, bindingMode, reclaimPolicy, parameters: { type: "ssd", fsType: "ext4" } });
}

function hostPathVolumeYaml(name: string, capacity: string, accessModes: string, className = "manual"): string {
  return `
apiVersion: v1
kind: PersistentVolume
metadata: { name: ${name} }
spec:
  capacity: { storage: ${capacity} }
  accessModes: [${accessModes}]
  storageClassName: ${className}
  hostPath: { path: /mnt/${name} }
`;
}

// ---- the stories --------------------------------------------------------------------------

describe("the control plane, end to end", () => {
  it("binds an Immediate claim to the smallest volume that fits, and marks both sides", async () => {
    const cluster = await clusterWithNodes({});
    await cluster.apply(
      [
        manualClassYaml,
        hostPathVolumeYaml("pv-1gi", "1Gi", "ReadWriteOnce"),
        hostPathVolumeYaml("pv-10gi", "10Gi", "ReadWriteOnce"),
        hostPathVolumeYaml("pv-3gi", "3Gi", "ReadWriteOnce"),
        hostPathVolumeYaml("pv-5gi", "5Gi", "ReadWriteOnce"),
        hostPathVolumeYaml("pv-2gi-rox", "2Gi", "ReadOnlyMany"),
        hostPathVolumeYaml("pv-2gi-other-class", "2Gi", "ReadWriteOnce", "other"),
      ].join("---\n"),
    );
    const names = ["pv-1gi", "pv-10gi", "pv-3gi", "pv-5gi", "pv-2gi-rox", "pv-2gi-other-class"];
    await cluster.runUntil(async () => (await cluster.list("PersistentVolume")).every(isAvailable), {
      description: "every volume Available",
    });

    await cluster.apply(claimYaml("data", { storageClassName: "manual", storage: "2Gi" }));
    const tookMs = await cluster.runUntil(async () => (await claim(cluster, "data"))?.status?.phase === "Bound", {
      description: "claim data Bound",
    });
    assert.ok(tookMs < DEFAULT_TIMERS.pvControllerResyncPeriodMs, `bound after ${tookMs} ms, without a resync`);

    const bound = await claim(cluster, "data");
    assert.equal(bound?.spec?.volumeName, "pv-3gi", "the smallest RWO volume of the class that holds 2Gi");
    assert.deepEqual(bound?.metadata?.annotations, {
      "pv.kubernetes.io/bind-completed": "yes",
      "pv.kubernetes.io/bound-by-controller": "yes",
    });
    assert.deepEqual(bound?.status?.capacity, { storage: "3Gi" });
    assert.deepEqual(bound?.status?.accessModes, ["ReadWriteOnce"]);

    const chosen = await volume(cluster, "pv-3gi");
    assert.equal(chosen?.status?.phase, "Bound");
    assert.equal(chosen?.metadata?.annotations?.["pv.kubernetes.io/bound-by-controller"], "yes");
    assert.deepEqual(
      { namespace: chosen?.spec?.claimRef?.namespace, name: chosen?.spec?.claimRef?.name },
      { namespace: "default", name: "data" },
    );
    assert.equal(chosen?.spec?.claimRef?.uid, bound?.metadata?.uid);
    for (const name of names.filter((name) => name !== "pv-3gi")) {
      const other = await volume(cluster, name);
      assert.equal(other?.status?.phase, "Available", `${name} stays Available`);
      assert.equal(other?.spec?.claimRef, undefined, `${name} has no claimRef`);
    }
  });

  it("waits for the first consumer, then provisions in the zone of the node the scheduler picked", async () => {
    const cluster = await clusterWithNodes({ "node-a": { zone: "zone-1" }, "node-b": { zone: "zone-2" } });
    await cluster.apply(
      [simDiskClassYaml("zonal", "WaitForFirstConsumer"), claimYaml("data", { storageClassName: "zonal" })].join(
        "---\n",
      ),
    );
    await cluster.runFor(5 * minuteMs);

    const waiting = await claim(cluster, "data");
    assert.equal(waiting?.status?.phase, "Pending");
    assert.equal(waiting?.spec?.volumeName, undefined);
    assert.equal(waiting?.metadata?.annotations?.["volume.kubernetes.io/selected-node"], undefined);
    assert.deepEqual(await eventLines(cluster, { kind: "PersistentVolumeClaim", name: "data" }), [
      "Normal WaitForFirstConsumer: waiting for first consumer to be created before binding",
    ]);
    const [waitEvent] = await cluster.events({ kind: "PersistentVolumeClaim", name: "data" });
    assert.equal(waitEvent?.source?.component, "persistentvolume-controller");
    // Once at creation (admission already added the protection finalizer, so no second write
    // wakes the controller), then at every 15 s resync: `kubectl describe` shows "(x21 over 5m)".
    assert.equal(waitEvent?.count, 21);
    assert.deepEqual(await cluster.list("PersistentVolume"), [], "nothing is provisioned before a pod needs it");
    assert.equal(cluster.world.disks.has(`pvc-${waiting?.metadata?.uid}`), false);

    await cluster.apply(podUsingClaimYaml("app", "data"));
    await cluster.runUntil(async () => isRunningAndReady(await pod(cluster, "app")), { description: "app Running" });

    const app = await pod(cluster, "app");
    const nodeName = app?.spec?.nodeName ?? "";
    const zone = (await cluster.get("Node", "", nodeName)).metadata?.labels?.[zoneLabel];
    const bound = await claim(cluster, "data");
    const volumeName = `pvc-${bound?.metadata?.uid}`;
    assert.equal(bound?.status?.phase, "Bound");
    assert.equal(bound?.spec?.volumeName, volumeName);
    assert.deepEqual(bound?.metadata?.annotations, {
      "volume.kubernetes.io/selected-node": nodeName,
      "volume.kubernetes.io/storage-provisioner": "kvol.io/sim-disk",
      "volume.beta.kubernetes.io/storage-provisioner": "kvol.io/sim-disk",
      "pv.kubernetes.io/bound-by-controller": "yes",
      "pv.kubernetes.io/bind-completed": "yes",
    });

    const provisioned = await volume(cluster, volumeName);
    assert.equal(provisioned?.status?.phase, "Bound");
    assert.equal(provisioned?.spec?.storageClassName, "zonal");
    assert.equal(provisioned?.spec?.claimRef?.uid, bound?.metadata?.uid);
    assert.deepEqual(provisioned?.metadata?.annotations, {
      "pv.kubernetes.io/bound-by-controller": "yes",
      "pv.kubernetes.io/provisioned-by": "kvol.io/sim-disk",
    });
    assert.deepEqual(provisioned?.metadata?.finalizers, ["kubernetes.io/pv-controller", "kubernetes.io/pv-protection"]);
    assert.equal(provisioned?.metadata?.labels?.[zoneLabel], zone);
    assert.deepEqual(provisioned?.spec?.nodeAffinity, {
      required: { nodeSelectorTerms: [{ matchExpressions: [{ key: zoneLabel, operator: "In", values: [zone] }] }] },
    });
    assert.equal(cluster.world.disks.disk(volumeName).zone, zone, "the disk lives in the pod's zone");

    assert.deepEqual(await eventLines(cluster, { kind: "PersistentVolumeClaim", name: "data" }), [
      "Normal WaitForFirstConsumer: waiting for first consumer to be created before binding",
      `Normal ProvisioningSucceeded: Successfully provisioned volume ${volumeName} using kvol.io/sim-disk`,
    ]);
    assert.deepEqual(await eventLines(cluster, { kind: "Pod", name: "app" }), [
      `Normal Scheduled: Successfully assigned default/app to ${nodeName}`,
    ]);
  });

  for (const reclaim of ["Retain", "Delete"] as const) {
    it(`keeps a claim in use Terminating until its pod is gone, then ${reclaim === "Retain" ? "releases" : "deletes"} the volume`, async () => {
      const cluster = await clusterWithNodes({ "node-a": { zone: "zone-1" } });
      await cluster.apply(
        [
          simDiskClassYaml("disk", "Immediate", reclaim),
          claimYaml("data", { storageClassName: "disk" }),
          podUsingClaimYaml("app", "data"),
        ].join("---\n"),
      );
      await cluster.runUntil(async () => isRunningAndReady(await pod(cluster, "app")), { description: "app Running" });
      const volumeName = (await claim(cluster, "data"))?.spec?.volumeName ?? "";
      assert.ok(cluster.world.disks.has(volumeName), "the provisioned disk exists");

      await cluster.delete("PersistentVolumeClaim", "default", "data");
      await cluster.runFor(10 * minuteMs);
      const terminating = await claim(cluster, "data");
      assert.notEqual(terminating?.metadata?.deletionTimestamp, undefined, "the claim is Terminating");
      assert.deepEqual(terminating?.metadata?.finalizers, ["kubernetes.io/pvc-protection"]);
      assert.equal(terminating?.status?.phase, "Bound");
      assert.equal((await volume(cluster, volumeName))?.status?.phase, "Bound");

      await cluster.delete("Pod", "default", "app");
      await cluster.runUntil(async () => (await claim(cluster, "data")) === undefined, {
        description: "claim data gone",
        timeoutMs: minuteMs,
      });
      if (reclaim === "Retain") {
        await cluster.runUntil(async () => (await volume(cluster, volumeName))?.status?.phase === "Released", {
          description: `${volumeName} Released`,
          timeoutMs: minuteMs,
        });
        await cluster.runFor(10 * minuteMs);
        assert.equal((await volume(cluster, volumeName))?.status?.phase, "Released", "a retained volume stays");
        assert.ok(cluster.world.disks.has(volumeName), "and so does its disk");
      } else {
        await cluster.runUntil(async () => (await volume(cluster, volumeName)) === undefined, {
          description: `${volumeName} deleted`,
          timeoutMs: minuteMs,
        });
        assert.equal(cluster.world.disks.has(volumeName), false, "the disk is deleted with the volume");
      }
    });
  }

  it("a StatefulSet pod on a powered-off node is evicted but never replaced until the node is declared out of service", async () => {
    const cluster = await clusterWithNodes({ "node-a": { zone: "zone-1" } });
    await cluster.apply(
      [simDiskClassYaml("zonal", "WaitForFirstConsumer"), webStatefulSetYaml({ storageClassName: "zonal" })].join(
        "---\n",
      ),
    );
    await cluster.runUntil(async () => isRunningAndReady(await pod(cluster, "web-0")), {
      description: "web-0 Running",
    });
    const original = await pod(cluster, "web-0");
    assert.equal(original?.spec?.nodeName, "node-a");
    const volumeName = (await claim(cluster, "www-web-0"))?.spec?.volumeName;
    await cluster.addNode("node-b", { zone: "zone-1" });
    await cluster.runFor(minuteMs);

    cluster.stopHeartbeat("node-a");
    const lease = await cluster.get("Lease", "kube-node-lease", "node-a");
    const lastHeartbeatMs = parseRfc3339(lease.spec?.renewTime ?? "");

    // Ready goes Unknown once nothing was heard for the 40 s grace period (checked every 5 s).
    const unknownAtMs = await timeWhen(cluster, "node-a Ready Unknown", async () => {
      const node = await cluster.get("Node", "", "node-a");
      return node.status?.conditions?.find((condition) => condition.type === "Ready")?.status === "Unknown";
    });
    const silentMs = unknownAtMs - lastHeartbeatMs;
    const graceMs = DEFAULT_TIMERS.nodeMonitorGracePeriodMs;
    const monitorMs = DEFAULT_TIMERS.nodeMonitorPeriodMs;
    assert.ok(
      silentMs > graceMs && silentMs <= graceMs + 2 * monitorMs,
      `Unknown ${silentMs} ms after the last heartbeat`,
    );

    const taintedAtMs = await timeWhen(cluster, "node-a tainted unreachable:NoExecute", async () => {
      const taints = (await cluster.get("Node", "", "node-a")).spec?.taints ?? [];
      return taints.some((taint) => taint.key === "node.kubernetes.io/unreachable" && taint.effect === "NoExecute");
    });
    const taints = (await cluster.get("Node", "", "node-a")).spec?.taints ?? [];
    assert.deepEqual(taints.map((taint) => `${taint.key}:${taint.effect}`).sort(), [
      "node.kubernetes.io/unreachable:NoExecute",
      "node.kubernetes.io/unreachable:NoSchedule",
    ]);
    assert.ok(taintedAtMs - unknownAtMs <= monitorMs, "tainted NoExecute on the monitor pass after Unknown");

    // The pod tolerates unreachable:NoExecute for 300 s; then it is deleted and stays Terminating.
    const tolerationMs = DEFAULT_TIMERS.defaultUnreachableTolerationSeconds * secondMs;
    const terminatingAtMs = await timeWhen(
      cluster,
      "web-0 Terminating",
      async () => (await pod(cluster, "web-0"))?.metadata?.deletionTimestamp !== undefined,
    );
    const evictedAfterMs = terminatingAtMs - lastHeartbeatMs;
    assert.ok(
      evictedAfterMs >= graceMs + tolerationMs && evictedAfterMs <= graceMs + tolerationMs + 3 * monitorMs,
      `Terminating ${evictedAfterMs} ms after the last heartbeat`,
    );
    assert.ok(terminatingAtMs - taintedAtMs >= tolerationMs, "not before the toleration ran out");
    assert.deepEqual(await eventLines(cluster, { kind: "Node", name: "node-a" }), [
      "Normal RegisteredNode: Registered Node node-a in Controller",
      "Normal NodeNotReady: Node node-a status is now: NodeNotReady",
    ]);
    assert.deepEqual(await eventLines(cluster, { kind: "Pod", name: "web-0" }), [
      "Normal Scheduled: Successfully assigned default/web-0 to node-a",
      "Warning NodeNotReady: Node is not ready",
      "Normal TaintManagerEviction: Marking for deletion Pod default/web-0",
    ]);
    const evicted = await pod(cluster, "web-0");
    const conditionOf = (type: string) => evicted?.status?.conditions?.find((condition) => condition.type === type);
    assert.equal(conditionOf("Ready")?.status, "False");
    assert.deepEqual(
      { status: conditionOf("DisruptionTarget")?.status, reason: conditionOf("DisruptionTarget")?.reason },
      { status: "True", reason: "DeletionByTaintManager" },
    );

    const setEventsBefore = await eventLines(cluster, { kind: "StatefulSet", name: "web" });
    await cluster.runFor(30 * minuteMs);
    const stuck = await pod(cluster, "web-0");
    assert.equal(stuck?.metadata?.uid, original?.metadata?.uid, "no new web-0 while the old one exists");
    assert.notEqual(stuck?.metadata?.deletionTimestamp, undefined);
    assert.deepEqual(await eventLines(cluster, { kind: "StatefulSet", name: "web" }), setEventsBefore);

    // Non-graceful node shutdown: the administrator declares node-a out of service.
    await cluster.client.nodes.mutate("", "node-a", (draft) => {
      const outOfService = { key: "node.kubernetes.io/out-of-service", value: "nodeshutdown", effect: "NoExecute" };
      draft.spec = { ...draft.spec, taints: [...(draft.spec?.taints ?? []), outOfService] };
    });
    const outOfServiceAtMs = cluster.clock.now();
    const goneAtMs = await timeWhen(
      cluster,
      "the old web-0 gone",
      async () => (await pod(cluster, "web-0"))?.metadata?.uid !== original?.metadata?.uid,
    );
    assert.ok(
      goneAtMs - outOfServiceAtMs <= DEFAULT_TIMERS.podGcPeriodMs,
      `force-deleted ${goneAtMs - outOfServiceAtMs} ms after the taint`,
    );

    await cluster.runUntil(async () => isRunningAndReady(await pod(cluster, "web-0")), {
      description: "the new web-0 Running",
    });
    const replacement = await pod(cluster, "web-0");
    assert.notEqual(replacement?.metadata?.uid, original?.metadata?.uid);
    assert.equal(replacement?.spec?.nodeName, "node-b");
    assert.deepEqual(replacement?.spec?.volumes?.find((v) => v.name === "www")?.persistentVolumeClaim, {
      claimName: "www-web-0",
    });
    assert.equal((await claim(cluster, "www-web-0"))?.spec?.volumeName, volumeName, "the same claim and volume");
    // The eviction had already happened: the old pod's removal cancels nothing.
    assert.deepEqual((await eventLines(cluster, { kind: "Pod", name: "web-0" })).slice(3), [
      "Normal Scheduled: Successfully assigned default/web-0 to node-b",
    ]);
  });

  it("a Deployment rollout starts the new pod before the old one goes", async () => {
    const cluster = await clusterWithNodes({ "node-a": { zone: "zone-1" } });
    await cluster.apply(webDeploymentYaml({ image: "nginx:1.25" }));
    const podsWithImage = async (image: string) =>
      (await cluster.list("Pod", { namespace: "default" })).filter(
        (candidate) => candidate.spec?.containers[0]?.image === image,
      );
    await cluster.runUntil(async () => (await podsWithImage("nginx:1.25")).some(isRunningAndReady), {
      description: "the first pod Running",
    });
    const [old] = await podsWithImage("nginx:1.25");
    const oldName = old?.metadata?.name ?? "";

    await cluster.apply(webDeploymentYaml({ image: "nginx:1.26" }));
    const seen = { newCreatedMs: Number.NaN, newReadyMs: Number.NaN, oldTerminatingMs: Number.NaN };
    const noteOnce = (key: keyof typeof seen, happened: boolean) => {
      if (happened && Number.isNaN(seen[key])) seen[key] = cluster.clock.now();
    };
    await cluster.runUntil(
      async () => {
        const fresh = await podsWithImage("nginx:1.26");
        const oldPod = await pod(cluster, oldName);
        noteOnce("newCreatedMs", fresh.length > 0);
        noteOnce("newReadyMs", fresh.some(isRunningAndReady));
        noteOnce("oldTerminatingMs", oldPod === undefined || oldPod.metadata?.deletionTimestamp !== undefined);
        return oldPod === undefined && fresh.some(isRunningAndReady);
      },
      { description: "the rollout done" },
    );
    assert.ok(seen.newCreatedMs < seen.oldTerminatingMs, "the new pod exists while the old one still runs");
    assert.ok(seen.newReadyMs <= seen.oldTerminatingMs, "the old pod is deleted only once the new one is Ready");

    const [fresh] = await podsWithImage("nginx:1.26");
    const oldSet = `web-${old?.metadata?.labels?.["pod-template-hash"]}`;
    const newSet = `web-${fresh?.metadata?.labels?.["pod-template-hash"]}`;
    assert.notEqual(oldSet, newSet);
    assert.deepEqual(await eventLines(cluster, { kind: "Deployment", name: "web" }), [
      `Normal ScalingReplicaSet: Scaled up replica set ${oldSet} to 1`,
      `Normal ScalingReplicaSet: Scaled up replica set ${newSet} to 1`,
      `Normal ScalingReplicaSet: Scaled down replica set ${oldSet} to 0`,
    ]);
  });
});
