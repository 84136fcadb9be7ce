import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { expectErrno } from "../../../host/host-contract.ts";
import type { SimHost } from "../../../host/sim/sim-host.ts";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import type { CsiClient } from "../../grpc/services.ts";
import { hostpathDriverName, hostpathTopologyKey } from "../common/constants.ts";
import { MemoryVolumeCatalog } from "../common/volume-catalog.ts";
import {
  blockCapability,
  createRequest,
  mebibyteBytes,
  mountAt,
  mountCapability,
  publishRequest,
  rejectsWithCode,
  stageRequest,
  stagingPathOf,
  targetPathOf,
  text,
} from "../testing/driver-test-support.ts";
import { createHostpathDriver, type HostpathDriverOptions } from "./hostpath-driver.ts";

const stateDir = "/var/lib/kvol/csi-hostpath";

function setUp(options: Partial<HostpathDriverOptions> = {}) {
  const { world } = newTestWorld();
  const host = world.addNode("node-a");
  const driver = createHostpathDriver({ host, nodeId: "node-a", stateDir, ...options });
  return { world, host, driver, client: connectCsiInProcess(driver) };
}

async function createVolumeId(client: CsiClient, name: string, overrides = {}): Promise<string> {
  const { volume } = await client.createVolume(createRequest(name, overrides));
  assert.ok(volume !== null);
  return volume.volumeId;
}

describe("hostpath.csi.kvol.io: a filesystem volume's life", () => {
  let host: SimHost;
  let client: CsiClient;
  beforeEach(() => {
    ({ host, client } = setUp());
  });

  it("provision, stage, publish, write, unpublish, unstage, delete: mounts come and go and the data is the volume's", async () => {
    const volumeId = await createVolumeId(client, "pvc-1");
    assert.equal((await host.stat(`${stateDir}/${volumeId}`)).type, "directory");
    const staging = stagingPathOf(hostpathDriverName, volumeId);
    const target = targetPathOf("uid-1", "pv-1");

    await client.nodeStageVolume(stageRequest(volumeId, staging));
    assert.equal((await mountAt(host, staging))?.root, `${stateDir}/${volumeId}`);
    await client.nodePublishVolume(publishRequest(volumeId, staging, target));
    assert.equal((await mountAt(host, target))?.root, `${stateDir}/${volumeId}`);

    await host.writeFile(`${target}/index.html`, "hello");
    assert.equal(text(await host.readFile(`${stateDir}/${volumeId}/index.html`)), "hello");

    await client.nodeUnpublishVolume({ volumeId, targetPath: target });
    assert.equal(await mountAt(host, target), undefined);
    await expectErrno(host.stat(target), "ENOENT");
    await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    assert.equal(await mountAt(host, staging), undefined);

    await client.deleteVolume({ volumeId, secrets: {} });
    await expectErrno(host.stat(`${stateDir}/${volumeId}`), "ENOENT");
  });

  it("every RPC repeated with the same arguments succeeds without doing the work twice", async () => {
    const first = await createVolumeId(client, "pvc-1");
    assert.equal(await createVolumeId(client, "pvc-1"), first);
    const staging = stagingPathOf(hostpathDriverName, first);
    const target = targetPathOf("uid-1", "pv-1");
    for (let attempt = 0; attempt < 2; attempt++) {
      await client.nodeStageVolume(stageRequest(first, staging));
      await client.nodePublishVolume(publishRequest(first, staging, target));
    }
    const mounts = (await host.mountInfo()).filter(
      (mount) => mount.mountPoint === staging || mount.mountPoint === target,
    );
    assert.equal(mounts.length, 2, "one mount each at the staging and the target path");
    for (let attempt = 0; attempt < 2; attempt++) {
      await client.nodeUnpublishVolume({ volumeId: first, targetPath: target });
      await client.nodeUnstageVolume({ volumeId: first, stagingTargetPath: staging });
      await client.deleteVolume({ volumeId: first, secrets: {} });
    }
    assert.deepEqual((await client.listVolumes({ maxEntries: 0, startingToken: "" })).entries, []);
  });

  it("a read-only publish cannot be written through, and the same target asked read-write is AlreadyExists", async () => {
    const volumeId = await createVolumeId(client, "pvc-1");
    const staging = stagingPathOf(hostpathDriverName, volumeId);
    const target = targetPathOf("uid-1", "pv-1");
    await client.nodeStageVolume(stageRequest(volumeId, staging));
    await client.nodePublishVolume(publishRequest(volumeId, staging, target, { readonly: true }));
    assert.ok((await mountAt(host, target))?.options.includes("ro"));
    await expectErrno(host.writeFile(`${target}/x`, "no"), "EROFS");
    await rejectsWithCode(
      client.nodePublishVolume(publishRequest(volumeId, staging, target)),
      "AlreadyExists",
      /read-only/,
    );
  });

  it("NodeGetVolumeStats reports the bytes written and the volume's capacity", async () => {
    const volumeId = await createVolumeId(client, "pvc-1");
    const staging = stagingPathOf(hostpathDriverName, volumeId);
    const target = targetPathOf("uid-1", "pv-1");
    await client.nodeStageVolume(stageRequest(volumeId, staging));
    await client.nodePublishVolume(publishRequest(volumeId, staging, target));
    await host.writeFile(`${target}/data`, "x".repeat(3000));
    const stats = await client.nodeGetVolumeStats({ volumeId, volumePath: target, stagingTargetPath: staging });
    assert.deepEqual(stats.usage, [
      { total: 10 * mebibyteBytes, used: 3000, available: 10 * mebibyteBytes - 3000, unit: "BYTES" },
    ]);
    assert.deepEqual(stats.volumeCondition, { abnormal: false, message: "" });
    await client.nodeUnpublishVolume({ volumeId, targetPath: target });
    await rejectsWithCode(
      client.nodeGetVolumeStats({ volumeId, volumePath: target, stagingTargetPath: "" }),
      "NotFound",
      /volume_path .* does not exist/,
    );
  });

  it("a volume still staged cannot be deleted", async () => {
    const volumeId = await createVolumeId(client, "pvc-1");
    const staging = stagingPathOf(hostpathDriverName, volumeId);
    await client.nodeStageVolume(stageRequest(volumeId, staging));
    await rejectsWithCode(
      client.deleteVolume({ volumeId, secrets: {} }),
      "FailedPrecondition",
      /mounted at .*globalmount/,
    );
    assert.equal((await host.stat(`${stateDir}/${volumeId}`)).type, "directory", "the data is kept");
  });
});

