import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Event } from "../../api/objects.ts";
import { DEFAULT_TIMERS } from "../../api/timers.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { isHostError } from "../../host/host.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import {
  firstRecordedMs,
  isRunning,
  podEventMessages,
  podEvents,
  podVolumePath,
  waitingReason,
} from "../testing/e2e.ts";
import { podYaml } from "../testing/manifests.ts";
import { faultNamed } from "./catalogue.ts";
import { minuteMs, secondMs } from "./testing/fault-test-support.ts";

/** nfs(5): a foreground mount retries for 2 minutes (`retry=2`) before it gives up. */
const nfsMountRetryMs = 2 * 60_000;

const nfsServer = "10.0.0.200";
const nfsPodYaml = (name: string) => podYaml(name, `nfs: { server: ${nfsServer}, path: /exports/data }`);

async function startNfsCluster(start: (options: { seed: number }) => Promise<Cluster>, seed: number) {
  const cluster = await start({ seed });
  cluster.world.addNfsServer(nfsServer).addExport("/exports/data");
  await cluster.addNode("node-a");
  return cluster;
}

describe("NFS faults", () => {
  const startCluster = clusterPerTest();

  it("nfs-server-down: a new pod's mount hangs until the server answers, then the pod starts", async () => {
    const cluster = await startNfsCluster(startCluster, 51);
    const fault = faultNamed("nfs-server-down");
    assert.deepEqual(await fault.targets(cluster), [{ server: nfsServer }]);
    await fault.inject(cluster, { server: nfsServer });
    const appliedAtMs = cluster.clock.now();
    await cluster.apply(nfsPodYaml("nfs-app"));
    const pod = () => cluster.get("Pod", "default", "nfs-app");
    await cluster.runUntil(
      async () => (await podEventMessages(cluster, await pod(), "FailedMount")).some((m) => m.startsWith("Unable")),
      { timeoutMs: 5 * minuteMs, description: "the kubelet gave up waiting" },
    );
    const [mountFailure, waitFailure] = await podEvents(cluster, await pod(), "FailedMount");
    // The mount starts once the pod is scheduled and its sync begins, a moment after it was applied.
    const mountHungMs = firstRecordedMs(mountFailure as Event) - appliedAtMs;
    assert.ok(
      mountHungMs >= nfsMountRetryMs && mountHungMs < nfsMountRetryMs + secondMs,
      `mount.nfs gave up ${mountHungMs} ms after the pod was applied`,
    );
    assert.match(
      mountFailure?.message ?? "",
      /^MountVolume\.SetUp failed for volume "data" : mount failed: exit status 32\n/,
    );
    assert.match(mountFailure?.message ?? "", /mount\.nfs: Connection timed out/);
    assert.equal(firstRecordedMs(waitFailure as Event) - appliedAtMs, DEFAULT_TIMERS.podAttachAndMountTimeoutMs);
    assert.equal(
      waitFailure?.message,
      "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], " +
        "failed to process volumes=[]: timed out waiting for the condition",
    );
    assert.equal(waitingReason(await pod()), "ContainerCreating");
    assert.deepEqual(await fault.targets(cluster), [], "a server already down is no target");

    await fault.heal?.(cluster, { server: nfsServer });
    await cluster.runUntil(async () => isRunning(await pod()), {
      timeoutMs: 3 * minuteMs,
      description: "nfs-app running once the server answers",
    });
  });

  it("nfs-stale-handle: the running pod's mount answers ESTALE, and deleting the pod still cleans it up", async () => {
    const cluster = await startNfsCluster(startCluster, 52);
    await cluster.apply(nfsPodYaml("nfs-app"));
    await cluster.runUntil(async () => isRunning(await cluster.tryGet("Pod", "default", "nfs-app")), {
      timeoutMs: minuteMs,
      description: "nfs-app running",
    });
    const pod = await cluster.get("Pod", "default", "nfs-app");
    const path = podVolumePath(pod, "kubernetes.io/nfs", "data");
    const host = cluster.world.node("node-a");
    await host.writeFile(`${path}/page.html`, "hello");
    const fault = faultNamed("nfs-stale-handle");
    assert.deepEqual(await fault.targets(cluster), [{ server: nfsServer, export: "/exports/data" }]);

    await fault.inject(cluster, { server: nfsServer, export: "/exports/data" });
    const error = await host.readFile(`${path}/page.html`).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.ok(isHostError(error) && error.code === "ESTALE", `reading gave ${String(error)}`);

    await cluster.delete("Pod", "default", "nfs-app");
    await cluster.runUntil(async () => (await cluster.tryGet("Pod", "default", "nfs-app")) === undefined, {
      timeoutMs: 2 * minuteMs,
      description: "the pod object gone",
    });
  });

  it("refuses an unknown server or export, naming what exists", async () => {
    const cluster = await startNfsCluster(startCluster, 53);
    await assert.rejects(faultNamed("nfs-server-down").inject(cluster, { server: "10.9.9.9" }), {
      message: 'fault nfs-server-down: no NFS server at "10.9.9.9" (servers: 10.0.0.200)',
    });
    await assert.rejects(faultNamed("nfs-stale-handle").inject(cluster, { server: nfsServer, export: "/nope" }), {
      message: 'fault nfs-stale-handle: NFS server "10.0.0.200" does not export "/nope" (exports: /exports/data)',
    });
  });
});
