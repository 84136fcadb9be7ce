import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning, podEventMessages, waitingReason } from "../testing/e2e.ts";
import { claimYaml, podUsingClaimYaml, storageClassYaml } from "../testing/manifests.ts";
import { faultNamed } from "./catalogue.ts";
import { minuteMs, secondMs, startDiskPod } from "./testing/fault-test-support.ts";

/** A node and a claim `data` already bound to a provisioned disk (Immediate binding); returns the disk id. */
async function boundClaim(cluster: Cluster): Promise<string> {
  await cluster.addNode("node-a");
  await cluster.apply([storageClassYaml({ bindingMode: "Immediate" }), claimYaml("data")].join("---\n"));
  await cluster.runUntil(
    async () => (await cluster.get("PersistentVolumeClaim", "default", "data")).status?.phase === "Bound",
    { timeoutMs: minuteMs, description: "claim data bound" },
  );
  return (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
}

const appPod = (cluster: Cluster) => cluster.get("Pod", "default", "app");

async function runUntilPodEvent(cluster: Cluster, reason: string, text: string): Promise<string> {
  const matching = async () =>
    (await podEventMessages(cluster, await appPod(cluster), reason)).find((message) => message.includes(text));
  await cluster.runUntil(async () => (await matching()) !== undefined, {
    timeoutMs: 3 * minuteMs,
    description: `a ${reason} event saying ${text}`,
  });
  return (await matching()) ?? "";
}

describe("disk faults", () => {
  const startCluster = clusterPerTest();

  it("disk-attach-error: the pod gets FailedAttachVolume with the provider's error, and starts once healed", async () => {
    const cluster = await startCluster({ seed: 61 });
    const disk = await boundClaim(cluster);
    const fault = faultNamed("disk-attach-error");
    await fault.inject(cluster, { claim: "data", message: "QuotaExceeded: too many disks on the instance" });
    await cluster.apply(podUsingClaimYaml("app", "data"));

    const message = await runUntilPodEvent(cluster, "FailedAttachVolume", "QuotaExceeded");
    assert.equal(
      message,
      `AttachVolume.Attach failed for volume "${disk}" : attaching disk ${disk} to node node-a failed: ` +
        "QuotaExceeded: too many disks on the instance",
    );
    assert.equal(waitingReason(await appPod(cluster)), "ContainerCreating");

    await fault.heal?.(cluster, { disk });
    await cluster.runUntil(async () => isRunning(await appPod(cluster)), {
      timeoutMs: 3 * minuteMs,
      description: "app running after the heal",
    });
    assert.deepEqual(await podEventMessages(cluster, await appPod(cluster), "SuccessfulAttachVolume"), [
      `AttachVolume.Attach succeeded for volume "${disk}" `,
    ]);
  });

  it("disk-attach-slow: the pod starts only after the slow attach completes", async () => {
    const cluster = await startCluster({ seed: 62 });
    await boundClaim(cluster);
    await faultNamed("disk-attach-slow").inject(cluster, { claim: "default/data", delay: "90s" });
    const appliedAtMs = cluster.clock.now();
    await cluster.apply(podUsingClaimYaml("app", "data"));
    await cluster.runFor(80 * secondMs);
    assert.equal(waitingReason(await appPod(cluster)), "ContainerCreating");
    const startedAfterMs = await cluster.runUntil(async () => isRunning(await appPod(cluster)), {
      timeoutMs: 2 * minuteMs,
      description: "app running",
    });
    assert.ok(cluster.clock.now() - appliedAtMs >= 90 * secondMs, `running ${startedAfterMs} ms after the check`);
  });

  it("disk-detach-error: the disk stays attached after its pod is deleted until the fault is healed", async () => {
    const cluster = await startCluster({ seed: 63 });
    await cluster.addNode("node-a");
    const { pvName } = await startDiskPod(cluster);
    const fault = faultNamed("disk-detach-error");
    await fault.inject(cluster, { disk: pvName });
    await cluster.delete("Pod", "default", "app");
    await cluster.runFor(3 * minuteMs);
    assert.equal((await cluster.tryGet("Pod", "default", "app")) === undefined, true, "the pod itself is gone");
    assert.equal(cluster.world.disks.disk(pvName).attachments.get("node-a")?.state, "attached");

    await fault.heal?.(cluster, { disk: pvName });
    await cluster.runUntil(async () => cluster.world.disks.disk(pvName).attachments.size === 0, {
      timeoutMs: 3 * minuteMs,
      description: "the disk detached",
    });
  });

  it("disk-format-failure: MountDevice fails with mkfs's output until healed", async () => {
    const cluster = await startCluster({ seed: 64 });
    await boundClaim(cluster);
    const fault = faultNamed("disk-format-failure");
    await fault.inject(cluster, { claim: "data" });
    await cluster.apply(podUsingClaimYaml("app", "data"));
    const message = await runUntilPodEvent(cluster, "FailedMount", "format of disk");
    assert.match(message, /^MountVolume\.MountDevice failed for volume "pvc-[^"]+" : format of disk /);
    assert.match(message, /errcode:\(exit status 1\) output:\(mkfs\.ext4: Input\/output error/);

    await fault.heal?.(cluster, { claim: "data" });
    await cluster.runUntil(async () => isRunning(await appPod(cluster)), {
      timeoutMs: 3 * minuteMs,
      description: "app running once mkfs works",
    });
  });

  it("names the disk by exactly one of disk and claim, and refuses unknown ones", async () => {
    const cluster = await startCluster({ seed: 65 });
    const disk = await boundClaim(cluster);
    const fault = faultNamed("disk-attach-slow");
    assert.deepEqual(await fault.targets(cluster), [{ disk, delay: "90s" }]);
    await assert.rejects(fault.inject(cluster, { delay: "1s" }), {
      message: 'fault disk-attach-slow: give exactly one of the parameters "disk" and "claim"',
    });
    await assert.rejects(fault.inject(cluster, { disk, claim: "data", delay: "1s" }), /exactly one of/);
    await assert.rejects(fault.inject(cluster, { disk: "disk-9", delay: "1s" }), {
      message: `fault disk-attach-slow: no cloud disk named "disk-9" (disks: ${disk})`,
    });
    await assert.rejects(fault.inject(cluster, { claim: "other", delay: "1s" }), {
      message: 'fault disk-attach-slow: parameter "claim": no claim default/other',
    });
  });
});