describe("hostpath.csi.kvol.io: a block volume", () => {
  it("is a sparse file staged on a loop device and published by binding the device onto the pod's file", async () => {
    const { host, client } = setUp();
    const volumeId = await createVolumeId(client, "pvc-raw", { volumeCapabilities: [blockCapability()] });
    assert.equal((await host.stat(`${stateDir}/${volumeId}`)).size, 10 * mebibyteBytes);
    const staging = "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/staging/pv-raw";
    const target = "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/publish/pv-raw/uid-1";

    await client.nodeStageVolume(stageRequest(volumeId, staging, blockCapability()));
    const loops = host.blockDevices().filter((device) => device.kind === "loop");
    assert.equal(loops.length, 1);
    await client.nodeStageVolume(stageRequest(volumeId, staging, blockCapability()));
    assert.equal(host.blockDevices().filter((device) => device.kind === "loop").length, 1, "staged once");

    await client.nodePublishVolume(publishRequest(volumeId, staging, target, { volumeCapability: blockCapability() }));
    assert.equal((await host.stat(target)).type, "blockDevice");
    assert.ok(await mountAt(host, target));
    await rejectsWithCode(client.deleteVolume({ volumeId, secrets: {} }), "FailedPrecondition", /loop/);

    await client.nodeUnpublishVolume({ volumeId, targetPath: target });
    await expectErrno(host.stat(target), "ENOENT");
    await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    assert.equal(host.blockDevices().filter((device) => device.kind === "loop").length, 0);
    await client.deleteVolume({ volumeId, secrets: {} });
    await expectErrno(host.stat(`${stateDir}/${volumeId}`), "ENOENT");
  });

  it("a block volume used with a mount capability is FailedPrecondition", async () => {
    const { client } = setUp();
    const volumeId = await createVolumeId(client, "pvc-raw", { volumeCapabilities: [blockCapability()] });
    await rejectsWithCode(
      client.nodeStageVolume(stageRequest(volumeId, "/staging")),
      "FailedPrecondition",
      /block volume and cannot be used with a mount capability/,
    );
  });
});

