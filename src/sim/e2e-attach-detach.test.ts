/**
 * End to end, with a real kubelet on every node: a provisioned sim-disk volume attached, mounted,
 * used, moved between nodes and force-detached from a dead node, as a user sees it — pod phases,
 * events word for word, node status, mounts and bytes on the nodes, and timings in virtual time.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Event, Pod } from "../api/objects.ts";
import { diskAttachLatencyDefaultMs, diskDetachLatencyDefaultMs } from "../host/sim/sim-constants.ts";
import { SimContainerRuntime } from "../kubelet/container/sim-container-runtime.ts";
import { parseRfc3339 } from "../runtime/clock.ts";
import { simDiskPluginName } from "../volume/plugins/simdisk/sim-disk-source.ts";
import { clusterPerTest } from "./testing/clusters.ts";
import {
  firstRecordedMs,
  isRunning,
  Milestones,
  mountPointsUnder,
  nodeVolumes,
  podEventMessages,
  podEvents,
  podsIn,
  podVolumePath,
  readText,
  waitingReason,
} from "./testing/e2e.ts";
import { claimYaml, storageClassYaml, webStatefulSetYaml } from "./testing/manifests.ts";

const secondMs = 1_000;
const minuteMs = 60 * secondMs;
const kubeletRoot = "/var/lib/kubelet";
// Kubernetes' timers, written as Kubernetes ships them so a changed default fails these tests.
/** ADC reconciler loop period (DefaultTimerConfig): 100 ms. */
const adcLoopPeriodMs = 100;
/** ADC maxWaitForUnmountDuration: force detach after 6 min. */
const adcMaxWaitForUnmountMs = 6 * minuteMs;
/** Kubelet podAttachAndMountTimeout: 2 min 3 s. */
const podAttachAndMountTimeoutMs = 2 * minuteMs + 3 * secondMs;
/** Kubelet podAttachAndMountRetryInterval: 300 ms. */
const mountWaitPollMs = 300;
/** podgc gcCheckPeriod: 20 s. */
const podGcPeriodMs = 20 * secondMs;
/** --node-monitor-grace-period: 40 s. */
const nodeMonitorGracePeriodMs = 40 * secondMs;
/** --node-monitor-period: 5 s. */
const nodeMonitorPeriodMs = 5 * secondMs;
/** DefaultTolerationSeconds admission: unreachable:NoExecute tolerated for 300 s. */
const unreachableTolerationMs = 300 * secondMs;
const outOfServiceTaint = { key: "node.kubernetes.io/out-of-service", value: "nodeshutdown", effect: "NoExecute" };

const dataClaimYaml = claimYaml("data");

/**
 * A database Deployment, pinned to `nodeName` when given. A rollout stops the old pod before it
 * starts the new one (maxSurge 0): with the default maxSurge the new pod could never attach the RWO
 * disk while the old one runs on another node, and the rollout would never finish.
 */
function dbDeploymentYaml(nodeName?: string): string {
  const nodeSelector = nodeName === undefined ? "" : `nodeSelector: { kubernetes.io/hostname: ${nodeName} }`;
  return `
apiVersion: apps/v1
kind: Deployment
metadata: { name: db }
spec:
  replicas: 1
  strategy: { type: RollingUpdate, rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }
  selector: { matchLabels: { app: db } }
  template:
    metadata: { labels: { app: db } }
    spec:
      ${nodeSelector}
      containers:
        - name: db
          image: postgres:16
          volumeMounts: [{ name: data, mountPath: /var/lib/postgresql/data }]
      volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
`;
}

