import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { taintNodeOutOfService } from "../../api/scheduling/taints.ts";
import type { AttachDetachControllerOptions } from "./attach-detach-controller.ts";
import { type AdcTestEnv, startAdcTestEnv } from "./testing/adc-test-env.ts";

const volume = "kvol.io/sim-disk/disk-1";
const sixMinutesMs = 6 * 60_000;
const loopPeriodMs = 100;

function diskState(env: AdcTestEnv): string | undefined {
  return env.world.disks.disk("disk-1").attachments.get("node-1")?.state;
}

/** web-a on node-1 holds the RWO volume, node-1 reports it in use; then node-1 goes silent. */
async function nodeWithVolumeInUse(options: AttachDetachControllerOptions = {}): Promise<AdcTestEnv> {
  const env = await startAdcTestEnv(options);
  await env.addNode("node-1");
  await env.addDiskVolume("data", "disk-1");
  await env.addPod("web-a", "node-1", "data");
  await env.runUntil(async () => (await env.volumesAttached("node-1")).includes(volume));
  await env.setVolumesInUse("node-1", [volume]);
  await env.runFor(1_000);
  return env;
}

async function powerOff(env: AdcTestEnv): Promise<void> {
  // What the node lifecycle controller writes 40 s after the last heartbeat.
  await env.setReady("node-1", false);
  // Taint eviction deletes the pod gracefully; nobody on the node confirms, so it stays Terminating.
  await env.deletePod("web-a");
}

describe("AttachDetachController: node powered off while holding an RWO volume (spec §8.2)", () => {
  it("detaches nothing while the pod object exists, then force-detaches 6 minutes after the pod is force-deleted", async () => {
    const env = await nodeWithVolumeInUse();
    await powerOff(env);
    await env.runFor(20 * 60_000);
    assert.equal(diskState(env), "attached", "a Terminating pod keeps its volume attached, however long");

    await env.forceDeletePod("web-a");
    const deletedAt = env.api.clock.now();
    const detachStarted = await env.runUntil(() => diskState(env) === "detaching");
    const waitedMs = detachStarted - deletedAt;
    assert.ok(
      waitedMs > sixMinutesMs && waitedMs <= sixMinutesMs + 2 * loopPeriodMs,
      `force detach started ${waitedMs} ms after the delete`,
    );
    assert.deepEqual(await env.volumesAttached("node-1"), []);
    await env.runUntil(() => diskState(env) === undefined);
    await env.stop();
  });

  it("detaches at once from a node with the out-of-service taint", async () => {
    const env = await nodeWithVolumeInUse();
    await powerOff(env);
    await env.addTaint("node-1", { key: taintNodeOutOfService, value: "nodeshutdown", effect: "NoExecute" });
    await env.runFor(60_000);
    assert.equal(diskState(env), "attached");
    await env.forceDeletePod("web-a");
    const deletedAt = env.api.clock.now();
    const detachStarted = await env.runUntil(() => diskState(env) === "detaching");
    assert.ok(
      detachStarted - deletedAt <= loopPeriodMs,
      `detach started ${detachStarted - deletedAt} ms after the delete`,
    );
    await env.stop();
  });

  it("never force-detaches from a Ready node that still uses the volume (30 virtual minutes)", async () => {
    const env = await nodeWithVolumeInUse();
    await env.forceDeletePod("web-a");
    await env.runFor(30 * 60_000);
    assert.equal(diskState(env), "attached");
    assert.deepEqual(await env.volumesAttached("node-1"), [volume], "still reported attached");
    await env.setVolumesInUse("node-1", []);
    await env.runUntil(() => diskState(env) === undefined);
    await env.stop();
  });

  it("with --disable-force-detach-on-timeout waits for the node, or for the out-of-service taint", async () => {
    const env = await nodeWithVolumeInUse({ disableForceDetachOnTimeout: true });
    await powerOff(env);
    await env.forceDeletePod("web-a");
    await env.runFor(30 * 60_000);
    assert.equal(diskState(env), "attached");
    await env.addTaint("node-1", { key: taintNodeOutOfService, value: "nodeshutdown", effect: "NoExecute" });
    const taintedAt = env.api.clock.now();
    const detachStarted = await env.runUntil(() => diskState(env) === "detaching");
    assert.ok(detachStarted - taintedAt <= loopPeriodMs);
    await env.stop();
  });
});
