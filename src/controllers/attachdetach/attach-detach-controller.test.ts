import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type InvariantViolation, onInvariantViolation } from "../../runtime/assert.ts";
import { type AdcTestEnv, startAdcTestEnv } from "./testing/adc-test-env.ts";

const volume = "kvol.io/sim-disk/disk-1";

function diskState(env: AdcTestEnv, nodeName: string): string | undefined {
  return env.world.disks.disk("disk-1").attachments.get(nodeName)?.state;
}

/** node-1 and node-2, an RWO sim-disk volume `data`, pod web-a on node-1 with it attached and mounted. */
async function volumeInUseOnNode1(): Promise<AdcTestEnv> {
  const env = await startAdcTestEnv();
  await env.addNode("node-1");
  await env.addNode("node-2");
  await env.addDiskVolume("data", "disk-1");
  await env.addPod("web-a", "node-1", "data");
  await env.runUntil(async () => (await env.volumesAttached("node-1")).includes(volume));
  await env.setVolumesInUse("node-1", [volume]);
  await env.runFor(1_000);
  return env;
}

describe("AttachDetachController: a pod moves to another node (Deployment rollout)", () => {
  it("attaches a scheduled pod's volume and reports it in the node status", async () => {
    const env = await volumeInUseOnNode1();
    assert.deepEqual(await env.volumesAttached("node-1"), [volume]);
    const attached = (await env.node("node-1")).status?.volumesAttached?.[0];
    assert.equal(attached?.devicePath, "/dev/disk/by-id/virtio-disk-1");
    assert.deepEqual(await env.podEvents(), [
      'web-a Normal SuccessfulAttachVolume AttachVolume.Attach succeeded for volume "data" ',
    ]);
    await env.stop();
  });

  it("refuses the second node once, then detaches from the first and attaches to the second", async () => {
    const env = await volumeInUseOnNode1();
    await env.addPod("web-b", "node-2", "data");
    await env.runFor(5 * 60_000);
    const multiAttach =
      'web-b Warning FailedAttachVolume Multi-Attach error for volume "data" Volume is already used by pod(s) web-a';
    assert.deepEqual((await env.podEvents()).slice(1), [multiAttach], "exactly once in five minutes");
    assert.equal(diskState(env, "node-1"), "attached");

    await env.forceDeletePod("web-a");
    await env.runFor(60_000);
    assert.equal(diskState(env, "node-1"), "attached", "still in use according to node-1: no detach");

    await env.setVolumesInUse("node-1", []);
    const released = env.api.clock.now();
    const detachStarted = await env.runUntil(() => diskState(env, "node-1") === "detaching");
    assert.ok(detachStarted - released <= 100, `detach started ${detachStarted - released} ms after the node let go`);
    assert.deepEqual(await env.volumesAttached("node-1"), [], "gone from node-1's status before the detach started");

    const detached = await env.runUntil(() => diskState(env, "node-1") === undefined);
    const attachStarted = await env.runUntil(() => diskState(env, "node-2") !== undefined);
    assert.ok(attachStarted - detached <= 100, `attach started ${attachStarted - detached} ms after the detach ended`);
    await env.runUntil(async () => (await env.volumesAttached("node-2")).includes(volume));
    assert.deepEqual((await env.podEvents()).slice(1), [
      multiAttach,
      'web-b Normal SuccessfulAttachVolume AttachVolume.Attach succeeded for volume "data" ',
    ]);
    await env.stop();
  });

  it("counts pods of other namespaces instead of naming them", async () => {
    const env = await volumeInUseOnNode1();
    // The same disk reached from another namespace through a PV and claim of its own.
    await env.addDiskVolume("data-copy", "disk-1", { namespace: "other", createDisk: false });
    await env.addPod("batch", "node-1", "data-copy", { namespace: "other" });
    await env.addPod("intruder", "node-2", "data-copy", { namespace: "other" });
    await env.addPod("web-b", "node-2", "data");
    await env.runFor(1_000);
    assert.deepEqual((await env.podEvents()).slice(1), [
      'intruder Warning FailedAttachVolume Multi-Attach error for volume "data-copy" Volume is already used by pod(s) batch and 1 pod(s) in different namespaces',
      'web-b Warning FailedAttachVolume Multi-Attach error for volume "data-copy" Volume is already used by pod(s) web-a and 1 pod(s) in different namespaces',
    ]);
    await env.stop();
  });

  it("counts only, when every blocking pod is in another namespace", async () => {
    const env = await volumeInUseOnNode1();
    await env.addDiskVolume("data-copy", "disk-1", { namespace: "other", createDisk: false });
    await env.addPod("intruder", "node-2", "data-copy", { namespace: "other" });
    await env.runFor(1_000);
    assert.deepEqual((await env.podEvents()).slice(1), [
      'intruder Warning FailedAttachVolume Multi-Attach error for volume "data-copy" Volume is already used by 1 pod(s) in different namespaces',
    ]);
    await env.stop();
  });

  it("says 'exclusively attached' when no pod holds the volume any more but it is still attached", async () => {
    const env = await volumeInUseOnNode1();
    await env.forceDeletePod("web-a");
    await env.addPod("web-b", "node-2", "data");
    await env.runFor(1_000);
    assert.deepEqual((await env.podEvents()).slice(1), [
      'web-b Warning FailedAttachVolume Multi-Attach error for volume "data" Volume is already exclusively attached to one node and can\'t be attached to another',
    ]);
    await env.stop();
  });
});

describe("AttachDetachController: an actual state that takes a wanted volume as unwanted", () => {
  it("stops the detach pass, naming the pair, and leaves the pod's volume attached", async () => {
    const env = await volumeInUseOnNode1();
    // The node stops reporting the volume in use: were the pass to consider it, it would detach at once.
    await env.setVolumesInUse("node-1", []);
    // A bug's effect: the actual state stops asking the desired state and lists web-a's volume as unwanted.
    const { asw } = env.controller;
    (asw as unknown as { isWanted: () => boolean }).isWanted = () => false;
    asw.wantedChanged(volume, "node-1");
    const violations: InvariantViolation[] = [];
    const stopListening = onInvariantViolation((violation) => violations.push(violation));
    await env.runFor(1_000);
    stopListening();
    assert.equal(
      violations[0]?.message,
      'invariant violated for volume "kvol.io/sim-disk/disk-1" on node "node-1": listed by the actual state as unwanted, but the desired state wants it',
    );
    assert.equal(diskState(env, "node-1"), "attached");
    assert.deepEqual(await env.volumesAttached("node-1"), [volume]);
    await env.stop();
  });
});

describe("AttachDetachController: rbd", () => {
  it("records an rbd volume as attached without doing anything in the controller (the node maps it)", async () => {
    const env = await startAdcTestEnv();
    await env.addNode("node-1");
    await env.addBoundVolume("user-pv", {
      rbd: { monitors: ["10.0.255.1:6789"], pool: "sock_shop", image: "user-pv" },
    });
    await env.addPod("user-db", "node-1", "user-pv");
    await env.runUntil(async () => (await env.volumesAttached("node-1")).length > 0);
    assert.deepEqual((await env.node("node-1")).status?.volumesAttached, [
      { name: "kubernetes.io/rbd/sock_shop:user-pv", devicePath: "" },
    ]);
    await env.stop();
  });
});