describe("hostpath.csi.kvol.io: errors name what is wrong", () => {
  it("CreateVolume checks its arguments field by field", async () => {
    const { client } = setUp({ maxVolumeCapacityBytes: 100 * mebibyteBytes });
    await rejectsWithCode(client.createVolume(createRequest("")), "InvalidArgument", /name is required/);
    await rejectsWithCode(
      client.createVolume(createRequest("pvc-1", { volumeCapabilities: [] })),
      "InvalidArgument",
      /volume_capabilities is required/,
    );
    await rejectsWithCode(
      client.createVolume(
        createRequest("pvc-1", { volumeCapabilities: [mountCapability({ mode: "MULTI_NODE_MULTI_WRITER" })] }),
      ),
      "InvalidArgument",
      /volume_capabilities\[0\]: access mode MULTI_NODE_MULTI_WRITER is not supported/,
    );
    await rejectsWithCode(
      client.createVolume(createRequest("pvc-1", { capacityRange: { requiredBytes: 5, limitBytes: 4 } })),
      "InvalidArgument",
      /required_bytes 5 is more than capacity_range.limit_bytes 4/,
    );
    await rejectsWithCode(
      client.createVolume(
        createRequest("pvc-1", { capacityRange: { requiredBytes: 200 * mebibyteBytes, limitBytes: 0 } }),
      ),
      "OutOfRange",
    );
    await rejectsWithCode(
      client.createVolume(createRequest("pvc-1", { volumeContentSource: { snapshot: { snapshotId: "snap-1" } } })),
      "InvalidArgument",
      /volume_content_source is not supported/,
    );
  });

  it("a name that exists with another capacity is AlreadyExists; a larger request is never shrunk", async () => {
    const { client } = setUp();
    await createVolumeId(client, "pvc-1");
    await rejectsWithCode(
      client.createVolume(
        createRequest("pvc-1", { capacityRange: { requiredBytes: 20 * mebibyteBytes, limitBytes: 0 } }),
      ),
      "AlreadyExists",
      /a volume named pvc-1 already exists .* capacity of 10485760 bytes/,
    );
  });

  it("node RPCs name missing fields, unknown volumes, and an unstaged volume", async () => {
    const { client } = setUp();
    await rejectsWithCode(client.nodeStageVolume(stageRequest("", "/s")), "InvalidArgument", /volume_id is required/);
    await rejectsWithCode(
      client.nodeStageVolume(stageRequest("v", "")),
      "InvalidArgument",
      /staging_target_path is required/,
    );
    await rejectsWithCode(
      client.nodeStageVolume({ ...stageRequest("v", "/s"), volumeCapability: null }),
      "InvalidArgument",
      /volume_capability is required/,
    );
    await rejectsWithCode(
      client.nodeStageVolume(stageRequest("hostpath-nope", "/s")),
      "NotFound",
      /hostpath-nope does not exist/,
    );
    const volumeId = await createVolumeId(client, "pvc-1");
    await rejectsWithCode(
      client.nodePublishVolume(publishRequest(volumeId, "/staging", targetPathOf("uid-1", "pv-1"))),
      "FailedPrecondition",
      /not staged at \/staging .*call NodeStageVolume first/,
    );
    await rejectsWithCode(
      client.nodePublishVolume(publishRequest(volumeId, "", targetPathOf("uid-1", "pv-1"))),
      "FailedPrecondition",
      /staging_target_path is empty but this node plugin stages volumes/,
    );
  });
});

