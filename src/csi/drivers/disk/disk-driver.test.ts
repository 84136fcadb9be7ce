import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../../../host/host-contract.ts";
import type { SimHost } from "../../../host/sim/sim-host.ts";
import type { SimWorld } from "../../../host/sim/sim-world.ts";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import type { VirtualClock } from "../../../runtime/virtual-clock.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import type { CsiClient } from "../../grpc/services.ts";
import type { ControllerPublishVolumeRequest, VolumeCapability } from "../../proto/types.ts";
import {
  blockCapability,
  createRequest,
  mountAt,
  mountCapability,
  publishRequest,
  rejectsWithCode,
  stageRequest,
  stagingPathOf,
  targetPathOf,
  text,
} from "../testing/driver-test-support.ts";
import { createDiskDriver } from "./disk-driver.ts";

const driverName = "disk.csi.kvol.io";

interface Node {
  host: SimHost;
  client: CsiClient;
}

function setUp(zones: { a?: string; b?: string } = {}, volumeExpansion: "ONLINE" | "OFFLINE" = "ONLINE") {
  const { world, clock } = newTestWorld();
  const node = (name: string, zone: string | undefined): Node => {
    const host = world.addNode(name, zone === undefined ? {} : { zone });
    const driver = createDiskDriver({
      disks: world.disks,
      host,
      nodeId: name,
      volumeExpansion,
      ...(zone === undefined ? {} : { zone }),
    });
    return { host, client: connectCsiInProcess(driver) };
  };
  return { world, clock, a: node("node-a", zones.a), b: node("node-b", zones.b) };
}

