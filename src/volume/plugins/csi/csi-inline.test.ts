/**
 * Inline (ephemeral) CSI volumes in the kubelet plugin: published without attach or stage under a
 * kubelet-made id, unpublished on teardown, rebuilt from `vol_data.json` after a restart.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { TransientOperationFailure } from "../../errors.ts";
import { VolumePluginManager } from "../../plugin-manager.ts";
import { VolumeSpec } from "../../spec.ts";
import { settle } from "../../testing/sim-node.ts";
import { csiPluginFixture } from "./testing/csi-plugin-fixture.ts";
import { testCsiDriverName } from "./testing/test-csi-node-driver.ts";

const driverName = testCsiDriverName;
const uid = "pod-uid-1";
const pod: Pod = {
  metadata: { name: "web-0", namespace: "default", uid },
  spec: { containers: [], serviceAccountName: "web" },
};
const root = "/var/lib/kubelet";
const podVolumeDir = `${root}/pods/${uid}/volumes/kubernetes.io~csi/scratch`;
/** printf 'pod-uid-1scratch' | sha256sum */
const volumeId = "csi-c5699e390261e9e6987cb40a451a4e699b550c7b5f2b6574fc12407e6f10fb2f";

function inlineSpec(): VolumeSpec {
  return VolumeSpec.fromVolume({
    name: "scratch",
    csi: { driver: driverName, fsType: "ext4", readOnly: true, volumeAttributes: { size: "1Mi" } },
  });
}

describe("kubernetes.io/csi: inline ephemeral volumes", () => {
  it("is neither attachable nor device-mountable", async () => {
    const fixture = await csiPluginFixture();
    const manager = new VolumePluginManager();
    manager.register([fixture.plugin], fixture.volumeHost);
    assert.equal(manager.findPluginBySpec(inlineSpec())?.name, "kubernetes.io/csi");
    assert.equal(manager.findAttachablePluginBySpec(inlineSpec()), undefined);
    assert.equal(manager.findDeviceMountablePluginBySpec(inlineSpec()), undefined);
  });

  it("publishes with the csi-<sha256> id, no staging path, and the ephemeral pod information; unpublishes on teardown", async () => {
    const fixture = await csiPluginFixture();
    fixture.csiDrivers.set(driverName, {
      metadata: { name: driverName },
      spec: { volumeLifecycleModes: ["Ephemeral"], podInfoOnMount: true, attachRequired: false },
    });
    await settle(fixture.clock, fixture.plugin.newMounter(inlineSpec(), pod).setUp({}));
    assert.deepEqual(
      fixture.calls.map((call) => call.method).filter((method) => method !== "NodeGetCapabilities"),
      ["NodePublishVolume"],
    );
    const publish = fixture.calls.find((call) => call.method === "NodePublishVolume")?.request as {
      volumeId: string;
      stagingTargetPath: string;
      targetPath: string;
      readonly: boolean;
      publishContext: Record<string, string>;
      volumeContext: Record<string, string>;
    };
    assert.equal(publish.volumeId, volumeId);
    assert.equal(publish.stagingTargetPath, "");
    assert.equal(publish.targetPath, `${podVolumeDir}/mount`);
    assert.equal(publish.readonly, true);
    assert.deepEqual(publish.publishContext, {});
    assert.deepEqual(publish.volumeContext, {
      size: "1Mi",
      "csi.storage.k8s.io/pod.name": "web-0",
      "csi.storage.k8s.io/pod.namespace": "default",
      "csi.storage.k8s.io/pod.uid": uid,
      "csi.storage.k8s.io/serviceAccount.name": "web",
      "csi.storage.k8s.io/ephemeral": "true",
    });
    const volumeData = new TextDecoder().decode(await fixture.host.readFile(`${podVolumeDir}/vol_data.json`));
    assert.match(
      volumeData,
      /"specVolID":"scratch","volumeHandle":"csi-c5699e390261e9e6987cb40a451a4e699b550c7b5f2b6574fc12407e6f10fb2f","volumeLifecycleMode":"Ephemeral"/,
    );

    const { spec } = await fixture.plugin.constructVolumeSpec("scratch", podVolumeDir);
    assert.deepEqual(spec.volume, { name: "scratch", csi: { driver: driverName } });

    await settle(fixture.clock, fixture.plugin.newUnmounter("scratch", uid).tearDown());
    const unpublish = fixture.calls.find((call) => call.method === "NodeUnpublishVolume")?.request;
    assert.deepEqual(unpublish, { volumeId, targetPath: `${podVolumeDir}/mount` });
  });

  it("refuses a driver whose CSIDriver does not list Ephemeral, with Kubernetes' message", async () => {
    const fixture = await csiPluginFixture();
    fixture.csiDrivers.set(driverName, { metadata: { name: driverName }, spec: {} });
    await assert.rejects(settle(fixture.clock, fixture.plugin.newMounter(inlineSpec(), pod).setUp({})), (err) => {
      assert.ok(err instanceof TransientOperationFailure);
      assert.equal(
        err.message,
        `kubernetes.io/csi: mounter.SetupAt failed to check volume lifecycle mode: volume mode "Ephemeral" not supported by driver ${driverName} (only supports ["Persistent"])`,
      );
      return true;
    });
  });
});