describe("hostpath.csi.kvol.io: topology, attach and the catalog", () => {
  it("volumes are pinned to the controller's node, and a requisite elsewhere is ResourceExhausted", async () => {
    const { client } = setUp();
    const { volume } = await client.createVolume(createRequest("pvc-1"));
    assert.deepEqual(volume?.accessibleTopology, [{ segments: { [hostpathTopologyKey]: "node-a" } }]);
    assert.deepEqual((await client.nodeGetInfo({})).accessibleTopology, {
      segments: { [hostpathTopologyKey]: "node-a" },
    });
    const elsewhere = { requisite: [{ segments: { [hostpathTopologyKey]: "node-b" } }], preferred: [] };
    await rejectsWithCode(
      client.createVolume(createRequest("pvc-2", { accessibilityRequirements: elsewhere })),
      "ResourceExhausted",
      /creates volumes on node node-a only/,
    );
    const capabilities = await client.getPluginCapabilities({});
    assert.ok(capabilities.capabilities.some((c) => c.service?.type === "VOLUME_ACCESSIBILITY_CONSTRAINTS"));
  });

  it("without the attach option ControllerPublish is Unimplemented and not advertised", async () => {
    const { client } = setUp();
    const volumeId = await createVolumeId(client, "pvc-1");
    const types = (await client.controllerGetCapabilities({})).capabilities.map((c) => c.rpc?.type);
    assert.equal(types.includes("PUBLISH_UNPUBLISH_VOLUME"), false);
    await rejectsWithCode(
      client.controllerPublishVolume({
        volumeId,
        nodeId: "node-a",
        volumeCapability: mountCapability(),
        readonly: false,
        secrets: {},
        volumeContext: {},
      }),
      "Unimplemented",
    );
  });

  it("with attach, a single-node volume published to one node is FailedPrecondition for another, naming it", async () => {
    const { client } = setUp({ attachRequired: true, nodeLocalTopology: false });
    const volumeId = await createVolumeId(client, "pvc-1");
    const publish = (nodeId: string, readonly = false) =>
      client.controllerPublishVolume({
        volumeId,
        nodeId,
        volumeCapability: mountCapability(),
        readonly,
        secrets: {},
        volumeContext: {},
      });
    assert.deepEqual(await publish("node-a"), { publishContext: {} });
    assert.deepEqual(await publish("node-a"), { publishContext: {} });
    await rejectsWithCode(publish("node-a", true), "AlreadyExists");
    await rejectsWithCode(publish("node-b"), "FailedPrecondition", /published to node node-a/);
    await rejectsWithCode(client.deleteVolume({ volumeId, secrets: {} }), "FailedPrecondition", /still published/);
    const [entry] = (await client.listVolumes({ maxEntries: 0, startingToken: "" })).entries;
    assert.deepEqual(entry?.status?.publishedNodeIds, ["node-a"]);
    await client.controllerUnpublishVolume({ volumeId, nodeId: "node-a", secrets: {} });
    await client.controllerUnpublishVolume({ volumeId, nodeId: "node-a", secrets: {} });
    assert.deepEqual(await publish("node-b"), { publishContext: {} });
    await rejectsWithCode(
      client.controllerPublishVolume({
        volumeId: "hostpath-nope",
        nodeId: "node-a",
        volumeCapability: mountCapability(),
        readonly: false,
        secrets: {},
        volumeContext: {},
      }),
      "NotFound",
    );
  });

  it("ListVolumes pages through every volume, and a made-up token is Aborted", async () => {
    const { client } = setUp();
    const ids = [
      await createVolumeId(client, "a"),
      await createVolumeId(client, "b"),
      await createVolumeId(client, "c"),
    ];
    const first = await client.listVolumes({ maxEntries: 2, startingToken: "" });
    assert.equal(first.entries.length, 2);
    assert.equal(first.nextToken, "2");
    const second = await client.listVolumes({ maxEntries: 2, startingToken: first.nextToken });
    assert.equal(second.nextToken, "");
    const listed = [...first.entries, ...second.entries].map((entry) => entry.volume?.volumeId);
    assert.deepEqual(listed, [...ids].sort());
    await rejectsWithCode(client.listVolumes({ maxEntries: 0, startingToken: "xyz" }), "Aborted", /starting_token/);
  });

  it("ValidateVolumeCapabilities confirms what the volume supports and says why it does not", async () => {
    const { client } = setUp();
    const volumeId = await createVolumeId(client, "pvc-1");
    const request = { volumeId, volumeContext: {}, parameters: {}, secrets: {}, mutableParameters: {} };
    const ok = await client.validateVolumeCapabilities({ ...request, volumeCapabilities: [mountCapability()] });
    assert.ok(ok.confirmed !== null);
    const block = await client.validateVolumeCapabilities({ ...request, volumeCapabilities: [blockCapability()] });
    assert.equal(block.confirmed, null);
    assert.match(block.message, /is a mount volume/);
    await rejectsWithCode(
      client.validateVolumeCapabilities({
        ...request,
        volumeId: "hostpath-nope",
        volumeCapabilities: [mountCapability()],
      }),
      "NotFound",
    );
  });

  it("the catalog file outlives the driver: a restarted driver still knows and deletes its volumes", async () => {
    const { world, host, client } = setUp();
    const volumeId = await createVolumeId(client, "pvc-1");
    const restarted = connectCsiInProcess(createHostpathDriver({ host, nodeId: "node-a", stateDir }));
    assert.equal(await createVolumeId(restarted, "pvc-1"), volumeId);
    await restarted.deleteVolume({ volumeId, secrets: {} });
    await expectErrno(world.node("node-a").stat(`${stateDir}/${volumeId}`), "ENOENT");
  });

  it("controller and node on different hosts share a memory catalog; data lives only where it was created", async () => {
    const { world } = newTestWorld();
    const catalog = new MemoryVolumeCatalog();
    const nodeA = world.addNode("node-a");
    const nodeB = world.addNode("node-b");
    const onA = connectCsiInProcess(createHostpathDriver({ host: nodeA, nodeId: "node-a", catalog, stateDir }));
    const onB = connectCsiInProcess(
      createHostpathDriver({ host: nodeB, nodeId: "node-b", catalog, stateDir, nodeLocalTopology: false }),
    );
    const volumeId = await createVolumeId(onA, "pvc-1");
    await rejectsWithCode(
      onB.nodeStageVolume(stageRequest(volumeId, "/staging")),
      "FailedPrecondition",
      /lives on node node-a; it cannot be used on node node-b/,
    );
  });
});
