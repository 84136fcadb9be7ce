/**
 * Raw block CSI volumes: the kubelet stages to `volumeDevices/staging/<pv>`, publishes the pod's
 * device file at `volumeDevices/publish/<pv>/<pod uid>`, maps it with the common block path, and
 * undoes it all in reverse.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { evalSymlinks } from "../../../host/mount/eval-symlinks.ts";
import { mapBlockVolume, unmapBlockVolume, unmapDeviceForAllPods } from "../../block/map-block-volume.ts";
import { VolumeSpec } from "../../spec.ts";
import { settle } from "../../testing/sim-node.ts";
import { volumeAttachmentName } from "./csi-attacher.ts";
import { callSequence, csiPluginFixture } from "./testing/csi-plugin-fixture.ts";
import { testCsiDriverName } from "./testing/test-csi-node-driver.ts";

const uid = "pod-uid-b";
const pod: Pod = { metadata: { name: "db-0", namespace: "default", uid }, spec: { containers: [] } };
const devices = "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices";
const spec = VolumeSpec.fromPersistentVolume({
  metadata: { name: "pvc-b" },
  spec: {
    accessModes: ["ReadWriteOnce"],
    volumeMode: "Block",
    csi: { driver: testCsiDriverName, volumeHandle: "vol-b" },
  },
});

describe("kubernetes.io/csi: raw block volumes", () => {
  it("stages, publishes, maps, then unpublishes and unstages, cleaning every directory", async () => {
    const fixture = await csiPluginFixture();
    fixture.world.disks.createDisk("disk-b", 64 << 20);
    const disk = await settle(fixture.clock, fixture.world.disks.attach("disk-b", fixture.host.nodeName));
    const attachmentName = volumeAttachmentName("vol-b", testCsiDriverName, "node-1");
    fixture.attachments.set(attachmentName, {
      metadata: { name: attachmentName },
      spec: { attacher: testCsiDriverName, nodeName: "node-1", source: { persistentVolumeName: "pvc-b" } },
      status: { attached: true, attachmentMetadata: { lun: "3" } },
    });
    fixture.driver.setBlockDevice("vol-b", disk);

    const mapper = fixture.plugin.newBlockVolumeMapper(spec, pod);
    const globalMapPath = await mapper.getGlobalMapPath(spec);
    assert.equal(globalMapPath, `${devices}/pvc-b/dev`);
    assert.equal(
      await settle(fixture.clock, mapper.setUpDevice?.() ?? Promise.resolve("")),
      `${devices}/staging/pvc-b`,
    );
    const publishPath = await settle(fixture.clock, mapper.mapPodDevice?.() ?? Promise.resolve(""));
    assert.equal(publishPath, `${devices}/publish/pvc-b/${uid}`);
    assert.deepEqual(callSequence(fixture.calls), ["NodeStageVolume", "NodePublishVolume"]);
    const [stage, publish] = fixture.calls.filter((call) => call.method !== "NodeGetCapabilities");
    assert.deepEqual(stage?.request, {
      volumeId: "vol-b",
      publishContext: { lun: "3" },
      stagingTargetPath: `${devices}/staging/pvc-b`,
      volumeCapability: { block: {}, accessMode: { mode: "SINGLE_NODE_WRITER" } },
      secrets: {},
      volumeContext: {},
    });
    assert.equal(publish?.method === "NodePublishVolume" && publish.request.targetPath, publishPath);
    assert.equal(
      new TextDecoder().decode(await fixture.host.readFile(`${devices}/pvc-b/data/vol_data.json`)),
      `{"attachmentID":"${attachmentName}","driverName":"${testCsiDriverName}","nodeName":"node-1",` +
        `"specVolID":"pvc-b","volumeHandle":"vol-b"}\n`,
    );

    const context = { host: fixture.node.host, mounter: fixture.mounter, logger: fixture.logger };
    const { dir, linkName } = mapper.getPodDeviceMapPath();
    assert.deepEqual(
      { dir, linkName },
      { dir: `/var/lib/kubelet/pods/${uid}/volumeDevices/kubernetes.io~csi`, linkName: "pvc-b" },
    );
    const paths = { globalMapPath, podDeviceMapPath: dir, volumeMapName: linkName, podUID: uid };
    const device = await evalSymlinks(fixture.node.host, publishPath);
    await settle(fixture.clock, mapBlockVolume(context, device, paths));
    assert.equal((await fixture.host.stat(`${dir}/pvc-b`)).type, "blockDevice");

    fixture.calls.length = 0;
    const unmapper = fixture.plugin.newBlockVolumeUnmapper("pvc-b", uid);
    await settle(fixture.clock, unmapBlockVolume(context, paths));
    await settle(fixture.clock, unmapper.unmapPodDevice?.() ?? Promise.resolve());
    const deviceUnmapper = fixture.plugin.newBlockVolumeUnmapper("pvc-b", "");
    const tearDown = () => deviceUnmapper.tearDownDevice?.(globalMapPath, attachmentName) ?? Promise.resolve();
    await settle(fixture.clock, unmapDeviceForAllPods(context, globalMapPath, attachmentName, tearDown));
    assert.deepEqual(callSequence(fixture.calls), ["NodeUnpublishVolume", "NodeUnstageVolume"]);
    assert.deepEqual(
      (await fixture.host.readdir(devices)).sort(),
      ["publish", "staging"],
      "the volume's own directories are gone",
    );
    assert.deepEqual(await fixture.host.readdir(`${devices}/publish`), []);
    assert.deepEqual(await fixture.host.readdir(`${devices}/staging`), []);
  });
});