/** Awaits a call that waits on the simulated cloud's attach or detach latency. */
async function withTime<T>(clock: VirtualClock, call: Promise<T>): Promise<T> {
  const settled = call.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  await clock.advanceBy(10_000);
  const outcome = await settled;
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

function publishTo(volumeId: string, nodeId: string, capability: VolumeCapability = mountCapability()) {
  const request: ControllerPublishVolumeRequest = {
    volumeId,
    nodeId,
    volumeCapability: capability,
    readonly: false,
    secrets: {},
    volumeContext: {},
  };
  return request;
}

async function createVolume(client: CsiClient, name: string, capability = mountCapability()): Promise<string> {
  const { volume } = await client.createVolume(createRequest(name, { volumeCapabilities: [capability] }));
  return volume?.volumeId ?? "";
}

/** Attach, stage and publish on `node`; returns the pod's target path. */
async function useOn(clock: VirtualClock, world: SimWorld, node: Node, volumeId: string, podUid: string) {
  const { publishContext } = await withTime(
    clock,
    node.client.controllerPublishVolume(publishTo(volumeId, nodeName(node))),
  );
  const staging = stagingPathOf(driverName, volumeId);
  const target = targetPathOf(podUid, "pv-1");
  await node.client.nodeStageVolume({ ...stageRequest(volumeId, staging), publishContext });
  await node.client.nodePublishVolume({ ...publishRequest(volumeId, staging, target), publishContext });
  assert.ok(world.disks.disk(volumeId).attachments.has(nodeName(node)));
  return { staging, target };
}

function nodeName(node: Node): string {
  return node.host.nodeName;
}

async function release(clock: VirtualClock, node: Node, volumeId: string, paths: { staging: string; target: string }) {
  await node.client.nodeUnpublishVolume({ volumeId, targetPath: paths.target });
  await node.client.nodeUnstageVolume({ volumeId, stagingTargetPath: paths.staging });
  await withTime(clock, node.client.controllerUnpublishVolume({ volumeId, nodeId: nodeName(node), secrets: {} }));
}

describe("disk.csi.kvol.io", () => {
  it("a volume attached, formatted and written on node-a is read back on node-b after detach and attach", async () => {
    const { world, clock, a, b } = setUp();
    const volumeId = await createVolume(a.client, "pvc-1");
    assert.match(volumeId, /^disk-[0-9a-f]{20}$/);

    const onA = await useOn(clock, world, a, volumeId, "uid-a");
    assert.equal((await mountAt(a.host, onA.staging))?.fsType, "ext4");
    assert.equal((await mountAt(a.host, onA.target))?.fsType, "ext4");
    await a.host.writeFile(`${onA.target}/index.html`, "written on node-a");
    await release(clock, a, volumeId, onA);
    assert.equal(await mountAt(a.host, onA.staging), undefined);
    assert.deepEqual([...world.disks.disk(volumeId).attachments.keys()], []);

    const onB = await useOn(clock, world, b, volumeId, "uid-b");
    assert.equal(text(await b.host.readFile(`${onB.target}/index.html`)), "written on node-a");
    const stats = await b.client.nodeGetVolumeStats({
      volumeId,
      volumePath: onB.target,
      stagingTargetPath: onB.staging,
    });
    assert.equal(stats.usage[0]?.total, 10 * 1024 ** 2);
    assert.equal(stats.volumeCondition?.abnormal, false);
  });

  it("publish_context names the device, and an RWO disk attached to node-a is refused to node-b naming node-a", async () => {
    const { clock, a, b } = setUp();
    const volumeId = await createVolume(a.client, "pvc-1");
    const { publishContext } = await withTime(clock, a.client.controllerPublishVolume(publishTo(volumeId, "node-a")));
    assert.deepEqual(publishContext, { devicePath: `/dev/disk/by-id/virtio-${volumeId}` });
    // Publishing again to the same node is idempotent.
    await withTime(clock, a.client.controllerPublishVolume(publishTo(volumeId, "node-a")));
    await rejectsWithCode(
      withTime(clock, b.client.controllerPublishVolume(publishTo(volumeId, "node-b"))),
      "FailedPrecondition",
      /attached to node node-a/,
    );
    await rejectsWithCode(
      b.client.nodeStageVolume(stageRequest(volumeId, stagingPathOf(driverName, volumeId))),
      "FailedPrecondition",
      /not attached to node node-b/,
    );
    await rejectsWithCode(a.client.deleteVolume({ volumeId, secrets: {} }), "FailedPrecondition", /still attached/);
  });

  it("a multi-node writer volume is a multi-attach disk, published to both nodes at once", async () => {
    const { world, clock, a, b } = setUp();
    const rwx = mountCapability({ mode: "MULTI_NODE_MULTI_WRITER" });
    const volumeId = await createVolume(a.client, "shared", rwx);
    await withTime(clock, a.client.controllerPublishVolume(publishTo(volumeId, "node-a", rwx)));
    await withTime(clock, b.client.controllerPublishVolume(publishTo(volumeId, "node-b", rwx)));
    assert.deepEqual([...world.disks.disk(volumeId).attachments.keys()], ["node-a", "node-b"]);
    const listed = await a.client.listVolumes({ maxEntries: 0, startingToken: "" });
    assert.deepEqual(listed.entries[0]?.status?.publishedNodeIds, ["node-a", "node-b"]);
  });

  it("an unknown node or volume is NotFound; ids stay short for the longest name", async () => {
    const { clock, a } = setUp();
    const volumeId = await createVolume(a.client, "x".repeat(128));
    assert.equal(volumeId.length, 25);
    await rejectsWithCode(
      withTime(clock, a.client.controllerPublishVolume(publishTo(volumeId, "node-z"))),
      "NotFound",
      /node node-z does not exist/,
    );
    await rejectsWithCode(
      a.client.controllerPublishVolume(publishTo("disk-00000000000000000000", "node-a")),
      "NotFound",
    );
  });

  it("a block volume's device is bound onto the pod's target file", async () => {
    const { clock, a } = setUp();
    const volumeId = await createVolume(a.client, "raw", blockCapability());
    const { publishContext } = await withTime(
      clock,
      a.client.controllerPublishVolume(publishTo(volumeId, "node-a", blockCapability())),
    );
    const staging = "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/staging/pv-raw";
    const target = "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/publish/pv-raw/uid-1";
    await a.client.nodeStageVolume({ ...stageRequest(volumeId, staging, blockCapability()), publishContext });
    await a.client.nodePublishVolume({
      ...publishRequest(volumeId, staging, target, { volumeCapability: blockCapability() }),
      publishContext,
    });
    assert.equal((await a.host.stat(target)).type, "blockDevice");
    await a.client.nodeUnpublishVolume({ volumeId, targetPath: target });
    await expectErrno(a.host.stat(target), "ENOENT");
  });

  it("volumes are created in the zone the topology prefers, and the node reports its zone", async () => {
    const { world, a } = setUp({ a: "zone-1" });
    const info = await a.client.nodeGetInfo({});
    assert.deepEqual(info, {
      nodeId: "node-a",
      maxVolumesPerNode: 16,
      accessibleTopology: { segments: { "topology.disk.csi.kvol.io/zone": "zone-1" } },
    });
    const segments = { "topology.disk.csi.kvol.io/zone": "zone-1" };
    const { volume } = await a.client.createVolume(
      createRequest("pvc-z", { accessibilityRequirements: { requisite: [{ segments }], preferred: [{ segments }] } }),
    );
    assert.deepEqual(volume?.accessibleTopology, [{ segments }]);
    assert.equal(world.disks.disk(volume?.volumeId ?? "").zone, "zone-1");
  });

  it("a volume in use grows online: the disk first, then its filesystem, and the pod can write the new space", async () => {
    const { world, clock, a } = setUp();
    const volumeId = await createVolume(a.client, "grow");
    const onA = await useOn(clock, world, a, volumeId, "uid-a");
    const twelveMebibytes = new Uint8Array(12 * 1024 ** 2);
    await expectErrno(a.host.writeFile(`${onA.target}/big`, twelveMebibytes), "ENOSPC");

    const grown = await a.client.controllerExpandVolume({
      volumeId,
      capacityRange: { requiredBytes: 20 * 1024 ** 2, limitBytes: 0 },
      secrets: {},
      volumeCapability: mountCapability(),
    });
    assert.deepEqual(grown, { capacityBytes: 20 * 1024 ** 2, nodeExpansionRequired: true });
    // The disk grew, its filesystem not yet: resize2fs has not run.
    await expectErrno(a.host.writeFile(`${onA.target}/big`, twelveMebibytes), "ENOSPC");

    const expanded = await a.client.nodeExpandVolume({
      volumeId,
      volumePath: onA.target,
      capacityRange: { requiredBytes: 20 * 1024 ** 2, limitBytes: 0 },
      stagingTargetPath: onA.staging,
      volumeCapability: mountCapability(),
      secrets: {},
    });
    assert.equal(expanded.capacityBytes, 20 * 1024 ** 2);
    await a.host.writeFile(`${onA.target}/big`, twelveMebibytes);
    const stats = await a.client.nodeGetVolumeStats({ volumeId, volumePath: onA.target, stagingTargetPath: "" });
    assert.equal(stats.usage[0]?.total, 20 * 1024 ** 2);
  });

  it("an OFFLINE driver refuses to grow an attached disk or a filesystem a pod has mounted, and grows it while only staged", async () => {
    const { world, clock, a } = setUp({}, "OFFLINE");
    const identity = await a.client.getPluginCapabilities({});
    assert.ok(identity.capabilities.some((capability) => capability.volumeExpansion?.type === "OFFLINE"));
    const volumeId = await createVolume(a.client, "offline");
    const expandTo = (requiredBytes: number) =>
      a.client.controllerExpandVolume({
        volumeId,
        capacityRange: { requiredBytes, limitBytes: 0 },
        secrets: {},
        volumeCapability: mountCapability(),
      });
    assert.equal((await expandTo(15 * 1024 ** 2)).capacityBytes, 15 * 1024 ** 2);
    const onA = await useOn(clock, world, a, volumeId, "uid-a");
    await rejectsWithCode(expandTo(20 * 1024 ** 2), "FailedPrecondition", /offline only .* attached to node node-a/);
    const nodeExpand = (volumePath: string) =>
      a.client.nodeExpandVolume({
        volumeId,
        volumePath,
        capacityRange: null,
        stagingTargetPath: onA.staging,
        volumeCapability: mountCapability(),
        secrets: {},
      });
    assert.equal((await nodeExpand(onA.target)).capacityBytes, 15 * 1024 ** 2, "grown when staged: nothing to do");
    // The provider grows the disk under the mounted filesystem (as a controller would, once allowed).
    world.disks.expandDisk(volumeId, 20 * 1024 ** 2);
    await rejectsWithCode(nodeExpand(onA.target), "FailedPrecondition", /offline only .* mounted at/);
    await a.client.nodeUnpublishVolume({ volumeId, targetPath: onA.target });
    assert.equal((await nodeExpand(onA.staging)).capacityBytes, 20 * 1024 ** 2);
  });

  it("a disk the provider refuses to grow (the disk-expand-error fault) is Internal, naming the provider's words", async () => {
    const { world, a } = setUp();
    const volumeId = await createVolume(a.client, "quota");
    world.disks.setFaults(volumeId, { expandError: "quota exceeded" });
    await rejectsWithCode(
      a.client.controllerExpandVolume({
        volumeId,
        capacityRange: { requiredBytes: 20 * 1024 ** 2, limitBytes: 0 },
        secrets: {},
        volumeCapability: mountCapability(),
      }),
      "Internal",
      new RegExp(`^ControllerExpandVolume: resizing disk ${volumeId} to 20971520 bytes failed: quota exceeded$`),
    );
    assert.equal(world.disks.disk(volumeId).sizeBytes, 10 * 1024 ** 2);
  });
});