describe("end to end: sim-disk volumes through attach, mount and detach", () => {
  const startClusterWith = clusterPerTest();
  const startCluster = (seed: number) => startClusterWith({ seed });

  for (const bindingMode of ["Immediate", "WaitForFirstConsumer"] as const) {
    it(`a StatefulSet on a ${bindingMode} class gets a provisioned disk, runs, and keeps its bytes across pod recreation`, async () => {
      const cluster = await startCluster(11);
      await cluster.addNode("node-a", { zone: "zone-1" });
      await cluster.apply(`${storageClassYaml({ bindingMode })}---\n${webStatefulSetYaml()}`);
      const web0 = () => cluster.tryGet("Pod", "default", "web-0");
      const pvName = async () =>
        (await cluster.tryGet("PersistentVolumeClaim", "default", "www-web-0"))?.spec?.volumeName;
      const uniqueName = async () => `${simDiskPluginName}/${await pvName()}`;
      const milestones = new Milestones(cluster, {
        attached: async () => (await nodeVolumes(cluster, "node-a")).attached.includes(await uniqueName()),
        inUse: async () => (await nodeVolumes(cluster, "node-a")).inUse.includes(await uniqueName()),
        running: async () => isRunning(await web0()),
      });
      await milestones.runUntil("running", 2 * minuteMs);

      const claim = await cluster.get("PersistentVolumeClaim", "default", "www-web-0");
      const pv = claim.spec?.volumeName ?? "";
      assert.equal(claim.status?.phase, "Bound");
      assert.equal(pv, `pvc-${claim.metadata?.uid}`);
      assert.deepEqual(
        (
          await cluster.events({ kind: "PersistentVolumeClaim", name: "www-web-0", reason: "ProvisioningSucceeded" })
        ).map((event) => event.message),
        [`Successfully provisioned volume ${pv} using kvol.io/sim-disk`],
      );
      const pod = (await web0()) as Pod;
      const attachEvents = await podEvents(cluster, pod, "SuccessfulAttachVolume");
      assert.deepEqual(
        attachEvents.map((event) => [event.type, event.source?.component, event.message]),
        [["Normal", "attachdetach-controller", `AttachVolume.Attach succeeded for volume "${pv}" `]],
      );
      assert.ok(
        milestones.at("attached") < milestones.at("inUse") && milestones.at("inUse") <= milestones.at("running"),
        "the controller reports the attach before the kubelet reports the volume in use, and mounts only then",
      );
      const host = cluster.world.node("node-a");
      const podPath = podVolumePath(pod, simDiskPluginName, pv);
      const globalMount = `${kubeletRoot}/plugins/kvol.io/sim-disk/mounts/${pv}`;
      assert.deepEqual(await mountPointsUnder(host, kubeletRoot), [globalMount, podPath].sort());
      const podMount = (await host.mountInfo()).find((mount) => mount.mountPoint === podPath);
      assert.equal(podMount?.fsType, "ext4");

      await host.writeFile(`${podPath}/index.html`, "<h1>hello from web-0</h1>");
      await cluster.delete("Pod", "default", "web-0");
      const replacement = async () => {
        const current = await web0();
        return current?.metadata?.uid !== pod.metadata?.uid && isRunning(current) ? current : undefined;
      };
      await cluster.runUntil(async () => (await replacement()) !== undefined, {
        timeoutMs: 2 * minuteMs,
        description: "web-0 recreated and running",
      });
      const recreated = (await replacement()) as Pod;
      const newPath = podVolumePath(recreated, simDiskPluginName, pv);
      assert.equal(await readText(host, `${newPath}/index.html`), "<h1>hello from web-0</h1>", "no byte lost");
      assert.deepEqual(await mountPointsUnder(host, kubeletRoot), [globalMount, newPath].sort());
      assert.deepEqual(await podEventMessages(cluster, recreated, "FailedMount"), []);
    });
  }

  it("a rollout that moves an RWO volume to another node waits for the old node to stop using it, then attaches", async () => {
    const cluster = await startCluster(12);
    await cluster.addNode("node-a", { zone: "zone-1" });
    await cluster.addNode("node-b", { zone: "zone-1" });
    await cluster.apply([storageClassYaml(), dataClaimYaml, dbDeploymentYaml("node-a")].join("---\n"));
    await cluster.runUntil(async () => (await podsIn(cluster, "default")).some(isRunning), {
      timeoutMs: 2 * minuteMs,
      description: "db running on node-a",
    });
    const [oldPod] = await podsIn(cluster, "default");
    const pv = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
    const uniqueName = `${simDiskPluginName}/${pv}`;
    // The database takes a few seconds to shut down, so the new pod is scheduled while the old one
    // still runs on node-a.
    const runtimeA = cluster.kubelet("node-a")?.runtime;
    assert.ok(runtimeA instanceof SimContainerRuntime);
    runtimeA.stopDelayMs = 3 * secondMs;

    await cluster.apply(dbDeploymentYaml("node-b"));
    const newPod = async () =>
      (await podsIn(cluster, "default")).find((pod) => pod.metadata?.uid !== oldPod?.metadata?.uid);
    const milestones = new Milestones(cluster, {
      oldPodGone: async () => (await cluster.tryGet("Pod", "default", oldPod?.metadata?.name ?? "")) === undefined,
      notInUseOnA: async () => !(await nodeVolumes(cluster, "node-a")).inUse.includes(uniqueName),
      attachedToB: async () => (await nodeVolumes(cluster, "node-b")).attached.includes(uniqueName),
      newPodRunning: async () => isRunning(await newPod()),
    });
    await milestones.runUntil("newPodRunning", 2 * minuteMs);

    const pod = (await newPod()) as Pod;
    assert.equal(pod.spec?.nodeName, "node-b");
    const failedAttach = await podEvents(cluster, pod, "FailedAttachVolume");
    assert.deepEqual(
      failedAttach.map((event) => [event.type, event.count, event.message]),
      [
        [
          "Warning",
          1,
          `Multi-Attach error for volume "${pv}" Volume is already used by pod(s) ${oldPod?.metadata?.name}`,
        ],
      ],
    );
    const attached = await podEvents(cluster, pod, "SuccessfulAttachVolume");
    assert.deepEqual(
      attached.map((event) => event.message),
      [`AttachVolume.Attach succeeded for volume "${pv}" `],
    );
    assert.ok(milestones.at("oldPodGone") <= milestones.at("notInUseOnA"));
    const attachedAfterMs = firstRecordedMs(attached[0] as Event) - milestones.at("notInUseOnA");
    const detachThenAttachMs = adcLoopPeriodMs + diskDetachLatencyDefaultMs + diskAttachLatencyDefaultMs;
    assert.ok(
      attachedAfterMs > 0 && attachedAfterMs <= detachThenAttachMs,
      `attached ${attachedAfterMs} ms after node-a stopped reporting the volume in use`,
    );
    assert.deepEqual(cluster.world.disksAttachedTo("node-a"), []);
    assert.deepEqual(
      cluster.world.disksAttachedTo("node-b").map(({ disk }) => disk.id),
      [pv],
    );
  });

  for (const resolution of ["force-delete", "out-of-service"] as const) {
    const title =
      resolution === "force-delete"
        ? "after `delete --grace-period=0 --force` of the old pod it is detached 6 min later"
        : "the out-of-service taint frees it within pod GC's 20 s";
    it(`a powered-off node keeps a Deployment's RWO disk while the old pod exists; ${title}`, async () => {
      const cluster = await startCluster(13);
      await cluster.addNode("node-a", { zone: "zone-1" });
      await cluster.apply([storageClassYaml(), dataClaimYaml, dbDeploymentYaml()].join("---\n"));
      await cluster.runUntil(async () => (await podsIn(cluster, "default")).some(isRunning), {
        timeoutMs: 2 * minuteMs,
        description: "db running on node-a",
      });
      // node-b joins only now, so the first pod is on node-a and the replacement can only go to node-b.
      await cluster.addNode("node-b", { zone: "zone-1" });
      const [oldPod] = await podsIn(cluster, "default");
      const oldName = oldPod?.metadata?.name ?? "";
      const pv = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
      const uniqueName = `${simDiskPluginName}/${pv}`;
      const replacement = async () =>
        (await podsIn(cluster, "default")).find((pod) => pod.metadata?.uid !== oldPod?.metadata?.uid);
      const milestones = new Milestones(cluster, {
        replacementScheduled: async () => (await replacement())?.spec?.nodeName === "node-b",
        detachedFromA: async () => !(await nodeVolumes(cluster, "node-a")).attached.includes(uniqueName),
        replacementRunning: async () => isRunning(await replacement()),
      });

      const poweredOffAtMs = cluster.clock.now();
      await cluster.powerOff("node-a");
      // Unreachable 40 s after the last heartbeat, tainted on the next monitor pass, evicted 300 s
      // later: the pod is Terminating and its replacement is created.
      await milestones.runUntil("replacementScheduled", 7 * minuteMs);
      const taintedAtMs = parseRfc3339(
        (await cluster.get("Node", "", "node-a")).spec?.taints?.find(
          (taint) => taint.key === "node.kubernetes.io/unreachable" && taint.effect === "NoExecute",
        )?.timeAdded ?? "",
      );
      const taintedAfterMs = taintedAtMs - poweredOffAtMs;
      assert.ok(
        taintedAfterMs >= nodeMonitorGracePeriodMs &&
          taintedAfterMs <= nodeMonitorGracePeriodMs + 3 * nodeMonitorPeriodMs,
        `tainted unreachable ${taintedAfterMs} ms after the power-off`,
      );
      const evictedAfterTaintMs = milestones.at("replacementScheduled") - taintedAtMs;
      assert.ok(
        evictedAfterTaintMs >= unreachableTolerationMs && evictedAfterTaintMs <= unreachableTolerationMs + secondMs,
        `replacement scheduled ${evictedAfterTaintMs} ms after the taint`,
      );
      const terminating = await cluster.get("Pod", "default", oldName);
      assert.notEqual(terminating.metadata?.deletionTimestamp, undefined, "the old pod is Terminating");

      await milestones.runFor(4 * minuteMs);
      const pod = (await replacement()) as Pod;
      assert.equal(waitingReason(pod), "ContainerCreating");
      assert.deepEqual(await podEventMessages(cluster, pod, "FailedAttachVolume"), [
        `Multi-Attach error for volume "${pv}" Volume is already used by pod(s) ${oldName}`,
      ]);
      const [scheduled] = await podEvents(cluster, pod, "Scheduled");
      const [timedOut] = await podEvents(cluster, pod, "FailedMount");
      assert.equal(
        timedOut?.message,
        "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition",
      );
      const waitedMs = firstRecordedMs(timedOut as Event) - firstRecordedMs(scheduled as Event);
      assert.ok(
        waitedMs >= podAttachAndMountTimeoutMs && waitedMs <= podAttachAndMountTimeoutMs + mountWaitPollMs,
        `FailedMount ${waitedMs} ms after the pod was scheduled`,
      );
      assert.equal(milestones.has("detachedFromA"), false, "nothing is detached while the old pod object exists");
      assert.deepEqual(
        cluster.world.disksAttachedTo("node-a").map(({ disk }) => disk.id),
        [pv],
      );

      const resolvedAtMs = cluster.clock.now();
      if (resolution === "force-delete") {
        await cluster.delete("Pod", "default", oldName, { gracePeriodSeconds: 0 });
      } else {
        await cluster.client.nodes.mutate("", "node-a", (draft) => {
          draft.spec = { ...draft.spec, taints: [...(draft.spec?.taints ?? []), outOfServiceTaint] };
        });
      }
      await milestones.runUntil("replacementRunning", 10 * minuteMs);
      const detachedAfterMs = milestones.at("detachedFromA") - resolvedAtMs;
      if (resolution === "force-delete") {
        // The 6 min count from the first detach pass after the delete (at most one loop period
        // later), and must be exceeded (the pass after that).
        assert.ok(
          detachedAfterMs >= adcMaxWaitForUnmountMs && detachedAfterMs <= adcMaxWaitForUnmountMs + 2 * adcLoopPeriodMs,
          `detached ${detachedAfterMs} ms after the forced delete`,
        );
      } else {
        assert.ok(detachedAfterMs <= podGcPeriodMs + adcLoopPeriodMs, `detached ${detachedAfterMs} ms after the taint`);
      }
      assert.equal(await cluster.tryGet("Pod", "default", oldName), undefined);
      assert.deepEqual(cluster.world.disksAttachedTo("node-a"), []);
      assert.deepEqual(
        cluster.world.disksAttachedTo("node-b").map(({ disk }) => disk.id),
        [pv],
      );
      assert.deepEqual(await podEventMessages(cluster, pod, "SuccessfulAttachVolume"), [
        `AttachVolume.Attach succeeded for volume "${pv}" `,
      ]);

      // Spec §8.2.7: node-a boots again; its kubelet finds the old pod's directory, tears it down
      // (the pod is gone) and leaves the disk, now node-b's, alone.
      await cluster.powerOn("node-a");
      await cluster.runFor(minuteMs);
      const hostA = cluster.world.node("node-a");
      assert.deepEqual(await hostA.readdir(`${kubeletRoot}/pods`), []);
      assert.deepEqual(await mountPointsUnder(hostA, kubeletRoot), []);
      assert.deepEqual(await nodeVolumes(cluster, "node-a"), { attached: [], inUse: [] });
      assert.ok(isRunning(await cluster.get("Pod", "default", pod.metadata?.name ?? "")));
      assert.deepEqual(
        cluster.world.disksAttachedTo("node-b").map(({ disk }) => disk.id),
        [pv],
      );
      const warnings = (await cluster.events({ type: "Warning" })).filter((event) => event.source?.host === "node-a");
      assert.deepEqual(
        warnings.map((event) => event.message),
        [],
      );
    });
  }
});
